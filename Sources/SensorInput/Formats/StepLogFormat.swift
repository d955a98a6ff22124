import Foundation

/// Our own JSON-lines step log (see Sources/SensorInput/README.md): one object per line with `ts` (RFC 3339, or a
/// number in s/ms/µs/ns since the epoch) and `steps` (delta) and/or `total` (cumulative counter), optionally
/// `boot_id`, `src`, `seq`. Per stream (`src`, `boot_id`): a `total` below the previous one is a counter reset (the
/// new total counts from 0); the first `total` of a stream without `steps` is a baseline (0 steps); a line with a
/// `seq` at a time its device (`src`) already wrote a line at is a duplicate and skipped (`duplicate(seq:_:_:)`); a
/// `total` rising more than 5 steps a second since the stream's previous
/// line is a counter glitch, skipped (the counter is read on from the total before it). Never a negative count.
package struct StepLogFormat: FreshLineParser {
    static let format = InputFormat(
        name: "steplog", kind: .steps,
        about:
            "steptweet JSON-lines step log: {\"ts\": RFC 3339, \"steps\": delta and/or \"total\": counter, \"boot_id\", \"src\", \"seq\"}",
        sniff: { s in
            let f = s.first.trimmingCharacters(in: " \t")
            guard f.hasPrefix("{"), f.contains("\"ts\""), f.contains("\"steps\"") || f.contains("\"total\"") else {
                return 0
            }
            return 90
        },
        parser: StepLogFormat.self)

    struct Stream: Codable, Sendable {
        var lastTotal: Int64?
        var lastNs: Int64?
        var lastSeq: Int64?
    }
    var streams: [String: Stream] = [:]
    /// The times of the lines with a `seq` read lately, per device (`src`): nil in a state saved before they were kept.
    var seen: [String: SeenTimes]?

    /// The members of a line holding one flat JSON object, the last of repeated keys kept; nil when the line is not
    /// one JSON object or a value is an object or an array.
    package static func flatObject(_ line: UnsafeBufferPointer<UInt8>) -> [String: JSONTree]? {
        guard case .object(let members)? = try? JSONTree.parse(Array(line)) else { return nil }
        var object: [String: JSONTree] = [:]
        for (key, value) in members {
            switch value {
            case .object, .array: return nil
            default: object[key] = value
            }
        }
        return object
    }

    /// Why `line` is not one flat JSON object, for its error: where its JSON stops making sense, or the first key
    /// whose value is an object or an array.
    static func whyNotFlat(_ line: UnsafeBufferPointer<UInt8>) -> String {
        let tree: JSONTree
        do {
            tree = try JSONTree.parse(Array(line))
        } catch let e as JSONTree.ParseError {
            return "not a JSON object on one line: \(e.reason) at column \(e.offset + 1)"
        } catch {
            return "not a JSON object on one line"
        }
        guard case .object(let members) = tree else { return "not a JSON object on one line: \(tree.shortDescription)" }
        for (key, value) in members {
            switch value {
            case .object, .array:
                return "\(quotedForMessage(key)) holds \(value.shortDescription): a line's values are flat"
            default: continue
            }
        }
        return "not a JSON object on one line"
    }

    static func time(_ v: JSONTree?) -> Int64? {
        switch v {
        case .string(let s)?:
            if let t = TimeParsing.parseDateTime(Substring(s)), t.hadZone { return t.ns }
            return Double(s).flatMap { Fields.nsFromMagnitude($0)?.ns }
        case .number(let s)?:
            return Fields.double(Substring(s)).flatMap { Fields.nsFromMagnitude($0)?.ns }
        default:
            return nil
        }
    }

    static func count(_ v: JSONTree?) -> Int64?? {
        guard let v, v != .null else { return .some(nil) }
        guard let n = v.int64, n >= 0, n < StepReading.countLimit else { return nil }
        return .some(n)
    }

    mutating func parse(
        _ line: UnsafeBufferPointer<UInt8>, number: Int, options: ReadOptions,
        _ emit: (InputItem) -> Void
    ) throws -> String? {
        let fields: Line
        switch Line.decode(line) {
        case .success(let decoded): fields = decoded
        case .failure(let malformed): return malformed.reason
        }
        let key = (fields.source ?? "") + "\u{1F}" + (fields.bootID ?? "")
        var stream = streams[key] ?? Stream()
        if let seq = fields.seq {
            if let duplicate = duplicate(seq: seq, fields, stream) { return duplicate }
            stream.lastSeq = max(stream.lastSeq ?? seq, seq)
        }
        var delta: Int64 = 0
        if let steps = fields.steps {
            delta = steps
        } else if let total = fields.total {
            if let last = stream.lastTotal {
                let ns = fields.ts - (stream.lastNs ?? fields.ts)
                guard let steps = StepReading.stepsBetween(total: last, and: total, over: .nanoseconds(ns)) else {
                    // Left out with the stream's state as it was: the next sound total is counted from the last one.
                    streams[key] = stream
                    return "total \(total) is \(StepReading.stepsBetween(total: last, and: total)) steps after the "
                        + "stream's previous line, \(max(0, ns) / 1_000_000_000) s before "
                        + "(over \(StepReading.glitchStepsPerSecond) steps/s): a counter glitch, not counted"
                }
                delta = steps
            }
        }
        if let total = fields.total { stream.lastTotal = total }
        let start = min(stream.lastNs ?? fields.ts, fields.ts)
        stream.lastNs = max(fields.ts, stream.lastNs ?? fields.ts)
        streams[key] = stream
        emit(.reading(StepReading(startNs: start, endNs: fields.ts, steps: Int(delta))))
        return nil
    }
}

