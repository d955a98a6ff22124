import Foundation
import SensorInput
import WallTime

/// Health Connect webhook apps (Android, e.g. health-connect-webhook): `{"timestamp": "…Z", "app_version": "…",
/// "steps": [{"count": 123, "start_time": "…Z", "end_time": "…Z", "metadata": {…}}], …}`. A step record replaces
/// any earlier one of its device with the same `start_time` (in the default daily mode today's record comes again at
/// every sync with a growing count). The device is the record's `metadata.data_origin` (the app that wrote it) and
/// `metadata.device` model when given, so records of several apps covering one walk are separate devices; without
/// metadata it is `health-connect`. The top-level `timestamp` is when it sent (`Payload.sent`): it retries failed
/// sends, so an older send may come after a newer one and must not replace it; one that is not a time is noted in
/// `ignored` and its records replace as they come. Other arrays (`heart_rate`, `sleep`, …) are listed as ignored. A record that
/// cannot be read is left out and refused, the others kept. A test send (`"test": true`) is checked like any payload,
/// then stores nothing.
struct HealthConnectApp: PushApp {
    static let name = "health-connect"
    var name: String { Self.name }

    let about =
        "Health Connect webhook (Android): {\"app_version\", or \"timestamp\" and \"steps\": [{\"count\", \"start_time\", \"end_time\"}], …}"

    func recognises(_ body: PayloadBody) -> Bool {
        guard let root = body.topLevelObject else { return false }
        if root["app_version"] != nil { return true }
        if case .array? = root["steps"], root["timestamp"] != nil { return true }
        return false
    }

    func parse(_ body: PayloadBody) throws -> Payload { try Self.parse(body) }

    /// health-connect-webhook retries only a 5xx (three times) and its next sync repeats the records: the plain JSON
    /// answers (`AppConvention.plain`).
    let convention = AppConvention.plain

    static func parse(_ body: PayloadBody) throws -> Payload {
        let root = try body.document.get().object(at: "")
        var payload = Payload(format: name)
        // Today's record starts at local midnight: after a zone change it starts elsewhere and covers the old one.
        payload.replacesOverlaps = true
        if let test = root["test"] {
            guard case .bool(let isTest) = test else {
                throw PayloadError.expected("true or false", at: "test", found: test)
            }
            payload.isTest = isTest
        }
        guard case .object(let members) = root else { return payload }
        for (key, value) in members {
            if key == "timestamp" {
                do {
                    payload.sent = Instant(nanosecondsSinceEpoch: try time(value, at: "timestamp"))
                } catch {
                    payload.ignored.append("\(error) (records replace as they come)")
                }
            } else if key == "steps" {
                for (i, record) in try value.array(at: "steps").enumerated() {
                    payload.refusingItem(device: device(record["metadata"]) ?? name) { payload in
                        payload.items.append(try read(record, at: "steps[\(i)]"))
                    }
                }
            } else if case .array(let records) = value, !records.isEmpty {
                payload.ignored.append("\(key) (\(counted(records.count, "record")))")
            }
        }
        if payload.isTest, !payload.items.isEmpty {
            payload.ignored.append("test message: \(counted(payload.items.count, "step record")) not stored")
            payload.items = []
        }
        return payload
    }

    /// One step record: `count` (whole, ≥ 0), `start_time` and `end_time` (RFC 3339 with a zone, end not before start).
    static func read(_ record: JSONTree, at path: @autoclosure () -> String) throws -> PayloadItem {
        _ = try record.object(at: path())
        let count = try record.member("count", at: path() + ".count").integer(at: path() + ".count")
        guard count >= 0, count < StepReading.countLimit else {
            throw PayloadError(path: path() + ".count", message: "\(count) is not a step count (0 to 2^40)")
        }
        let start = try time(record.member("start_time", at: path() + ".start_time"), at: path() + ".start_time")
        let end = try time(record.member("end_time", at: path() + ".end_time"), at: path() + ".end_time")
        guard end >= start else { throw PayloadError(path: path() + ".end_time", message: "before start_time") }
        return .replacing(
            device: device(record["metadata"]) ?? name, key: "steps \(start)",
            reading: StepReading(
                start: Instant(nanosecondsSinceEpoch: start), end: Instant(nanosecondsSinceEpoch: end),
                steps: Int(count)), microsteps: count * 1_000_000)
    }

    static func time(_ value: JSONTree, at path: @autoclosure () -> String) throws -> Int64 {
        let text = try value.text(at: path())
        guard let t = TimeParsing.parseDateTime(Substring(text)), t.hadZone else {
            throw PayloadError(
                path: path(), message: "\(quotedForMessage(text)) is not a time (expected RFC 3339 with a zone)")
        }
        return t.ns
    }

    /// "com.google.android.apps.fitness (Google Pixel Watch)" from the record's metadata; nil without an origin.
    static func device(_ metadata: JSONTree?) -> String? {
        guard let origin = metadata?["data_origin"]?.string, !origin.isEmpty else { return nil }
        let model = [metadata?["device"]?["manufacturer"]?.string, metadata?["device"]?["model"]?.string]
            .compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " ")
        return model.isEmpty ? origin : "\(origin) (\(model))"
    }
}
