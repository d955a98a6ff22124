/// Sensor Logger `Pedometer.csv`: `time,seconds_elapsed,steps`, time in epoch ns, steps cumulative since the
/// recording started (a drop is a reset: the new value counts from 0).
struct SensorLoggerPedometerFormat: LineParser {
    static let format = InputFormat(
        name: "sensor-logger-pedometer", kind: .steps,
        about: "Sensor Logger Pedometer.csv: time (epoch ns), seconds_elapsed, steps (cumulative)",
        sniff: { s in
            let h = HeaderCSVFormats.header(s)
            return h.count == 3 && h[0] == "time" && h[2] == "steps" ? 95 : 0
        },
        parser: SensorLoggerPedometerFormat.self)

    var sawHeader = false
    var lastTotal: Int64 = 0
    var lastNs: Int64?

    init(path: String, options: ReadOptions) throws {}

    mutating func parse(
        _ line: UnsafeBufferPointer<UInt8>, number: Int, options: ReadOptions,
        _ emit: (InputItem) -> Void
    ) throws -> String? {
        let f = Fields.split(line, ",")
        if !sawHeader {
            sawHeader = true
            if f.first.map({ !Sniff.isNumber($0) }) ?? false { return nil }
        }
        guard f.count == 3 else { return "expected 3 fields (time,seconds_elapsed,steps), found \(f.count)" }
        guard let raw = Fields.double(f[0]), let (t, _) = Fields.nsFromMagnitude(raw) else {
            return "time is not a number"
        }
        // Bounded like the step log's counters: a garbled huge total would overflow the sums of the readings.
        guard let total = Fields.int(f[2]), total >= 0, total < 1 << 40 else {
            return "steps is not a step count (a whole number from 0 to 2^40)"
        }
        let elapsed = Fields.double(f[1]) ?? 0
        let start = lastNs ?? (t &- Int64((elapsed.isFinite ? max(0, min(elapsed, 1e9)) : 0) * 1e9))
        let delta = total >= lastTotal ? total - lastTotal : total
        lastTotal = total
        lastNs = t
        emit(.reading(StepReading(startNs: min(start, t), endNs: t, steps: Int(delta))))
        return nil
    }
}