extension StepLogFormat {
    /// Why a line with `seq` is a duplicate, nil when it counts (and its time is then kept). As the receiver keys a
    /// pushed line (`seq at TS`), a line is its device's (`src`) line at its `ts`, whatever its stream and `seq`: a
    /// line written again (by a writer reinstalled with a new `boot_id`, too) is a duplicate, and a writer reinstalled
    /// on the same boot, whose `seq` starts again, loses nothing, as its lines have new times. Times older than those
    /// kept (`SeenTimes.horizonNs`) fall back on the stream's `seq`: not above its last, a duplicate.
    mutating func duplicate(seq: Int64, _ fields: Line, _ stream: Stream) -> String? {
        let device = fields.source ?? ""
        // Taken out while it changes, so that its times are not copied. A device first seen here, or read before the
        // times were kept, has its lines up to its newest read unchecked.
        var times = seen?.removeValue(forKey: device) ?? SeenTimes(forgottenThrough: newestRead(device))
        defer {
            if seen == nil { seen = [:] }
            seen?[device] = times
        }
        switch times.check(fields.ts) {
        case .seen:
            return "duplicate seq \(seq): \(device.isEmpty ? "the log" : device) already has a line at "
                + StepLogLine.rfc3339(fields.ts)
        case .older:
            if let last = stream.lastSeq, seq <= last { return "duplicate seq \(seq) (already read \(last))" }
        case .new:
            break
        }
        times.insert(fields.ts)
        return nil
    }

    /// The newest time read of `device`'s streams, nil when none was read.
    func newestRead(_ device: String) -> Int64? {
        streams.filter { $0.key.hasPrefix(device + "\u{1F}") }.compactMap(\.value.lastNs).max()
    }

    /// The times (ns) of a device's lines with a `seq` read in the last `horizonNs` before its newest, at least
    /// (at most `capacity` of them once more than twice that were kept), sorted: what tells a line written again from a
    /// new one.
    struct SeenTimes: Codable, Sendable {
        static let horizonNs: Int64 = 86_400_000_000_000
        static let capacity = 2048
        var times: [Int64] = []
        /// The newest time no longer kept: a line at or before it cannot be checked.
        var forgottenThrough: Int64?

        enum Check { case seen, new, older }

        func check(_ ts: Int64) -> Check {
            if let forgottenThrough, ts <= forgottenThrough { return .older }
            let i = index(ts)
            return i < times.count && times[i] == ts ? .seen : .new
        }

        /// The first index whose time is not below `ts`.
        func index(_ ts: Int64) -> Int {
            var (low, high) = (0, times.count)
            while low < high {
                let mid = (low + high) / 2
                if times[mid] < ts { low = mid + 1 } else { high = mid }
            }
            return low
        }

