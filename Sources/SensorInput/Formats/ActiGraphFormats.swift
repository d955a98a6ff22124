import Foundation
import StepDetection

/// The 10-line header ActiLife writes before both its RAW and its epoch CSV exports.
struct ActiGraphHeader: Codable, Sendable {
    var dateFormat = "M/d/yyyy"
    var rateHz: Double?
    var startClock: Int?
    var startDay: Int?
    var epochSeconds: Int?
    var mode: Int?
    var lines = 0

    var isComplete: Bool { lines >= 10 }

    static func sniff(_ s: Sniff) -> (isActiGraph: Bool, raw: Bool) {
        let first = s.first.lowercased()
        guard first.hasPrefix("------------ data"), first.contains("actigraph") else { return (false, false) }
        return (true, first.range(of: #" at \d+ hz"#, options: .regularExpression) != nil)
    }

    /// Takes one of the 10 header lines.
    mutating func take(_ raw: String) {
        lines += 1
        var line = Substring(raw)
        while line.last == "," || line.last == " " { line.removeLast() }
        let lower = line.lowercased()
        if lines == 1 {
            if let r = lower.range(of: "date format ") {
                dateFormat = String(lower[r.upperBound...].prefix { $0 != " " })
            }
            if let r = lower.range(of: #" at \d+ hz"#, options: .regularExpression) {
                rateHz = Double(lower[r].dropFirst(4).dropLast(3).trimmingPrefixSpaces())
            }
        } else if lower.hasPrefix("start time") {
            startClock = TimeParsing.parseClock(line.dropFirst("start time".count))
        } else if lower.hasPrefix("start date") {
            startDay = TimeParsing.parseDate(
                line.dropFirst("start date".count).trimmingPrefixSpaces(),
                format: Substring(dateFormat))
        } else if lower.hasPrefix("epoch period") {
            if let close = line.firstIndex(of: ")") {
                epochSeconds = TimeParsing.parseClock(line[line.index(after: close)...])
            }
        } else if let r = lower.range(of: "mode = ") {
            mode = Int(lower[r.upperBound...].prefix { $0.isNumber })
        }
    }

    /// Start of the recording (ns since the epoch; the device's local time, read as UTC).
    var startNs: Int64? {
        guard let day = startDay, let clock = startClock else { return nil }
        return (Int64(day) * 86_400 + Int64(clock)) * 1_000_000_000
    }
}

/// ActiGraph ActiLife RAW CSV: the 10-line header (rate from `at NN Hz`, start from Start Date/Time), an optional
/// column row, then `x,y,z` in g (optionally after a `Timestamp`).
struct ActiGraphRawFormat: LineParser {
    static let format = InputFormat(
        name: "actigraph-raw", kind: .acceleration,
        about: "ActiGraph ActiLife RAW CSV: 10-line header with 'at NN Hz', then X,Y,Z in g",
        sniff: { s in
            let a = ActiGraphHeader.sniff(s)
            return a.isActiGraph && a.raw ? 100 : 0
        },
        parser: ActiGraphRawFormat.self)

    var header = ActiGraphHeader()
    var firstAxis = 0
    var index: Int64 = 0
    var sawData = false

    init(path: String, options: ReadOptions) throws {}

    mutating func parse(
        _ line: UnsafeBufferPointer<UInt8>, number: Int, options: ReadOptions,
        _ emit: (InputItem) -> Void
    ) throws -> String? {
        if !header.isComplete {
            header.take(String(decoding: line, as: UTF8.self))
            return nil
        }
        let f = Fields.split(line, ",")
        if !sawData && !f.isEmpty && !Sniff.isNumber(f[0]) && !f.allSatisfy({ Sniff.isNumber($0) }) {
            let names = f.map { $0.trimmingPrefixSpaces().lowercased() }
            firstAxis = names.firstIndex { $0.hasSuffix("x") } ?? (names.first == "timestamp" ? 1 : 0)
            sawData = true
            return nil
        }
        sawData = true
        guard let rate = options.rateHz ?? header.rateHz, rate > 0 else {
            return "no sample rate in the header; pass --rate"
        }
        guard f.count >= firstAxis + 3 else { return "expected X,Y,Z, found \(f.count) fields" }
        guard let x = Fields.double(f[firstAxis]), let y = Fields.double(f[firstAxis + 1]),
            let z = Fields.double(f[firstAxis + 2])
        else { return "x, y or z is not a number" }
        let start = options.startNs ?? header.startNs ?? 0
        guard let t = Fields.tick(start, index, periodNs: 1e9 / rate) else { return "time is out of range" }
        index += 1
        let g = standardGravity
        emit(.sample(AccelerationSample(timeNs: t, x: x * g, y: y * g, z: z * g)))
        return nil
    }

    func describe(_ summary: inout ReadSummary) {
        summary.unit = .g
        summary.absoluteTime = header.startNs != nil
    }
}

/// ActiGraph ActiLife epoch (count) CSV with a steps column: the same header with an Epoch Period, an optional
/// `TimeStamp,axis1,...,steps` row; each row is one epoch and its `steps` are already counted (a delta).
struct ActiGraphEpochFormat: LineParser {
    static let format = InputFormat(
        name: "actigraph-epoch", kind: .steps,
        about: "ActiGraph ActiLife epoch CSV: 10-line header with Epoch Period, axis1..3, steps per epoch",
        sniff: { s in
            let a = ActiGraphHeader.sniff(s)
            return a.isActiGraph && !a.raw ? 100 : 0
        },
        parser: ActiGraphEpochFormat.self)

    var header = ActiGraphHeader()
    var stepsColumn: Int?
    var timeColumn: Int?
    var index: Int64 = 0
    var sawData = false

    init(path: String, options: ReadOptions) throws {}

    mutating func parse(
        _ line: UnsafeBufferPointer<UInt8>, number: Int, options: ReadOptions,
        _ emit: (InputItem) -> Void
    ) throws -> String? {
        if !header.isComplete {
            header.take(String(decoding: line, as: UTF8.self))
            return nil
        }
        let f = Fields.split(line, ",")
        if !sawData && !f.isEmpty && !Sniff.isNumber(f[0])
            && TimeParsing.parseDateTime(f[0].trimmingPrefixSpaces()) == nil
        {
            let names = f.map { $0.trimmingPrefixSpaces().lowercased() }
            stepsColumn = names.firstIndex(of: "steps")
            timeColumn = names.firstIndex { $0 == "timestamp" || $0 == "date time" || $0 == "time" }
            sawData = true
            if stepsColumn == nil { return "no steps column in the column row" }
            return nil
        }
        sawData = true
        let column: Int
        if let c = stepsColumn {
            column = c
        } else {
            // Without a column row the Mode says: bit 0 = steps, bit 2 = three axes before it.
            let mode = header.mode ?? 13
            guard mode & 1 == 1 else { return "Mode \(mode) has no steps column" }
            column = mode & 4 == 4 ? 3 : 1
        }
        guard let epoch = header.epochSeconds, epoch > 0 else { return "no Epoch Period in the header" }
        guard f.count > column, let steps = Fields.int(f[column]), steps >= 0, steps < 1_000_000 else {
            return "steps (column \(column + 1)) is missing or not a count"
        }
        guard var start = Fields.tick(options.startNs ?? header.startNs ?? 0, index, periodNs: Double(epoch) * 1e9)
        else {
            return "time is out of range"
        }
        if let tc = timeColumn, f.count > tc, let t = TimeParsing.parseDateTime(f[tc].trimmingPrefixSpaces())?.ns {
            start = t
        }
        index += 1
        guard let end = Fields.tick(start, 1, periodNs: Double(epoch) * 1e9) else { return "time is out of range" }
        emit(.reading(StepReading(startNs: start, endNs: end, steps: Int(steps))))
        return nil
    }
}
