import StepDetection
import WallTime

/// ActiGraph ActiLife RAW CSV: the 10-line header (rate from `at NN Hz`, start from Start Date/Time), an optional
/// column row, then `x,y,z` in g (optionally after a `Timestamp`). The start is the device's local clock, read in
/// `ReadOptions.timeZone` (`--time-zone`, `text.time_zone`, else the machine's zone).
struct ActiGraphRawFormat: ActiGraphLineParser {
    static let format = InputFormat(
        name: "actigraph-raw", kind: .acceleration,
        about: "ActiGraph ActiLife RAW CSV: 10-line header with 'at NN Hz', then X,Y,Z in g",
        sniff: { ActiGraphHeader.sniff($0, raw: true) },
        parser: ActiGraphRawFormat.self)

    var header = ActiGraphHeader()
    var firstAxis = 0
    /// Set by the column row, else by the first data row (its leading date and time fields).
    var timeFields: Int?
    var index: Int64 = 0
    var sawData = false
    /// The start as an instant, found at the first row.
    var startNs: Int64?
    var clock = LocalClock()

    mutating func columns(_ names: [String]) -> String? {
        firstAxis = names.firstIndex { $0.hasSuffix("x") } ?? (names.first == "timestamp" ? 1 : 0)
        timeFields = firstAxis
        return nil
    }

    mutating func row(_ f: [Substring], options: ReadOptions, _ emit: (InputItem) -> Void) -> String? {
        if timeFields == nil {
            timeFields = ActiGraphHeader.timeFields(f)
            firstAxis = timeFields ?? 0
        }
        guard let rate = options.rateHz ?? header.rateHz, rate > 0 else {
            return "no sample rate in the header; pass --rate"
        }
        guard f.count >= firstAxis + 3 else { return "expected X,Y,Z, found \(f.count) fields" }
        guard let x = Fields.double(f[firstAxis]), let y = Fields.double(f[firstAxis + 1]),
            let z = Fields.double(f[firstAxis + 2])
        else { return "x, y or z is not a number" }
        let start = startNs ?? header.start(options, clock: &clock)
        startNs = start
        guard let t = Fields.tick(start, index, periodNs: 1e9 / rate) else {
            return "time is out of range"
        }
        index += 1
        let g = standardGravity
        emit(.sample(AccelerationSample(time: Instant(nanosecondsSinceEpoch: t), x: x * g, y: y * g, z: z * g)))
        return nil
    }

    func describe(_ summary: inout ReadSummary) {
        summary.unit = .g
        summary.absoluteTime = header.startNs != nil
    }
}
