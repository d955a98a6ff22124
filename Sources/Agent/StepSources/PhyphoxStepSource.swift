import Foundation
import Publishing
import StepDetection
import Store
import WallTime

/// A phone running phyphox's "Acceleration with g" with remote access on (`source.url`), pulled at each fetch: the
/// buffers after the last buffer time read, mapped to wall time by the phone's `/time`, fed to the source's own
/// detector in order. The phone is the device `status` and `devices --received` list. Its position (session, time
/// reference, last buffer time) is saved with the detector, in the transaction that saves the steps.
///
/// - A new session (another experiment) or a "clear" (the same session, its time starting again at 0) starts over:
///   the old run's last walk is closed, a new detector begins, and its buffers are read from their start. Samples
///   not after the last one counted are skipped, so a run that still holds what was read (the app reopened the same
///   measurement) is never counted twice.
/// - A phone that does not answer, or answers something else, is a note in the fetch, not a failure: it keeps its
///   buffers, and the next fetch reads them. Windows wait for it up to what its detector has settled, for
///   `schedule.settle`; after that its last walk is closed and windows close at the fetch time.
/// - A phone that is not measuring has nothing new: its walk so far is closed, and windows close at the fetch time.
struct PhyphoxStepSource: StepSource {
    let remote: AgentConfiguration.PhyphoxRemote
    let transport: any HTTPSending
    /// What this fetch's pull brought: nothing where no pull ran (the walk trigger's ingestion reads local data only).
    var pulled: PhyphoxPull = .notPulled
    /// The detector's parameters (`[detect] sensitivity`).
    var parameters = DetectorParameters.standard

    var name: String { remote.url.absoluteString }

    func didSave(_ read: SourceRead) {}

    func pull(after saved: SavedSource, deadline: Deadline) async -> any StepSource {
        var source = self
        let phone = PhyphoxInterface(base: remote.url, http: HTTPContext(transport: transport))
        let position = saved.remotePosition
        do throws(PhyphoxError) {
            var buffers = try await phone.buffers(after: position?.lastBufferTime, deadline: deadline)
            // Asked after the buffers, so that a pause and resume since then is in it for every sample answered.
            let events = try await phone.timeReference(deadline: deadline)
            let newRun = position?.isRun(session: buffers.status.session, events: events) != true
            if newRun, position?.lastBufferTime != nil, !buffers.isFull {
                // Another experiment, or this one cleared: its times start again near 0, below the threshold asked.
                buffers = try await phone.buffers(after: nil, deadline: deadline)
            }
            source.pulled = .answered(PhyphoxReading(buffers: buffers, events: events, newRun: newRun))
        } catch {
            source.pulled = .failed(error)
        }
        return source
    }

    func read(after saved: SavedSource, now: Instant, byteLimit: Int64?, observeDevice: Bool) throws -> SourceRead {
        var read = SourceRead(next: saved, watermark: now)
        var detected = DetectedSteps()
        var detector = resumedDetector(saved.detector, parameters: parameters, detected: &detected)
        switch pulled {
        case .notPulled:
            return read
        case .failed(let error):
            read.inputWarnings.append(
                "phyphox \(error.description); nothing read from it (the phone keeps its buffers for the next fetch)")
            let heardLately = saved.remotePosition.map { now - $0.lastHeard <= .seconds(remote.settle) }
            if heardLately == true {
                read.watermark = min(now, detector.settled ?? now)
            } else {
                detector.finish { detected.take($0) }
            }
        case .answered(let reading):
            take(reading, saved: saved, now: now, into: &read, detector: &detector, detected: &detected)
        }
        // The phone competes with the others for the minutes they share (`DeviceOverlap`).
        if !detected.buckets.isEmpty {
            read.deviceBuckets = [DeviceOverlap.detected(remote.deviceName): detected.buckets]
        }
        read.bouts = detected.bouts
        read.next.detector = detector
        return read
    }

