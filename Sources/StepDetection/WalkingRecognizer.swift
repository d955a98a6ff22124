/// One window's decision: the window `[startNs, endNs)` was walking with this probability.
public struct WalkingDecision: Sendable, Equatable, Codable {
    public var startNs: Int64
    public var endNs: Int64
    public var probability: Double
}

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
    /// Low-pass coefficient of the gravity estimate per tick: two stages at 0.5 Hz.
    static let gravityAlpha = 1 - (-0.08 * 2 * Double.pi * 0.5).exponential

    /// Rings of the last `windowTicks` ticks: |a|; the unit gravity and acceleration vectors (x, y, z interleaved);
    /// whether the tick had three axes. `filled` are valid, the newest at `head - 1`.
    var magnitudes: [Double]
    var gravity: [Double]
    var direction: [Double]
    var axisTicks: [Bool]
    /// Per tick, the largest distance of a raw |a| sample from the low-passed signal.
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
    /// The largest raw excess of the current tick so far.
    var tickExcess = 0.0
    /// |a| through a two-pole low-pass at twice the detector's cut-off (6 Hz): the raw signal made the same at every
    /// rate from 12.5 Hz up, so impulses measure alike on every device.
    var wide1 = 0.0, wide2 = 0.0
    /// The times of the detector's latest candidate steps, a ring whose next entry goes to `peakHead` (`.min`: none).
    var peakTimes: [Int64]
    var peakHead = 0
    /// The window just scored, taken by the detector within the same push (never saved).
    var window: (startNs: Int64, endNs: Int64, features: WindowFeatures)?

    enum CodingKeys: String, CodingKey {
        case magnitudes, gravity, direction, axisTicks, excesses, head, filled, sinceWindow, nextTickNs, previousNs
        case previousValue, sumX, sumY, sumZ, axisSamples, last, hasLast, gravityFilter, tickExcess, wide1, wide2
        case peakTimes, peakHead
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
    }

    /// Decodes a saved state, refusing one whose rings do not have this version's sizes.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        magnitudes = try c.decode([Double].self, forKey: .magnitudes)
        gravity = try c.decode([Double].self, forKey: .gravity)
        direction = try c.decode([Double].self, forKey: .direction)
        axisTicks = try c.decode([Bool].self, forKey: .axisTicks)
        excesses = try c.decode([Double].self, forKey: .excesses)
        tickExcess = try c.decode(Double.self, forKey: .tickExcess)
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
        peakTimes = try c.decodeIfPresent([Int64].self, forKey: .peakTimes)
            ?? [Int64](repeating: .min, count: Self.peakCapacity)
        peakHead = try c.decodeIfPresent(Int.self, forKey: .peakHead) ?? 0
        guard magnitudes.count == Self.windowTicks, gravity.count == 3 * Self.windowTicks,
              direction.count == 3 * Self.windowTicks, axisTicks.count == Self.windowTicks,
              excesses.count == Self.windowTicks, peakTimes.count == Self.peakCapacity,
              (0..<Self.peakCapacity).contains(peakHead),
              last.count == 3, gravityFilter.count == 6, (0..<Self.windowTicks).contains(head),
              (0...Self.windowTicks).contains(filled) else {
            throw DecodingError.dataCorruptedError(forKey: .magnitudes, in: c,
                                                   debugDescription: "walking recognizer state of another size")
        }
    }

    /// Forgets the signal (a gap in the data): the next sample starts a new tick grid.
    mutating func reset() {
        head = 0
        filled = 0
        sinceWindow = 0
        nextTickNs = .min
        previousNs = .min
        hasLast = false  // the axes summed since the last tick (the sample that starts the new grid) stay
        tickExcess = 0
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

    /// Feeds one sample: its low-passed magnitude and its raw one (`wideAlpha`: the wide filter's coefficient for the
    /// sample's time step). Returns true when the sample reaches the next tick: then call `advance`.
    @inline(__always)
    mutating func push(timeNs: Int64, value: Double, raw: Double, wideAlpha: Double) -> Bool {
        // A new grid starts the wide filter at `raw`, which the step below keeps exactly (it adds (raw − raw)·α).
        if nextTickNs == .min { startGrid(timeNs: timeNs, value: value, raw: raw) }
        Self.followRaw(&wide1, &wide2, &tickExcess, raw: raw, value: value, wideAlpha: wideAlpha)
        if timeNs < nextTickNs {
            previousNs = timeNs
            previousValue = value
            return false
        }
        return true
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

    /// One step of the wide filter on the raw |a|, and the tick's largest excess of it over the detector's `value`.
    @inline(__always)
    static func followRaw(_ wide1: inout Double, _ wide2: inout Double, _ excess: inout Double, raw: Double,
                          value: Double, wideAlpha: Double) {
        wide1 += (raw - wide1) * wideAlpha
        wide2 += (wide1 - wide2) * wideAlpha
        excess = max(excess, abs(wide2 - value))
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

    /// Adds the ticks up to `timeNs` (after `push` returned true), interpolating the low-passed magnitude, and with
    /// `score` computes a window when one is due. Returns true when a window was completed and, with `score`, its span
    /// and features wait in `window` (a window nobody needs, in stillness or in motion without any rhythm, is not
    /// computed).
    @inline(never)
    mutating func advance(timeNs: Int64, value: Double, raw: Double, score: Bool) -> Bool {
        // A jump longer than a window (a clock step with gaps allowed), or a grid at the end of time: start over.
        let (ahead, overflow) = timeNs.subtractingReportingOverflow(nextTickNs)
        if overflow || ahead > Int64(Self.windowTicks) * Self.tickNs || nextTickNs > Self.lastTickNs {
            reset()
            startGrid(timeNs: timeNs, value: value, raw: raw)
        }
        var completed = false
        while nextTickNs <= timeNs && nextTickNs <= Self.lastTickNs {
            let span = Double(timeNs - previousNs)
            let fraction = span > 0 ? Double(nextTickNs - previousNs) / span : 1
            addTick(previousValue + (value - previousValue) * fraction)
            if Self.windowDue(filled: filled, sinceWindow: sinceWindow) {
                sinceWindow = 0
                completed = true
                if score { window = scoreWindow(ticks: Self.windowTicks) }
            }
        }
        previousNs = timeNs
        previousValue = value
        return completed
    }

    private mutating func addTick(_ value: Double) {
        magnitudes[head] = value
        excesses[head] = tickExcess
        tickExcess = 0
        if axisSamples > 0 {
            let n = Double(axisSamples)
            last[0] = sumX / n; last[1] = sumY / n; last[2] = sumZ / n
            (sumX, sumY, sumZ, axisSamples) = (0, 0, 0, 0)
            if !hasLast { for k in 0..<3 { gravityFilter[k] = last[k]; gravityFilter[k + 3] = last[k] } }
            hasLast = true
        }
        axisTicks[head] = hasLast
        if hasLast {
            let a = Self.gravityAlpha
            for k in 0..<3 {
                gravityFilter[k] += (last[k] - gravityFilter[k]) * a
                gravityFilter[k + 3] += (gravityFilter[k] - gravityFilter[k + 3]) * a
            }
            Self.storeUnit(in: &gravity, at: head, gravityFilter[3], gravityFilter[4], gravityFilter[5])
            Self.storeUnit(in: &direction, at: head, last[0], last[1], last[2])
        }
        head = head == Self.windowTicks - 1 ? 0 : head + 1
        if filled < Self.windowTicks { filled += 1 }
        nextTickNs += Self.tickNs
        sinceWindow += 1
    }

    /// Static, so writing the ring never copies it (a method on `self` would hold a second reference).
    private static func storeUnit(in ring: inout [Double], at head: Int, _ x: Double, _ y: Double, _ z: Double) {
        let length = (x * x + y * y + z * z).squareRoot()
        let k = length > 1e-9 ? 1 / length : 0
        ring[3 * head] = x * k
        ring[3 * head + 1] = y * k
        ring[3 * head + 2] = z * k
    }

    /// The window over the newest ticks not yet covered by a full window, when the stream ends or breaks: at least
    /// `minimumTailTicks` of signal, nil otherwise (or when the last window already ended at the newest tick and was
    /// scored: `lastSkipped` says it was not).
    mutating func tailWindow(lastSkipped: Bool) -> (startNs: Int64, endNs: Int64, features: WindowFeatures)? {
        guard filled >= Self.minimumTailTicks, sinceWindow > 0 || filled < Self.windowTicks || lastSkipped else {
            return nil
        }
        sinceWindow = 0
        return scoreWindow(ticks: filled)
    }

    /// Features of the newest `n` ticks, and the time they span.
    private func scoreWindow(ticks n: Int) -> (startNs: Int64, endNs: Int64, features: WindowFeatures) {
        let endNs = nextTickNs  // one tick past the newest
        var f = WindowFeatures()
        let startNs = endNs - Int64(n) * Self.tickNs
        magnitudeFeatures(ticks: n, into: &f)
        rhythmFeatures(startNs: startNs, endNs: endNs, into: &f)
        axisFeatures(ticks: n, into: &f)
        return (startNs, endNs, f)
    }

    /// Ring index of tick `i` of the newest `n`, oldest first, in a ring whose next tick goes to `head`.
    @inline(__always)
    private static func index(_ i: Int, of n: Int, head: Int) -> Int {
        let k = head - n + i
        return k < 0 ? k + windowTicks : k
    }

    private func magnitudeFeatures(ticks n: Int, into f: inout WindowFeatures) {
        let count = min(n, Self.windowTicks)
        // The window in time order, mean removed, in an uninitialised stack buffer (no allocation, no zeroing).
        withUnsafeTemporaryAllocation(of: Double.self, capacity: Self.windowTicks) { y in
            let b = y.baseAddress!
            var mean = 0.0, excess = 0.0
            magnitudes.withUnsafeBufferPointer { ring in
                Self.forEachTick(count, head: head) { i, k in b[i] = ring[k]; mean += ring[k] }
            }
            excesses.withUnsafeBufferPointer { ring in
                Self.forEachTick(count, head: head) { _, k in excess = max(excess, ring[k]) }
            }
            mean /= Double(count)
            var m2 = 0.0, m4 = 0.0, peak = 0.0, crossings = 0
            for i in 0..<count {
                let v = b[i] - mean
                b[i] = v
                let v2 = v * v
                m2 += v2
                m4 += v2 * v2
                peak = max(peak, abs(v))
                if i > 0 && (v >= 0) != (b[i - 1] >= 0) { crossings += 1 }
            }
            let variance = m2 / Double(count)
            let std = max(variance.squareRoot(), 0.01)
            f.logStd = std.logarithm
            f.crest = peak / std
            f.logKurtosis = variance > 1e-8 ? (m4 / Double(count) / (variance * variance)).logarithm : 0
            f.crossingsHz = min(Double(crossings) * Self.tickHz / Double(count), WindowFeatures.crossingsCap)
            f.logImpulse = (1 + excess / std).logarithm
            // Autocorrelation at lags 1, 2 and 4-49 ticks (up to 3.92 s), normalised by the variance.
            var r = (r1: 0.0, r2: 0.0, step: -1.0, stride: -1.0, twoStrides: -1.0)
            if variance > 1e-8 && min(49, count - 1) >= 4 {
                r = Self.autocorrelations(UnsafePointer(b), count: count, variance: variance)
            }
            f.r1 = r.r1
            f.r2 = r.r2
            f.rStep = r.step
            f.rStride = r.stride
            f.rTwoStrides = r.twoStrides
        }
    }

    /// Calls `body(i, k)` for tick `i` of the newest `n` (oldest first) at ring index `k`: the ring's two contiguous
    /// runs, without a wrap test per tick.
    @inline(__always)
    private static func forEachTick(_ n: Int, head: Int, _ body: (Int, Int) -> Void) {
        let first = index(0, of: n, head: head)
        let run = min(n, windowTicks - first)
        for i in 0..<run { body(i, first + i) }
        for i in run..<n { body(i, i - run) }
    }

    /// Autocorrelations of the mean-free window `b` (`count` ticks): at lags 1 and 2, and the largest over a step
    /// (4-12 ticks), a stride (8-25) and two strides (26-49).
    private static func autocorrelations(_ b: UnsafePointer<Double>, count: Int, variance: Double)
        -> (r1: Double, r2: Double, step: Double, stride: Double, twoStrides: Double) {
        var r1 = 0.0, r2 = 0.0, step = -1.0, stride = -1.0, twoStrides = -1.0
        func note(_ lag: Int, _ meanProduct: Double) {
            let v = meanProduct / variance
            if lag == 1 { r1 = v } else if lag == 2 { r2 = v }
            if lag >= 4 && lag <= 12 { step = max(step, v) }
            if lag >= 8 && lag <= 25 { stride = max(stride, v) }
            if lag >= 26 { twoStrides = max(twoStrides, v) }
        }
        // Lags 1, 2, 4, 5, …, 49 (3 is not used), four at a time: one pass loads each tick once for all four.
        let maxLag = min(49, count - 1)
        var lags = SIMD4<Int>(1, 2, 4, 5)
        while lags[3] <= maxLag {
            let products = meanProducts(b, count: count, lags: lags)
            for k in 0..<4 { note(lags[k], products[k]) }
            lags = lags[0] == 1 ? SIMD4(6, 7, 8, 9) : lags &+ 4
        }
        for lag in lags[0]...max(lags[0], maxLag) where lag <= maxLag && lag != 3 {
            note(lag, meanProducts(b, count: count, lags: SIMD4(repeating: lag))[0])
        }
        return (r1, r2, step, stride, twoStrides)
    }

    /// The mean products `Σ b[i]·b[i+lag] / (count − lag)` at four increasing lags. Each lag keeps four running sums
    /// in the lanes of one vector (lane k: pairs i + k), then a scalar tail: the same sums in the same order as one lag
    /// alone, so results do not depend on how lags are grouped.
    @inline(__always)
    private static func meanProducts(_ b: UnsafePointer<Double>, count: Int, lags: SIMD4<Int>) -> SIMD4<Double> {
        let raw = UnsafeRawPointer(b)
        @inline(__always) func load(_ i: Int) -> SIMD4<Double> {
            raw.loadUnaligned(fromByteOffset: i &* 8, as: SIMD4<Double>.self)
        }
        var s0 = SIMD4<Double>(), s1 = SIMD4<Double>(), s2 = SIMD4<Double>(), s3 = SIMD4<Double>()
        // Together while every lag has four more pairs (the largest lag has the fewest).
        let together = count &- lags[3]
        var i = 0
        while i &+ 4 <= together {
            let x = load(i)
            s0 += x * load(i &+ lags[0])
            s1 += x * load(i &+ lags[1])
            s2 += x * load(i &+ lags[2])
            s3 += x * load(i &+ lags[3])
            i &+= 4
        }
        @inline(__always) func finish(_ sums: SIMD4<Double>, _ lag: Int) -> Double {
            var sums = sums, j = i
            let pairs = count &- lag
            while j &+ 4 <= pairs { sums += load(j) * load(j &+ lag); j &+= 4 }
            var first = sums[0]
            while j < pairs { first += b[j] * b[j &+ lag]; j &+= 1 }
            return ((first + sums[1]) + (sums[2] + sums[3])) / Double(pairs)
        }
        return SIMD4(finish(s0, lags[0]), finish(s1, lags[1]), finish(s2, lags[2]), finish(s3, lags[3]))
    }

    /// `peakRate` and `strideCV` of the candidate steps in `[startNs, endNs)`, and `r1`, `r2` made relative to their
    /// rate.
    private func rhythmFeatures(startNs: Int64, endNs: Int64, into f: inout WindowFeatures) {
        peakTimes.withUnsafeBufferPointer { ring in
            withUnsafeTemporaryAllocation(of: Int64.self, capacity: Self.peakCapacity) { buffer in
                // Newest first, back to the window's start (the ring is in time order); stored oldest first at the end.
                var n = 0, k = peakHead
                while n < Self.peakCapacity {
                    k = k == 0 ? Self.peakCapacity - 1 : k - 1
                    let t = ring[k]
                    if t < startNs { break }
                    if t < endNs { n += 1; buffer[Self.peakCapacity - n] = t }
                }
                let times = buffer.baseAddress! + (Self.peakCapacity - n)
                let rate = Double(n) / (Double(endNs - startNs) * 1e-9)
                f.peakRate = min(rate, WindowFeatures.peakRateCap)
                // r1 and r2 as far from what a sine at the candidates' rate would give: smoothness, not cadence.
                let cadence = max(rate, 0.5), tick = 1 / Self.tickHz  // r1 and r2 are one and two ticks apart
                f.r1 -= (2 * Double.pi * tick * cadence).cosine
                f.r2 -= (2 * Double.pi * (2 * tick) * cadence).cosine
                guard n >= 4 else { return }
                var sum = 0.0, squares = 0.0
                for i in 2..<n {
                    let stride = Double(times[i] - times[i - 2]) * 1e-9
                    sum += stride
                    squares += stride * stride
                }
                let count = Double(n - 2)
                let mean = sum / count
                f.strideCV = max(squares / count - mean * mean, 0).squareRoot() / mean
            }
        }
    }

    private func axisFeatures(ticks n: Int, into f: inout WindowFeatures) {
        var everyTick = true
        axisTicks.withUnsafeBufferPointer { ring in Self.forEachTick(n, head: head) { _, k in everyTick = everyTick && ring[k] } }
        guard everyTick else { return }
        f.hasAxes = true
        var g = (0.0, 0.0, 0.0), d = (0.0, 0.0, 0.0)
        gravity.withUnsafeBufferPointer { gravity in
            direction.withUnsafeBufferPointer { direction in
                Self.forEachTick(n, head: head) { _, k in
                    g = (g.0 + gravity[3 * k], g.1 + gravity[3 * k + 1], g.2 + gravity[3 * k + 2])
                    d = (d.0 + direction[3 * k], d.1 + direction[3 * k + 1], d.2 + direction[3 * k + 2])
                }
            }
        }
        let count = Double(n)
        f.gravitySteadiness = (g.0 * g.0 + g.1 * g.1 + g.2 * g.2).squareRoot() / count
        f.directionSteadiness = (d.0 * d.0 + d.1 * d.1 + d.2 * d.2).squareRoot() / count
        let a = 3 * Self.index(0, of: n, head: head), b = 3 * Self.index(n - 1, of: n, head: head)
        let cosine = gravity[a] * gravity[b] + gravity[a + 1] * gravity[b + 1] + gravity[a + 2] * gravity[b + 2]
        f.gravityTurn = 1 - min(1, max(-1, cosine))
    }
}
