import Foundation
import HTTPTypes
import SensorInput
import StepDetection

/// Sensor Logger (iOS and Android), HTTP push: `{"messageId": 27, "sessionId": "…", "deviceId": "…", "payload":
/// [{"name": "accelerometer", "time": 1675646835546228200, "values": {"x": …, "y": …, "z": …}}, …]}`, one message per
/// batch period, sensors mixed and unsorted. The stream is (`deviceId`, `sessionId`). Acceleration with gravity is,
/// by preference: `totalacceleration` (Android); `accelerometer` (without gravity) + `gravity` at the same time
/// (`SensorLoggerPairing`); `accelerometeruncalibrated` (with gravity; in g on iOS unless "Standardise Units &
/// Frames" is on, m/s² otherwise: told from the median |a|, ≈ 1 or ≈ 9.8). `pedometer` readings are running totals.
/// A reading repeated within the message (name and time) is taken once; one whose values are null (how JavaScript
/// writes NaN) or over 50 g is left out and listed; one that cannot be read (no time, values not numbers) is left out
/// and refused (`Payload.refused`). "Tap to test pushing" sends one reading named `test`.
struct SensorLoggerApp: PushApp {
    static let name = "sensor-logger"
    var name: String { Self.name }

    let about =
        "Sensor Logger HTTP push: {\"sessionId\", \"deviceId\", \"payload\": [{\"name\", \"time\", \"values\"}]}"

    func recognises(_ body: PayloadBody) -> Bool {
        guard let root = body.topLevelObject, case .array? = root["payload"] else { return false }
        return root["sessionId"] != nil || root["deviceId"] != nil || root["messageId"] != nil
    }

    func parse(_ body: PayloadBody) throws -> Payload { try Self.parse(body) }

    /// PUSHING.md: the text of a 499 answer is shown to the user (once per recording), nothing of any other. The app
    /// sends no message again (push-sources.md), so a 503's "send again" would reach nobody.
    var convention: AppConvention { AppConvention(tellUser: Self.notice) }

    /// A 499 with `text` in plain text: what Sensor Logger shows its user, once per recording (PUSHING.md).
    static func notice(_ text: String) -> HTTPAnswer {
        HTTPAnswer(
            status: HTTPAnswer.status(499, "Refused"), headerFields: [.contentType: "text/plain; charset=utf-8"],
            body: Data(text.utf8))
    }

    /// The sensors whose readings are used; the rest are counted into `ignored`.
    static let used: Set<String> = [
        "totalacceleration", "accelerometer", "gravity", "accelerometeruncalibrated", "pedometer",
    ]

    /// The latest time a reading may have (2100-01-01): ns since the epoch, never near Int64's ends.
    static let latestNs: Int64 = 4_102_444_800_000_000_000

    /// One reading of a used sensor: its index in `payload`, its time, and its acceleration (nil: values null) or
    /// its pedometer total.
    struct Reading {
        var index: Int
        var timeNs: Int64
        var vector: SensorLoggerAcceleration.Vector?
        var steps = 0

        init(index: Int, timeNs: Int64) {
            self.index = index
            self.timeNs = timeNs
        }
    }

    static func parse(_ body: PayloadBody) throws -> Payload {
        let root = try body.document.get().object(at: "")
        let readings = try root.member("payload", at: "payload").array(at: "payload")
        var payload = Payload(format: name)
        if !readings.isEmpty, readings.allSatisfy({ $0["name"] == .string("test") }) {
            payload.isTest = true
            return payload
        }
        let device = try identifier("deviceId", of: root)
        let stream = try identifier("sessionId", of: root)
        var bySensor: [String: [Reading]] = [:]
        var others: [String: Int] = [:]
        for (i, r) in readings.enumerated() {
            payload.refusingItem(device: device) { _ in
                let (sensor, reading) = try read(r, index: i)
                if let reading {
                    bySensor[sensor, default: []].append(reading)
                } else {
                    others[sensor, default: 0] += 1
                }
            }
        }
        var notes = Notes()
        for key in bySensor.keys.sorted() { bySensor[key] = notes.onceEach(bySensor[key]!, sensor: key) }
        let samples = SensorLoggerAcceleration.samples(bySensor, notes: &notes)
        payload.items = samples.map { .sample(device: device, stream: stream, sample: $0) }
        for r in bySensor["pedometer"] ?? [] {
            payload.items.append(.runningTotal(device: device, stream: stream, timeNs: r.timeNs, total: r.steps))
        }
        payload.ignored =
            notes.lines + others.sorted { $0.key < $1.key }.map { "\($0.key) (\(counted($0.value, "reading")))" }
        if payload.items.isEmpty, bySensor["accelerometer"] != nil || bySensor["gravity"] != nil,
            bySensor["totalacceleration"] == nil, bySensor["accelerometeruncalibrated"] == nil
        {
            payload.problem =
                "Accelerometer alone has no gravity in it, so no step can be counted: turn on Gravity as well (or "
                + "Accelerometer Uncalibrated; Total Acceleration on Android) in Sensor Logger's sensors"
        }
        return payload
    }

    /// `deviceId` or `sessionId`: a non-empty string.
    static func identifier(_ key: String, of root: JSONTree) throws -> String {
        let id = try root.member(key, at: key).text(at: key)
        guard !id.isEmpty else { throw PayloadError(path: key, message: "empty") }
        return id
    }

    /// Reading `i` of `payload`: its sensor's name, and for a used sensor its time and values, checked (a bad
    /// reading is left out before repeats are dropped, so a good repeat of it still counts). A reading of a sensor
    /// not used is only named.
    static func read(_ r: JSONTree, index i: Int) throws -> (String, Reading?) {
        _ = try r.object(at: "payload[\(i)]")
        let sensor = try r.member("name", at: "payload[\(i)].name").text(at: "payload[\(i)].name")
        guard used.contains(sensor) else { return (sensor, nil) }
        let time = try r.member("time", at: "payload[\(i)].time").integer(at: "payload[\(i)].time")
        guard (0...latestNs).contains(time) else {
            throw PayloadError(path: "payload[\(i)].time", message: "\(time) is not a time in ns between 1970 and 2100")
        }
        // The values' object, or the reading itself when a sender flattened them beside its name: errors name the
        // field where it is.
        let at = r["values"] == nil ? "payload[\(i)]" : "payload[\(i)].values"
        let values = try (r["values"] ?? r).object(at: at)
        var reading = Reading(index: i, timeNs: time)
        if sensor == "pedometer" {
            let steps = try values.member("steps", at: "\(at).steps").integer(at: "\(at).steps")
            guard steps >= 0, steps < StepReading.countLimit else {
                throw PayloadError(path: "\(at).steps", message: "\(steps) is not a step count (0 to 2^40)")
            }
            reading.steps = Int(steps)
        } else {
            reading.vector = try SensorLoggerAcceleration.vector(values, at: at)
        }
        return (sensor, reading)
    }

    /// What was left out of a message, in the order it was met.
    struct Notes {
        var lines: [String] = []

        /// `readings` sorted by time, each time once (the first kept); repeats are noted.
        mutating func onceEach(_ readings: [Reading], sensor: String) -> [Reading] {
            let sorted = readings.sorted { ($0.timeNs, $0.index) < ($1.timeNs, $1.index) }
            var out: [Reading] = []
            out.reserveCapacity(sorted.count)
            for r in sorted where out.last?.timeNs != r.timeNs { out.append(r) }
            if out.count < sorted.count {
                lines.append("\(sensor): \(counted(sorted.count - out.count, "repeated reading")) (same time)")
            }
            return out
        }
    }
}
