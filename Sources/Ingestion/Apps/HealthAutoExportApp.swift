import Foundation
import SensorInput
import WallTime

/// Health Auto Export (iOS), REST API automation, JSON: `{"data": {"metrics": [{"name": "step_count", "units":
/// "count", "data": [{"date": "2026-11-21 10:00:00 +0900", "qty": 123, "source": "Taro's Apple Watch"}]}],
/// "workouts": [...]}}`. Only `step_count` points are steps: each is the total of its interval (inferred:
/// `HealthAutoExportInterval`) stamped at its start, and replaces any earlier point of the same source and start
/// (the app resends yesterday and today several times a day, today's points growing). `qty` may be fractional after
/// aggregation: kept exact in microsteps. Other metrics, workouts and the other arrays (`stateOfMind`, `ecg`, …) are
/// recognised and listed as ignored; one old version put `"workouts": []` beside `data`. A point (or a `step_count`
/// metric) that cannot be read is left out and listed, the rest kept.
struct HealthAutoExportApp: PushApp {
    static let name = "health-auto-export"
    var name: String { Self.name }
    static let metric = "step_count"

    let about =
        "Health Auto Export (iOS) REST automation: {\"data\": {\"metrics\": [{\"name\": \"step_count\", …}]}}"

    func recognises(_ body: PayloadBody) -> Bool {
        guard case .object(let data)? = body.topLevelObject?["data"] else { return false }
        return data.contains { key, _ in key == "metrics" || key == "workouts" || Self.otherArrays.contains(key) }
    }

    func parse(_ body: PayloadBody) throws -> Payload { try Self.parse(body) }

    /// It does not block on a refusal: it sends its period again at its next run whatever the answer, so it gets the
    /// plain JSON answers (`AppConvention.plain`).
    let convention = AppConvention.plain

    /// A month of minutes is 43,200 points: read one at a time.
    let longArrays = [["data", "metrics", "*", "data"]]

    /// The arrays the app may send besides `metrics` and `workouts`.
    static let otherArrays: Set<String> = [
        "stateOfMind", "medications", "symptoms", "cycleTracking", "ecg", "heartRateNotifications",
    ]

    /// One `step_count` point, read and checked.
    struct Point {
        var startNs: Int64
        var offsetSeconds: Int
        var endNs: Int64?
        var microsteps: Int64
        var device: String
    }

    static func parse(_ body: PayloadBody) throws -> Payload {
        let root = try body.document.get().object(at: "")
        let data = try root.member("data", at: "data").object(at: "data")
        var payload = Payload(format: name)
        // Aggregated buckets start on local hours and days: after a zone change they start elsewhere and cover the old.
        payload.replacesOverlaps = true
        guard case .object(let members) = data else { return payload }
        var devices: [String: String] = [:]  // source as sent -> device, normalised once
        for (key, value) in members {
            if key == "metrics" {
                for (m, metric) in try value.array(at: "data.metrics").enumerated() {
                    // A metric that cannot be read (no name, units that are not steps) is left out, the others kept.
                    let kept = payload.items.count
                    do {
                        try read(metric, at: "data.metrics[\(m)]", of: body, devices: &devices, into: &payload)
                    } catch let e as PayloadError {
                        payload.items.removeSubrange(kept...)
                        payload.refuse(e)
                    }
                }
            } else if key == "workouts" {
                let n = try value.array(at: "data.workouts").count
                if n > 0 { payload.ignored.append(counted(n, "workout")) }
            } else if case .array(let entries) = value, !entries.isEmpty {
                payload.ignored.append("\(key) (\(counted(entries.count, "entry", "entries")))")
            }
        }
        if let old = root["workouts"] {  // the old layout: beside `data`
            let n = try old.array(at: "workouts").count
            if n > 0 { payload.ignored.append(counted(n, "workout")) }
        }
        return payload
    }

