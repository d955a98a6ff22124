import Foundation
import SensorInput
import StepDetection
import Store
import WallTime

/// One stream of acceleration samples a phone pushed (a Sensor Logger session), with its own detector: each fetch
/// feeds it, in time order, the samples received up to `reorder` before the newest, so that a message that came out
/// of order within that allowance is still counted in its place. A stream quiet for longer than the allowance is fed
/// to its end and its walk closed, as a file that stopped growing. Samples fed are removed from the state, and the
/// spans they covered kept (`ReceivedCounted`), so that a resend of them is a duplicate rather than a late sample.
struct ReceivedStreamSource: StepSource {
    let store: StateStore
    let stream: String
    /// How late a message may come and still be counted in time order.
    let reorder: Duration
    /// The detector's parameters (`[detect] sensitivity`).
    var parameters = DetectorParameters.standard

    var name: String { "receive/" + stream }

    func didSave(_ read: SourceRead) {}

    func read(after saved: SavedSource, now: Instant, byteLimit: Int64?, observeDevice: Bool) throws -> SourceRead {
        try store.read { tx in
            guard let row = try tx.receivedStream(stream) else {
                return SourceRead(next: saved, watermark: now)
            }
            let quiet = now - row.lastHeard > reorder
            let cutoff = quiet ? Instant.distantFuture : row.newest - reorder
            let fedThrough = saved.lastSample ?? Instant(nanosecondsSinceEpoch: .min)
            var read = SourceRead(next: saved, watermark: now)
            var detected = DetectedSteps()
            var detector = resumedDetector(saved.detector, parameters: parameters, detected: &detected)
            let handle: (DetectorEvent) -> Void = { detected.take($0) }
            var last = saved.lastSample
            var spans = CountedSpans()
            try tx.forEachReceivedSample(stream: stream, after: fedThrough, through: cutoff) { sample in
                let t = sample.time
                if read.next.firstData == nil { read.next.firstData = t }
                detector.push(time: sample.time, x: sample.x, y: sample.y, z: sample.z, handle)
                spans.extend(t)
                last = t
            }
            let late = try tx.receivedSampleCount(stream: stream, through: fedThrough)
            if late > 0 {
                read.warnings.append(
                    "\(late) samples of \(stream) came more than the reorder allowance after newer ones and were left out"
                )
            }
            if quiet {
                detector.finish(handle)
            } else if let last {
                // Steps before the detector's settled time are final; the held-back samples come next time. (A stream
                // of running totals only, a pedometer or a step log's `total`, has no samples: it holds nothing back.)
                read.watermark = min(now, detector.settled ?? last, cutoff)
            }
            read.deviceBuckets = detected.buckets.isEmpty ? [:] : [DeviceOverlap.detected(row.device): detected.buckets]
            read.bouts = detected.bouts
            read.next.detector = detector
            read.next.lastSample = last
            read.changes.append(.fed(stream: stream, through: last ?? fedThrough, spans: spans))
            return read
        }
    }
}
