import Foundation
import GRDB
import SensorInput
import StepDetection

/// One stream of acceleration samples a phone pushed (a Sensor Logger session), with its own detector: each fetch
/// feeds it, in time order, the samples received up to `reorder` before the newest, so that a message that came out
/// of order within that allowance is still counted in its place. A stream quiet for longer than the allowance is fed
/// to its end and its walk closed, as a file that stopped growing. Samples fed are removed from the state, and the
/// spans they covered kept (`ReceivedCounted`), so that a resend of them is a duplicate rather than a late sample.
struct ReceivedStreamSource: StepSource {
    let store: StateStore
    let stream: String
    /// How late a message may come and still be counted in time order.
    let reorderNs: Int64
    /// The detector's parameters (`[detect] sensitivity`).
    var parameters = DetectorParameters.standard

    var name: String { "receive/" + stream }

    func didSave(_ read: SourceRead) {}

    func read(after saved: SavedSource, nowNs: Int64, byteLimit: Int64?, observeDevice: Bool) throws -> SourceRead {
        try store.writer.read { db in
            guard let row = try ReceivedStreamRecord.fetchOne(db, key: stream) else {
                return SourceRead(next: saved, watermarkNs: nowNs)
            }
            let quiet = nowNs - row.lastHeardNs > reorderNs
            let cutoff = quiet ? Int64.max : row.newestNs - reorderNs
            let fedThrough = saved.lastSampleNs ?? Int64.min
            var read = SourceRead(next: saved, watermarkNs: nowNs)
            var detected = DetectedSteps()
            var detector = resumedDetector(saved.detector, parameters: parameters, detected: &detected)
            let handle: (DetectorEvent) -> Void = { detected.take($0) }
            var last = saved.lastSampleNs
            var spans: [(start: Int64, end: Int64)] = []
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT time_ns, x, y, z FROM received_sample WHERE stream = ? AND time_ns > ? AND time_ns <= ?
                    ORDER BY time_ns
                    """, arguments: [stream, fedThrough, cutoff])
            while let sample = try rows.next() {
                let t: Int64 = sample[0]
                if read.next.firstDataNs == nil { read.next.firstDataNs = t }
                detector.push(timeNs: t, x: sample[1], y: sample[2], z: sample[3], handle)
                ReceivedCounted.extend(&spans, t)
                last = t
            }
            let late =
                try Int.fetchOne(
                    db, sql: "SELECT COUNT(*) FROM received_sample WHERE stream = ? AND time_ns <= ?",
                    arguments: [stream, fedThrough]) ?? 0
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
                read.watermarkNs = min(nowNs, detector.settledNs ?? last, cutoff)
            }
            read.deviceBuckets = detected.buckets.isEmpty ? [:] : [DeviceOverlap.detected(row.device): detected.buckets]
            read.bouts = detected.bouts
            read.next.detector = detector
            read.next.lastSampleNs = last
            let stream = self.stream
            let through = last ?? fedThrough
            let fedSpans = spans
            read.saveAlso.append { db in
                try db.execute(
                    sql: "DELETE FROM received_sample WHERE stream = ? AND time_ns <= ?", arguments: [stream, through])
                try ReceivedCounted.add(fedSpans, stream: stream, db)
            }
            return read
        }
    }
}
