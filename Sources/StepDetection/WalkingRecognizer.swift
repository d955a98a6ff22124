/// Decides, continuously, whether the motion is walking. It resamples the detector's low-passed magnitude at a fixed
/// 12.5 Hz (so 12.5-500 Hz inputs give the same windows) and, with three axes, the acceleration vector averaged over
/// each tick; keeps the last 10.24 s in rings, and every 0.96 s computes the window's `WindowFeatures`. Fixed memory,
/// no allocation per sample; `Codable` with the detector.
public struct WalkingRecognizer: Sendable, Codable {
    public static let tickHz = 12.5
    static let tickNs: Int64 = 80_000_000
    /// Ticks per window (10.24 s) and between windows (0.96 s).
    static let windowTicks = 128
    static let hopTicks = 12
    /// Shortest tail window scored when the stream ends or breaks (5.12 s).
    static let minimumTailTicks = 64
    /// Low-pass coefficient of the gravity estimate per tick: two stages at 0.5 Hz, 1 − e^(−0.08 s · 2π · 0.5 Hz) as
    /// `Double.exponential` gives it. Literals, not that expression: a computed static is a lazy global that every
    /// tick would check (the unit tests check that both agree).
    static let gravityAlpha = 0x1.c721bd30921d8p-3
    /// The moving part's band per tick (0.6-3.5 Hz): a one-pole high-pass at 0.6 Hz, then a one-pole low-pass at 3.5 Hz
    /// (1 − e^(−0.08 s · 2π · f), literals as `gravityAlpha`).
    static let motionSlowAlpha = 0x1.0a9c0b4034900p-2
    static let motionBandAlpha = 0x1.a7d9c305157ffp-1

    /// Rings of the last `windowTicks` ticks: |a|; the unit gravity and acceleration vectors (x, y, z interleaved);
    /// whether the tick had three axes. `filled` are valid, the newest at `head - 1`.
    var magnitudes: [Double]
    var gravity: [Double]
    var direction: [Double]
    var axisTicks: [Bool]
    /// Per tick, the mean distance of the wide-filtered |a| from the low-passed one over the tick (`tickArea`).
    var excesses: [Double]
    var head = 0
    var filled = 0
    /// Ticks since the last scored window.
    var sinceWindow = 0
    /// Time of the next tick, and the previous sample (time, low-passed value) to interpolate from.
    var nextTickNs: Int64 = .min
    var previousNs: Int64 = .min
    var previousValue = 0.0
    /// Three-axis samples of the current tick, summed; the last tick's mean vector; the gravity filter's two stages
    /// (x, y, z each).
    var sumX = 0.0, sumY = 0.0, sumZ = 0.0
    var axisSamples = 0
    var last = [0.0, 0.0, 0.0]
    var hasLast = false
    var gravityFilter = [Double](repeating: 0, count: 6)
    /// The moving part's band-pass (x, y, z of its slow stage, then of its band), and per tick its component along
    /// gravity and the vector across it (x, y, z interleaved; rings beside `gravity`).
    var motionFilter = [Double](repeating: 0, count: 6)
    var along: [Double]
    var across: [Double]
    var rounding = SensorRounding()  // the sensor's rounding step, read from the ticks' axis sums
    /// The tick's excess so far integrated over time (m/s²·ns: each sample's holds until the next; `logImpulse`) and
    /// the latest sample's. The first keeps its old key, under which a state saved before h47rate holds the tick's
    /// largest excess (its tick adds a nanosecond of it); such a state's `lastExcess` is 0 (one sample's span).
    var tickArea = 0.0, lastExcess = 0.0
    /// |a| through a two-pole low-pass at twice the detector's cut-off (6 Hz), alike at every rate from 12.5 Hz up.
    var wide1 = 0.0, wide2 = 0.0
    /// The times of the detector's latest candidate steps, a ring whose next entry goes to `peakHead` (`.min`: none).
    var peakTimes: [Int64]
    var peakHead = 0
    /// The window just scored, taken by the detector within the same push (never saved).
    var window: (startNs: Int64, endNs: Int64, features: WindowFeatures)?