    /// Feeds what the phone answered to the detector: a new run (another session, or a clear) starts a new detector;
    /// only samples after the last one counted are taken; the phone is recorded as heard, with its data's end.
    func take(
        _ reading: PhyphoxReading, saved: SavedSource, now: Instant, into read: inout SourceRead,
        detector: inout StepDetector, detected: inout DetectedSteps
    ) {
        var position = saved.remotePosition
        if reading.newRun {
            // The old run's last walk is over; the new one has its own detector.
            detector.finish { detected.take($0) }
            detector = StepDetector(parameters: parameters)
            position = nil
        }
        let taken = reading.samples(after: position?.lastBufferTime, notBefore: saved.lastSample)
        if taken.unmapped {
            read.inputWarnings.append(
                "phyphox \(name): the buffers hold samples but /time lists no start to give them a time; nothing read"
            )
        }
        taken.samples.withUnsafeBufferPointer { detector.push($0) { detected.take($0) } }
        if let first = taken.samples.first, read.next.firstData == nil {
            read.next.firstData = first.time
        }
        if let last = taken.samples.last { read.next.lastSample = last.time }
        if let median = PhyphoxReading.medianMagnitude(taken.samples), median < 5 {
            read.inputWarnings.append(
                "phyphox \(name): the acceleration has no gravity in it (median |a| \(String(format: "%.1f", median)) m/s²): steps are counted from \"Acceleration with g\", not \"Linear Acceleration\""
            )
        }
        if reading.buffers.status.measuring {
            let settled = detector.settled
            read.watermark = min(now, settled ?? read.next.lastSample ?? now)
        } else {
            // Paused or stopped: nothing more comes until it measures again, after a gap that ends the walk.
            detector.finish { detected.take($0) }
        }
        read.next.remotePosition = PhyphoxPosition(
            session: reading.buffers.status.session, timeReference: reading.events,
            lastBufferTime: taken.lastBufferTime ?? position?.lastBufferTime, lastHeard: now)
        // Its data has arrived up to its last sample; when it is not measuring, up to now (nothing more will come
        // for the time before), so a window that waits for the devices heard does not wait for an idle phone.
        let dataEnd = reading.buffers.status.measuring ? read.next.lastSample : now
        let (device, samples) = (remote.deviceName, taken.samples.count)
        read.changes.append(.heard(device: device, format: "phyphox", dataEnd: dataEnd, samples: samples))
    }
}

/// What a pull brought.
enum PhyphoxPull: Sendable {
    case notPulled
    case failed(PhyphoxError)
    case answered(PhyphoxReading)
}

/// Where reading a phone stopped, saved with the source's detector (`source_cursor.remote_position`).
struct PhyphoxPosition: Codable, Sendable, Equatable {
    /// The experiment's session, as `/get` answers it.
    var session: String
    /// The events of `/time` at the last read: a "clear" empties them and the next start is another first event.
    var timeReference: [PhyphoxTimeEvent]
    /// The buffer time (s since the experiment started) of the last sample read: the next read asks for what is after.
    var lastBufferTime: Double?
    /// When the phone last answered.
    var lastHeard: Instant

    /// The JSON keys as saved in `source_cursor.remote_position` since the position was first kept.
    enum CodingKeys: String, CodingKey {
        case session, timeReference, lastBufferTime
        case lastHeard = "lastHeardNs"
    }

    /// Whether an answer with `session` and `events` continues this run: the same session, not cleared since.
    func isRun(session: String, events: [PhyphoxTimeEvent]) -> Bool {
        session == self.session && events.first == timeReference.first
    }
}

/// One answered pull: the buffers, the time reference read after them, and whether they are another run than the
/// one read before.
struct PhyphoxReading: Sendable {
    var buffers: PhyphoxBuffers
    var events: [PhyphoxTimeEvent]
    var newRun: Bool

    /// The samples after buffer time `after` and after wall time `notBefore`, in buffer order, at their wall time:
    /// the axes (or the magnitude as `x`), a row with `null` (NaN) in its time or a value left out. The last buffer
    /// time read, and whether samples were left because there is no time reference to place them.
    func samples(after: Double?, notBefore: Instant?) -> (
        samples: [AccelerationSample], lastBufferTime: Double?, unmapped: Bool
    ) {
        let times = buffers.buffer[PhyphoxInterface.timeBuffer]?.buffer ?? []
        let axes = PhyphoxInterface.axisBuffers.compactMap { buffers.buffer[$0]?.buffer }
        let columns = axes.count == 3 ? axes : [buffers.buffer[PhyphoxInterface.magnitudeBuffer]?.buffer ?? []]
        let rows = columns.reduce(times.count) { min($0, $1.count) }
        guard !events.isEmpty else {
            return ([], nil, times.prefix(rows).contains { $0 != nil })
        }
        var samples: [AccelerationSample] = []
        samples.reserveCapacity(rows)
        var last: Double?
        for i in 0..<rows {
            // A time that cannot be placed (centuries) is left out and never becomes the next pull's threshold.
            guard let t = times[i], t.isFinite, t > after ?? -.infinity, let wallNs = PhyphoxTimeEvent.wallNs(t, events)
            else { continue }
            last = t
            guard wallNs > notBefore?.nanosecondsSinceEpoch ?? .min, let x = columns[0][i], x.isFinite else { continue }
            var y = 0.0
            var z = 0.0
            if columns.count == 3 {
                guard let cy = columns[1][i], let cz = columns[2][i], cy.isFinite, cz.isFinite else { continue }
                (y, z) = (cy, cz)
            }
            samples.append(AccelerationSample(time: Instant(nanosecondsSinceEpoch: wallNs), x: x, y: y, z: z))
        }
        return (samples, last, false)
    }

    /// The median magnitude of up to the first 1,000 samples, when there are enough to tell: about 9.8 m/s² with
    /// gravity, near 0 from "Linear Acceleration".
    static func medianMagnitude(_ samples: [AccelerationSample]) -> Double? {
        guard samples.count >= 100 else { return nil }
        let magnitudes = samples.prefix(1000).map { ($0.x * $0.x + $0.y * $0.y + $0.z * $0.z).squareRoot() }.sorted()
        return magnitudes[magnitudes.count / 2]
    }
}