        /// Keeps `ts`; past twice the capacity, forgets the times before the horizon and beyond the capacity (a
        /// line's cost stays constant: times come in order, and are forgotten in batches).
        mutating func insert(_ ts: Int64) {
            times.insert(ts, at: index(ts))
            guard times.count > 2 * Self.capacity, let newest = times.last else { return }
            let (from, overflow) = newest.subtractingReportingOverflow(Self.horizonNs)
            let old = max(overflow ? 0 : index(from), times.count - Self.capacity)
            guard old > 0 else { return }
            forgottenThrough = max(forgottenThrough ?? times[old - 1], times[old - 1])
            times.removeFirst(old)
        }
    }

    /// Why a line is not a step-log line.
    package struct Malformed: Error {
        package var reason: String
    }

    /// One line's fields, checked: what the file reader and the pushed `steplog` payload share.
    package struct Line {
        package var ts: Int64
        /// At least one of `steps` (a delta) and `total` (the raw counter) is set.
        package var steps: Int64?
        package var total: Int64?
        package var source: String?
        package var bootID: String?
        /// nil also when not an integer (such a `seq` is ignored).
        package var seq: Int64?

        package static func decode(_ line: UnsafeBufferPointer<UInt8>) -> Result<Line, Malformed> {
            guard let object = StepLogFormat.flatObject(line) else {
                return .failure(Malformed(reason: StepLogFormat.whyNotFlat(line)))
            }
            guard let ts = StepLogFormat.time(object["ts"]) else {
                return .failure(Malformed(reason: "\"ts\" is missing or not an RFC 3339 time with a zone"))
            }
            guard let steps = StepLogFormat.count(object["steps"]) else {
                return .failure(Malformed(reason: "\"steps\" is not a non-negative integer"))
            }
            guard let total = StepLogFormat.count(object["total"]) else {
                return .failure(Malformed(reason: "\"total\" is not a non-negative integer"))
            }
            guard steps != nil || total != nil else {
                return .failure(Malformed(reason: "neither \"steps\" nor \"total\""))
            }
            return .success(
                Line(
                    ts: ts, steps: steps, total: total, source: object["src"]?.text, bootID: object["boot_id"]?.text,
                    seq: object["seq"]?.int64))
        }
    }
}

/// Writes lines of the step log (`steplog`) that `StepLogFormat` reads back, e.g. from a hardware counter.
public enum StepLogLine {
    /// One line (with its `\n`): `ts` as RFC 3339 UTC with milliseconds, then the fields that are given.
    public static func encode(
        timeNs: Int64, steps: Int? = nil, total: Int64? = nil, bootID: String? = nil,
        seq: Int64? = nil, source: String? = nil
    ) -> String {
        var fields = ["\"v\":1", "\"ts\":\"\(rfc3339(timeNs))\""]
        if let steps { fields.append("\"steps\":\(max(0, steps))") }
        if let total { fields.append("\"total\":\(total)") }
        if let bootID { fields.append("\"boot_id\":\(quoted(bootID))") }
        if let seq { fields.append("\"seq\":\(seq)") }
        if let source { fields.append("\"src\":\(quoted(source))") }
        return "{" + fields.joined(separator: ",") + "}\n"
    }

    static func quoted(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if u.value < 0x20 { out += String(format: "\\u%04x", u.value) } else { out.unicodeScalars.append(u) }
            }
        }
        return out + "\""
    }

    /// `YYYY-MM-DDThh:mm:ss.sssZ`.
    public static func rfc3339(_ ns: Int64) -> String {
        let ms = TimeParsing.floorDiv(ns, 1_000_000)
        let seconds = TimeParsing.floorDiv(ms, 1000)
        let milli = Int(ms - seconds * 1000)
        var days = Int(TimeParsing.floorDiv(seconds, 86_400))
        let secOfDay = Int(seconds - Int64(days) * 86_400)
        // civil_from_days (H. Hinnant)
        days += 719_468
        let era = (days >= 0 ? days : days - 146_096) / 146_097
        let doe = days - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        let y = yoe + era * 400 + (m <= 2 ? 1 : 0)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", y, m, d, secOfDay / 3600, secOfDay / 60 % 60,
            secOfDay % 60, milli)
    }
}