    /// Reads one metric: `step_count` into items, any other into `ignored`.
    static func read(
        _ metric: JSONTree, at path: String, of body: PayloadBody, devices: inout [String: String],
        into payload: inout Payload
    ) throws {
        _ = try metric.object(at: path)
        let metricName = try metric.member("name", at: path + ".name").text(at: path + ".name")
        guard metricName == Self.metric else {
            let n = body.count(of: metric["data"], at: path + ".data")
            payload.ignored.append("metric \(metricName) (\(counted(n, "point")))")
            return
        }
        if let units = metric["units"], units != .null {
            let text = try units.text(at: path + ".units")
            guard ["count", "steps", "step"].contains(text.lowercased()) else {
                throw PayloadError(
                    path: path + ".units", message: "\(quotedForMessage(text)) is not a unit of steps (expected count)")
            }
        }
        // Each point becomes an item at once (a month of minutes in one request is 43,200 of them, so nothing else
        // holds them); those without an end of their own get it once the interval is inferred from all of them.
        var open: [Int] = []
        var starts: [Int64] = []
        var offsets: [Int] = []
        var largest: Int64 = 0
        let data = try metric.member("data", at: path + ".data")
        payload.items.reserveCapacity(payload.items.count + body.count(of: data, at: path + ".data"))
        try body.forEachElement(of: data, at: path + ".data") { i, json in
            let p: Point
            do {
                p = try read(json, in: path, index: i, devices: &devices)
            } catch var e as PayloadError {
                // Left out: one bad point must not keep the others (sent again for days) out.
                e.device = json["source"]?.string.flatMap(HealthAutoExportSource.device) ?? name
                payload.refuse(e)
                return
            }
            if p.endNs == nil {
                open.append(payload.items.count)
                starts.append(p.startNs)
                offsets.append(p.offsetSeconds)
                largest = max(largest, p.microsteps)
            }
            payload.items.append(
                .replacing(
                    device: p.device, key: "\(Self.metric) \(p.startNs)",
                    reading: StepReading(
                        start: Instant(nanosecondsSinceEpoch: p.startNs),
                        end: Instant(nanosecondsSinceEpoch: p.endNs ?? p.startNs),
                        steps: wholeSteps(microsteps: p.microsteps)),
                    microsteps: p.microsteps))
        }
        let seconds = HealthAutoExportInterval.seconds(starts: starts, offsets: offsets, largestMicrosteps: largest)
        for index in open {
            guard case .replacing(let device, let key, var reading, let microsteps) = payload.items[index] else {
                continue
            }
            reading.end.nanosecondsSinceEpoch = reading.start.nanosecondsSinceEpoch + seconds * 1_000_000_000
            payload.items[index] = .replacing(device: device, key: key, reading: reading, microsteps: microsteps)
        }
    }

    /// Reads point `index` of the metric at `metricPath` (its path is spelt out only for an error). Its start is
    /// `date` (or, in the app's unaggregated layout, `startDate`, with `endDate` giving its end).
    static func read(
        _ point: JSONTree, in metricPath: String, index: Int, devices: inout [String: String]
    ) throws -> Point {
        func at(_ field: String) -> String { "\(metricPath).data[\(index)]\(field)" }
        _ = try point.object(at: at(""))
        let dateKey = (point["date"] ?? .null) == .null && point["startDate"] != nil ? "startDate" : "date"
        let (start, offset) = try date(point.member(dateKey, at: at("." + dateKey)), at: at("." + dateKey))
        var end: Int64?
        if let e = point["endDate"], e != .null {
            let ns = try date(e, at: at(".endDate")).ns
            guard ns >= start else { throw PayloadError(path: at(".endDate"), message: "ends before the point starts") }
            end = ns
        }
        let qty = try point.member("qty", at: at(".qty"))
        guard case .number(let text) = qty, let micro = DecimalText.microunits(text), micro < 1 << 52 else {
            throw PayloadError.expected("a count of steps (a number from 0 to 4.5 billion)", at: at(".qty"), found: qty)
        }
        var device = name
        if let s = point["source"], s != .null {
            let source = try s.text(at: at(".source"))
            if let known = devices[source] {
                device = known
            } else {
                device = HealthAutoExportSource.device(source) ?? name
                devices[source] = device
            }
        }
        return Point(startNs: start, offsetSeconds: offset, endNs: end, microsteps: micro, device: device)
    }

    static func date(_ value: JSONTree, at path: @autoclosure () -> String) throws -> (ns: Int64, offsetSeconds: Int) {
        let text = try value.text(at: path())
        guard let parsed = HealthAutoExportDate.parse(text) else {
            throw PayloadError(
                path: path(), message: "\(quotedForMessage(text)) is not a date (\(HealthAutoExportDate.expected))")
        }
        return parsed
    }
}
