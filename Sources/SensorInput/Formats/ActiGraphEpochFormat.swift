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
