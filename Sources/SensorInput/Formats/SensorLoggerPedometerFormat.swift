/// Sensor Logger `Pedometer.csv`: `time,seconds_elapsed,steps`, time in epoch ns, steps cumulative since the
/// recording started (a drop is a reset: the new value counts from 0). The columns are found by name in the header,
/// as the other Sensor Logger files' are: newer app versions may add columns, in any position, and those are ignored.
/// A file without a header (`--format`) is read as `time,seconds_elapsed,steps`.
struct SensorLoggerPedometerFormat: FreshLineParser {
    static let format = InputFormat(
        name: "sensor-logger-pedometer", kind: .steps,
        about: "Sensor Logger Pedometer.csv: time (epoch ns), seconds_elapsed, steps (cumulative); columns by name",
        sniff: { s in
            let h = HeaderCSVFormats.header(s)
            if h.count == 3 && h[0] == "time" && h[2] == "steps" { return 95 }
            // More columns: Sensor Logger's own two by name, and no axes (an acceleration file is `sensor-logger`).
            let named = ["time", "seconds_elapsed", "steps"].allSatisfy(h.contains)
            return named && !h.contains("x") && !h.contains("z") ? 95 : 0
        },
        parser: SensorLoggerPedometerFormat.self)

    /// Where `time`, `seconds_elapsed` (nil: not in the header) and `steps` stand, and how many fields a row has.
    struct Columns: Codable {
        var time: Int
        var elapsed: Int?
        var steps: Int
        var count: Int
        static let plain = Columns(time: 0, elapsed: 1, steps: 2, count: 3)
    }

    var sawHeader = false
    /// nil: the plain three (no header, or follow-mode state saved before the columns were found by name).
    var columns: Columns?
    var lastTotal: Int64 = 0
    var lastNs: Int64?

    mutating func parse(
        _ line: UnsafeBufferPointer<UInt8>, number: Int, options: ReadOptions,
        _ emit: (InputItem) -> Void
    ) throws -> String? {
        let f = Fields.split(line, ",")
        if !sawHeader {
            sawHeader = true
            if f.first.map({ !Sniff.isNumber($0) }) ?? false {
                let names = f.map { GenericCSVReader.normalize(String($0)).name }
                guard let time = names.firstIndex(of: "time"), let steps = names.firstIndex(of: "steps") else {
                    throw InputError(
                        file: "", line: number,
                        message: "no time and steps columns in the header (\(names.count) columns)")
                }
                columns = Columns(
                    time: time, elapsed: names.firstIndex(of: "seconds_elapsed"), steps: steps, count: names.count)
                return nil
            }
        }
        let c = columns ?? .plain
        guard f.count == c.count else {
            return c.count == 3
                ? "expected 3 fields (time,seconds_elapsed,steps), found \(f.count)"
                : "expected \(c.count) fields (as the header), found \(f.count)"
        }
        guard let raw = Fields.double(f[c.time]), let (t, _) = Fields.nsFromMagnitude(raw) else {
            return "time is not a number"
        }
        guard let total = Fields.int(f[c.steps]), total >= 0, total < StepReading.countLimit else {
            return "steps is not a step count (a whole number from 0 to 2^40)"
        }
        let elapsed = c.elapsed.flatMap { Fields.double(f[$0]) } ?? 0
        let start = lastNs ?? (t &- Int64((elapsed.isFinite ? max(0, min(elapsed, 1e9)) : 0) * 1e9))
        let delta = StepReading.stepsBetween(total: lastTotal, and: total)
        lastTotal = total
        lastNs = t
        emit(.reading(StepReading(startNs: min(start, t), endNs: t, steps: Int(delta))))
        return nil
    }
}
