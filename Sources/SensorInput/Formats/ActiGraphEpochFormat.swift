/// ActiGraph ActiLife epoch (count) CSV with a steps column: the same header with an Epoch Period, an optional
/// `TimeStamp,axis1,...,steps` row; each row is one epoch and its `steps` are already counted (a delta). Its times
/// (the header's start, a timestamp column) are the device's local clock, read in `ReadOptions.timeZone`.
struct ActiGraphEpochFormat: ActiGraphLineParser {
    static let format = InputFormat(
        name: "actigraph-epoch", kind: .steps,
        about: "ActiGraph ActiLife epoch CSV: 10-line header with Epoch Period, axis1..3, steps per epoch",
        sniff: { ActiGraphHeader.sniff($0, raw: false) },
        parser: ActiGraphEpochFormat.self)

    var header = ActiGraphHeader()
    var stepsColumn: Int?
    var timeColumn: Int?
    /// Without a column row: the first data row's leading date and time fields.
    var timeFields: Int?
    var index: Int64 = 0
    var sawData = false
    var clock = LocalClock()

    mutating func columns(_ names: [String]) -> String? {
        stepsColumn = names.firstIndex(of: "steps")
        timeColumn = names.firstIndex { $0 == "timestamp" || $0 == "date time" || $0 == "time" }
        return stepsColumn == nil ? "no steps column in the column row" : nil
    }

    mutating func row(_ f: [Substring], options: ReadOptions, _ emit: (InputItem) -> Void) -> String? {
        let column: Int
        if let c = stepsColumn {
            column = c
        } else {
            // Without a column row the Mode says: bit 0 = steps, bit 2 = three axes before it.
            let mode = header.mode ?? 13
            guard mode & 1 == 1 else { return "Mode \(mode) has no steps column" }
            if timeFields == nil {
                timeFields = ActiGraphHeader.timeFields(f)
                if timeFields != 0 { timeColumn = 0 }
            }
            column = (mode & 4 == 4 ? 3 : 1) + (timeFields ?? 0)
        }
        guard let epoch = header.epochSeconds, epoch > 0 else { return "no Epoch Period in the header" }
        guard f.count > column, let steps = Fields.int(f[column]), steps >= 0, steps < 1_000_000 else {
            return "steps (column \(column + 1)) is missing or not a count"
        }
        guard var start = Fields.tick(header.start(options, clock: &clock), index, periodNs: Double(epoch) * 1e9)
        else {
            return "time is out of range"
        }
        if let tc = timeColumn, f.count > tc, let t = TimeParsing.parseDateTime(f[tc].trimmingPrefixSpaces()) {
            start = clock.instantNs(t, options: options)
        }
        index += 1
        guard let end = Fields.tick(start, 1, periodNs: Double(epoch) * 1e9) else { return "time is out of range" }
        emit(.reading(StepReading(startNs: start, endNs: end, steps: Int(steps))))
        return nil
    }

    func describe(_ summary: inout ReadSummary) { summary.notes += clock.notes }
}