    enum CodingKeys: String, CodingKey {
        case magnitudes, gravity, direction, axisTicks, excesses, head, filled, sinceWindow, nextTickNs, previousNs
        case previousValue, sumX, sumY, sumZ, axisSamples, last, hasLast, gravityFilter, wide1, wide2
        case tickArea = "tickExcess"
        case lastExcess
        case peakTimes, peakHead, motionFilter, along, across, rounding
    }
    /// Candidate steps remembered for a window's rhythm features: more than a window can hold at the shortest
    /// candidate interval the 3 Hz low-pass lets through.
    static let peakCapacity = 64

    public init() {
        magnitudes = [Double](repeating: 0, count: Self.windowTicks)
        gravity = [Double](repeating: 0, count: 3 * Self.windowTicks)
        direction = [Double](repeating: 0, count: 3 * Self.windowTicks)
        axisTicks = [Bool](repeating: false, count: Self.windowTicks)
        excesses = [Double](repeating: 0, count: Self.windowTicks)
        peakTimes = [Int64](repeating: .min, count: Self.peakCapacity)
        along = [Double](repeating: 0, count: Self.windowTicks)
        across = [Double](repeating: 0, count: 3 * Self.windowTicks)
    }

    /// Decodes a saved state, refusing one whose rings do not have this version's sizes.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        magnitudes = try c.decode([Double].self, forKey: .magnitudes)
        gravity = try c.decode([Double].self, forKey: .gravity)
        direction = try c.decode([Double].self, forKey: .direction)
        axisTicks = try c.decode([Bool].self, forKey: .axisTicks)
        excesses = try c.decode([Double].self, forKey: .excesses)
        tickArea = try c.decode(Double.self, forKey: .tickArea)
        lastExcess = try c.decodeIfPresent(Double.self, forKey: .lastExcess) ?? 0
        wide1 = try c.decode(Double.self, forKey: .wide1)
        wide2 = try c.decode(Double.self, forKey: .wide2)
        head = try c.decode(Int.self, forKey: .head)
        filled = try c.decode(Int.self, forKey: .filled)
        sinceWindow = try c.decode(Int.self, forKey: .sinceWindow)
        nextTickNs = try c.decode(Int64.self, forKey: .nextTickNs)
        previousNs = try c.decode(Int64.self, forKey: .previousNs)
        previousValue = try c.decode(Double.self, forKey: .previousValue)
        sumX = try c.decode(Double.self, forKey: .sumX)
        sumY = try c.decode(Double.self, forKey: .sumY)
        sumZ = try c.decode(Double.self, forKey: .sumZ)
        axisSamples = try c.decode(Int.self, forKey: .axisSamples)
        last = try c.decode([Double].self, forKey: .last)
        hasLast = try c.decode(Bool.self, forKey: .hasLast)
        gravityFilter = try c.decode([Double].self, forKey: .gravityFilter)
        // A state saved before the rhythm features has no peaks: its next windows see none until new ones come.
        peakTimes =
            try c.decodeIfPresent([Int64].self, forKey: .peakTimes)
            ?? [Int64](repeating: .min, count: Self.peakCapacity)
        peakHead = try c.decodeIfPresent(Int.self, forKey: .peakHead) ?? 0
        // A state saved before the motion split (feature set 4) or the vector across gravity (set 5: only its energy)
        // starts them afresh: its windows' axis features settle within one window, as after a gap.
        let fresh = [Double](repeating: 0, count: Self.windowTicks)
        motionFilter = try c.decodeIfPresent([Double].self, forKey: .motionFilter) ?? [Double](repeating: 0, count: 6)
        along = try c.decodeIfPresent([Double].self, forKey: .along) ?? fresh
        across = try c.decodeIfPresent([Double].self, forKey: .across) ?? fresh
        if across.count == Self.windowTicks { across = [Double](repeating: 0, count: 3 * Self.windowTicks) }
        rounding = try c.decodeIfPresent(SensorRounding.self, forKey: .rounding) ?? SensorRounding()  // read again
        guard magnitudes.count == Self.windowTicks, gravity.count == 3 * Self.windowTicks,
            direction.count == 3 * Self.windowTicks, axisTicks.count == Self.windowTicks,
            excesses.count == Self.windowTicks, peakTimes.count == Self.peakCapacity,
            (0..<Self.peakCapacity).contains(peakHead),
            last.count == 3, gravityFilter.count == 6, motionFilter.count == 6, along.count == Self.windowTicks,
            across.count == 3 * Self.windowTicks, (0..<Self.windowTicks).contains(head),
            (0...Self.windowTicks).contains(filled)
        else {
            throw DecodingError.dataCorruptedError(
                forKey: .magnitudes, in: c,
                debugDescription: "walking recognizer state of another size")
        }
    }

    /// Forgets the signal (a gap in the data): the next sample starts a new tick grid.
    mutating func reset() {
        (head, filled, sinceWindow, nextTickNs, previousNs) = (0, 0, 0, .min, .min)
        hasLast = false  // the axes summed since the last tick (the sample that starts the new grid) stay
        tickArea = 0
        for i in 0..<Self.peakCapacity { peakTimes[i] = .min }  // the new signal's windows see only its own candidates
    }

    /// Adds a sample's three axes to the current tick (magnitude-only data adds none).
    @inline(__always)
    mutating func addAxes(x: Double, y: Double, z: Double) {
        sumX += x
        sumY += y
        sumZ += z
        axisSamples += 1
    }

    /// Remembers a candidate step of the detector (in time order).
    @inline(__always)
    mutating func notePeak(at timeNs: Int64) {
        peakTimes[peakHead] = timeNs
        peakHead = peakHead == Self.peakCapacity - 1 ? 0 : peakHead + 1
    }

    /// Feeds one sample: its low-passed and raw magnitude (`wideAlpha`: the wide filter's coefficient for its time
    /// step). Returns true when the sample reaches the next tick: then `advance` takes it instead.
    @inline(__always)
    mutating func push(timeNs: Int64, value: Double, raw: Double, wideAlpha: Double) -> Bool {
        guard timeNs < nextTickNs else { return true }  // never for a grid not started (`.min`)
        tickArea += lastExcess * Double(timeNs &- previousNs)
        lastExcess = Self.followRaw(&wide1, &wide2, raw: raw, value: value, wideAlpha: wideAlpha)
        previousNs = timeNs
        previousValue = value
        return false
    }

    /// Whether a sample at `timeNs` (at or after the next tick) reaches only that one tick, and the tick completes no
    /// window: the detector's quiet run can then hand it to `advance` without stopping.
    func quietTick(at timeNs: Int64) -> Bool {
        // Not where `advance` would start the grid over (a grid at the end of time).
        nextTickNs != .min && nextTickNs <= Self.lastTickNs && timeNs < nextTickNs + Self.tickNs
            && !Self.windowDue(filled: min(filled + 1, Self.windowTicks), sinceWindow: sinceWindow + 1)
    }

    /// The latest time a grid takes a tick at: past it, at the end of time, `advance` starts the grid over.
    static let lastTickNs = Int64.max - 2 * tickNs

    /// Whether a window is due with `filled` ticks in the ring, `sinceWindow` of them added since the last window.
    @inline(__always)
    static func windowDue(filled: Int, sinceWindow: Int) -> Bool { filled == windowTicks && sinceWindow >= hopTicks }

    /// One step of the wide filter on the raw |a|; returns its distance from `value` (the sample's excess).
    @inline(__always)
    static func followRaw(
        _ wide1: inout Double, _ wide2: inout Double, raw: Double, value: Double, wideAlpha: Double
    ) -> Double {
        wide1 += (raw - wide1) * wideAlpha
        wide2 += (wide1 - wide2) * wideAlpha
        return abs(wide2 - value)
    }

    /// The wide filter's coefficient for a time step whose detector coefficient is `alpha`: its cut-off is twice the
    /// detector's, so over the same step it is 1 − (1 − α)² = α(2 − α), with no exponential of its own.
    static func wideAlpha(_ alpha: Double) -> Double { alpha * (2 - alpha) }

    private mutating func startGrid(timeNs: Int64, value: Double, raw: Double) {
        nextTickNs = timeNs
        previousNs = timeNs
        previousValue = value
        wide1 = raw
        wide2 = raw
    }

    /// Takes the sample `push` returned true for and adds the ticks up to `timeNs` (the low-passed |a| interpolated),
    /// and with `score` computes a window when one is due (not one nobody needs: in stillness, or motion without
    /// rhythm). Returns true when a window was completed; with `score`, its span and features wait in `window`.
    @inline(never)
    mutating func advance(timeNs: Int64, value: Double, raw: Double, wideAlpha: Double, score: Bool) -> Bool {
        // A jump longer than a window (a clock step with gaps allowed), or a grid at the end of time: start over.
        let (ahead, overflow) = timeNs.subtractingReportingOverflow(nextTickNs)
        let jumped = overflow || ahead > Int64(Self.windowTicks) * Self.tickNs || nextTickNs > Self.lastTickNs
        if nextTickNs != .min && jumped { reset() }
        if nextTickNs == .min { startGrid(timeNs: timeNs, value: value, raw: raw) }
        // A new grid starts the wide filter at `raw`, which this step keeps exactly (it adds (raw − raw)·α).
        let excess = Self.followRaw(&wide1, &wide2, raw: raw, value: value, wideAlpha: wideAlpha)
        var (completed, fromNs) = (false, previousNs)
        while nextTickNs <= timeNs && nextTickNs <= Self.lastTickNs {
            let span = Double(timeNs - previousNs)
            let fraction = span > 0 ? Double(nextTickNs - previousNs) / span : 1
            tickArea += lastExcess * Double(nextTickNs - fromNs)
            fromNs = nextTickNs
            addTick(previousValue + (value - previousValue) * fraction, excess: tickArea / Double(Self.tickNs))
            if Self.windowDue(filled: filled, sinceWindow: sinceWindow) {
                sinceWindow = 0
                completed = true
                if score { window = scoreWindow(ticks: Self.windowTicks) }
            }
        }
        previousNs = timeNs
        previousValue = value
        tickArea += lastExcess * Double(timeNs - fromNs)
        lastExcess = excess
        return completed
    }

    private mutating func addTick(_ value: Double, excess: Double) {
        magnitudes[head] = value
        excesses[head] = excess
        tickArea = 0
        if axisSamples > 0 {
            let n = Double(axisSamples)
            let mean = (sumX / n, sumY / n, sumZ / n)
            last.withUnsafeMutableBufferPointer { l in (l[0], l[1], l[2]) = mean }
            rounding.note(sumX, sumY, sumZ)
            (sumX, sumY, sumZ, axisSamples) = (0, 0, 0, 0)
            if !hasLast {
                gravityFilter.withUnsafeMutableBufferPointer { f in
                    (f[0], f[1], f[2], f[3], f[4], f[5]) = (mean.0, mean.1, mean.2, mean.0, mean.1, mean.2)
                }
                motionFilter.withUnsafeMutableBufferPointer { f in
                    (f[0], f[1], f[2], f[3], f[4], f[5]) = (mean.0, mean.1, mean.2, 0, 0, 0)
                }
            }
            hasLast = true
        }
        axisTicks[head] = hasLast
        if hasLast { followAxes() }
        head = head == Self.windowTicks - 1 ? 0 : head + 1
        if filled < Self.windowTicks { filled += 1 }
        nextTickNs += Self.tickNs
        sinceWindow += 1
    }

    /// The tick's axes (`last`): gravity's two low-pass stages and the moving part's band-pass, then the unit gravity
    /// and direction and the motion split into its component along gravity and the vector across it, stored at
    /// `head`. The filters' six numbers each are read into locals and written back once, through buffer pointers
    /// (an array checks each access's bounds and each write's sharing; the sizes are fixed, checked when decoded).
    private mutating func followAxes() {
        let mean = last.withUnsafeBufferPointer { l in (l[0], l[1], l[2]) }
        let a = Self.gravityAlpha
        var (g1, g2) = gravityFilter.withUnsafeBufferPointer { f in ((f[0], f[1], f[2]), (f[3], f[4], f[5])) }
        g1.0 += (mean.0 - g1.0) * a
        g2.0 += (g1.0 - g2.0) * a
        g1.1 += (mean.1 - g1.1) * a
        g2.1 += (g1.1 - g2.1) * a
        g1.2 += (mean.2 - g1.2) * a
        g2.2 += (g1.2 - g2.2) * a
        var (slow, band) = motionFilter.withUnsafeBufferPointer { f in ((f[0], f[1], f[2]), (f[3], f[4], f[5])) }
        let (slowAlpha, bandAlpha) = (Self.motionSlowAlpha, Self.motionBandAlpha)
        slow.0 += (mean.0 - slow.0) * slowAlpha
        band.0 += (mean.0 - slow.0 - band.0) * bandAlpha
        slow.1 += (mean.1 - slow.1) * slowAlpha
        band.1 += (mean.1 - slow.1 - band.1) * bandAlpha
        slow.2 += (mean.2 - slow.2) * slowAlpha
        band.2 += (mean.2 - slow.2 - band.2) * bandAlpha
        gravityFilter.withUnsafeMutableBufferPointer { f in
            (f[0], f[1], f[2], f[3], f[4], f[5]) = (g1.0, g1.1, g1.2, g2.0, g2.1, g2.2)
        }
        motionFilter.withUnsafeMutableBufferPointer { f in
            (f[0], f[1], f[2], f[3], f[4], f[5]) = (slow.0, slow.1, slow.2, band.0, band.1, band.2)
        }
        let unit = Self.unit(g2.0, g2.1, g2.2)
        let g = 3 * head
        gravity.withUnsafeMutableBufferPointer { ring in (ring[g], ring[g + 1], ring[g + 2]) = unit }
        let d = Self.unit(mean.0, mean.1, mean.2)
        direction.withUnsafeMutableBufferPointer { ring in (ring[g], ring[g + 1], ring[g + 2]) = d }
        // The band split into its component along gravity and the vector across it.
        let component = band.0 * unit.0 + band.1 * unit.1 + band.2 * unit.2
        along[head] = component
        across.withUnsafeMutableBufferPointer { ring in
            (ring[g], ring[g + 1], ring[g + 2]) = (
                band.0 - component * unit.0, band.1 - component * unit.1, band.2 - component * unit.2
            )
        }
    }

    /// The share of `movingEnergy` along gravity; nil when no tick had three axes or nothing moved.
    func alongShare(fromNs: Int64, toNs: Int64) -> Double? {
        let (along, total) = movingEnergy(fromNs: fromNs, toNs: toNs)
        return total > 0 ? along / total : nil
    }

    /// The moving energy (0.6-3.5 Hz) along gravity and in all over the three-axis ticks from `fromNs` to `toNs` still
    /// in the ring, reading only those: a lone bout's own seconds, a credited step's (the gate look-back).
    func movingEnergy(fromNs: Int64, toNs: Int64) -> (along: Double, total: Double) {
        guard filled > 0 else { return (0, 0) }
        var (alongEnergy, energy) = (0.0, 0.0)
        let newestNs = nextTickNs - Self.tickNs
        var k = 0
        if toNs < newestNs {
            let back = newestNs.subtractingReportingOverflow(toNs)
            guard !back.overflow, back.partialValue / Self.tickNs < Int64(filled) else { return (0, 0) }
            k = Int((back.partialValue + Self.tickNs - 1) / Self.tickNs)
        }
        while k < filled {
            let timeNs = newestNs - Int64(k) * Self.tickNs
            if timeNs < fromNs { break }
            let tick = (head - 1 - k + 2 * Self.windowTicks) % Self.windowTicks
            k += 1
            guard axisTicks[tick] else { continue }
            let a = along[tick]
            let (x, y, z) = (across[3 * tick], across[3 * tick + 1], across[3 * tick + 2])
            alongEnergy += a * a
            energy += a * a + x * x + y * y + z * z
        }
        return (alongEnergy, energy)
    }

    /// The unit vector along (x, y, z) (zero for a vector shorter than 1e-9).
    @inline(__always)
    private static func unit(_ x: Double, _ y: Double, _ z: Double) -> (Double, Double, Double) {
        let length = (x * x + y * y + z * z).squareRoot()
        let k = length > 1e-9 ? 1 / length : 0
        return (x * k, y * k, z * k)
    }

    /// The window over the newest ticks no full window covered, when the stream ends or breaks: nil under
    /// `minimumTailTicks`, or when the last window ended at the newest tick and was scored (`lastSkipped`: it was not).
    mutating func tailWindow(lastSkipped: Bool) -> (startNs: Int64, endNs: Int64, features: WindowFeatures)? {
        guard filled >= Self.minimumTailTicks, sinceWindow > 0 || filled < Self.windowTicks || lastSkipped else {
            return nil
        }
        sinceWindow = 0
        return scoreWindow(ticks: filled)
    }
}
