import StepDetection
import WallTime

/// A parsed row (time in the file's unit, values in the file's unit) as a sample in ns and m/s², checked for
/// values no sensor gives; the time order is checked by whoever delivers samples in order.
struct SampleConversion {
    let timeNs: Double
    let unit: Double
    let offsetNs: Int64

    init(scale: GenericCSVReader.Scale, startNs: Int64?) {
        timeNs = scale.timeNs
        unit = scale.unit.metersPerSecondSquared
        offsetNs = scale.absolute ? 0 : startNs ?? 0
    }

    /// The sample, or nil when its time is out of range or its values are not plausible (`problem` says why).
    @inline(__always)
    func sample(_ row: (Double, Double, Double, Double)) -> AccelerationSample? {
        let scaled = row.0 * timeNs
        guard scaled > -9.2e18 && scaled < 9.2e18 else { return nil }
        let s = AccelerationSample(
            time: Instant(nanosecondsSinceEpoch: Self.roundedHalfAway(scaled) &+ offsetNs), x: row.1 * unit,
            y: row.2 * unit, z: row.3 * unit)
        let m = s.x * s.x + s.y * s.y + s.z * s.z
        return m <= SampleCheck.maxMagnitude * SampleCheck.maxMagnitude ? s : nil
    }

    /// `Int64(x.rounded())` (half away from zero) for |x| < 9.2e18 without a call into libm. Exact: below 2^52
    /// `x - trunc(x)` is representable, and from 2^52 on every Double is an integer.
    @inline(__always)
    static func roundedHalfAway(_ x: Double) -> Int64 {
        let truncated = Int64(x)
        let rest = x - Double(truncated)
        return rest >= 0.5 ? truncated &+ 1 : rest <= -0.5 ? truncated &- 1 : truncated
    }

    /// Why `sample(row)` is nil.
    @inline(never)
    func problem(_ row: (Double, Double, Double, Double)) -> String {
        // `nan` parses as a number; it is none, and no range would hold it.
        guard !row.0.isNaN else { return "time is not a number: NaN" }
        let scaled = row.0 * timeNs
        guard scaled > -9.2e18 && scaled < 9.2e18 else { return "time is out of range" }
        let s = AccelerationSample(
            time: Instant(nanosecondsSinceEpoch: Self.roundedHalfAway(scaled)), x: row.1 * unit, y: row.2 * unit,
            z: row.3 * unit)
        return SampleCheck.valueProblem(s) ?? SampleCheck.overLimit
    }
}
