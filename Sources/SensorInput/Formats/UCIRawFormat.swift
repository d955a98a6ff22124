import StepDetection
import WallTime

/// UCI HAR/HAPT `RawData/acc_expNN_userNN.txt`: three space-separated values in g per line, no time; the rate
/// (50 Hz for that data set) must be given with `--rate`.
struct UCIRawFormat: LineParser {
    static let format = InputFormat(
        name: "uci-raw", kind: .acceleration,
        about: "UCI HAR/HAPT raw acc_expNN_userNN.txt: x y z in g, no time (needs --rate, 50 for UCI)",
        sniff: { s in
            let f = s.first.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard f.count == 3, !s.first.contains(","), f.allSatisfy({ Sniff.isNumber($0) }) else { return 0 }
            return 70
        },
        parser: UCIRawFormat.self)

    var index: Int64 = 0
    let periodNs: Double
    let startNs: Int64

    init(path: String, options: ReadOptions) throws {
        guard let rate = options.rateHz, rate > 0, rate.isFinite else {
            throw InputError(
                file: path,
                message:
                    "UCI HAR/HAPT raw data has no time column: pass its rate with --rate, or source.rate in the configuration (50 for UCI HAR/HAPT)"
            )
        }
        periodNs = 1e9 / rate
        startNs = options.start?.nanosecondsSinceEpoch ?? 0
    }

    mutating func parse(
        _ line: UnsafeBufferPointer<UInt8>, number: Int, options: ReadOptions,
        _ emit: (InputItem) -> Void
    ) throws -> String? {
        let f = String(decoding: line, as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard f.count == 3 else { return "expected 3 values (x y z), found \(f.count)" }
        guard let x = Fields.double(f[0]), let y = Fields.double(f[1]), let z = Fields.double(f[2]) else {
            return "x, y or z is not a number"
        }
        guard let t = Fields.tick(startNs, index, periodNs: periodNs) else { return "time is out of range" }
        index += 1
        let g = standardGravity
        emit(.sample(AccelerationSample(time: Instant(nanosecondsSinceEpoch: t), x: x * g, y: y * g, z: z * g)))
        return nil
    }

    func describe(_ summary: inout ReadSummary) { summary.unit = .g }
}
