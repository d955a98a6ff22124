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
    var sums = [0.0, 0.0, 0.0]
    var axisSamples = 0
    var last = [0.0, 0.0, 0.0]
    var hasLast = false
    var gravityFilter = [Double](repeating: 0, count: 6)
    /// The largest raw excess of the current tick so far.
    var tickExcess = 0.0
    /// |a| through a two-pole low-pass at `wideHz` (its coefficient cached for the last time step): the raw signal
    /// made the same at every rate from 12.5 Hz up, so impulses measure alike on every device.
    var wide = [0.0, 0.0]
    var wideDtNs: Int64 = -1
    var wideAlpha = 0.0
    static let wideHz = 6.0

    public init() {
        magnitudes = [Double](repeating: 0, count: Self.windowTicks)
        gravity = [Double](repeating: 0, count: 3 * Self.windowTicks)
        direction = [Double](repeating: 0, count: 3 * Self.windowTicks)
        axisTicks = [Bool](repeating: false, count: Self.windowTicks)
        excesses = [Double](repeating: 0, count: Self.windowTicks)
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
        wide = try c.decode([Double].self, forKey: .wide)
        wideDtNs = try c.decode(Int64.self, forKey: .wideDtNs)
        wideAlpha = try c.decode(Double.self, forKey: .wideAlpha)
        head = try c.decode(Int.self, forKey: .head)
        filled = try c.decode(Int.self, forKey: .filled)
        sinceWindow = try c.decode(Int.self, forKey: .sinceWindow)
        nextTickNs = try c.decode(Int64.self, forKey: .nextTickNs)
        previousNs = try c.decode(Int64.self, forKey: .previousNs)
        previousValue = try c.decode(Double.self, forKey: .previousValue)
        sums = try c.decode([Double].self, forKey: .sums)
        axisSamples = try c.decode(Int.self, forKey: .axisSamples)
        last = try c.decode([Double].self, forKey: .last)
        hasLast = try c.decode(Bool.self, forKey: .hasLast)
        gravityFilter = try c.decode([Double].self, forKey: .gravityFilter)
        guard magnitudes.count == Self.windowTicks, gravity.count == 3 * Self.windowTicks,
              direction.count == 3 * Self.windowTicks, axisTicks.count == Self.windowTicks, sums.count == 3,
              excesses.count == Self.windowTicks, wide.count == 2,
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
    }

    /// Adds a sample's three axes to the current tick (magnitude-only data adds none).
    @inline(__always)
    mutating func addAxes(x: Double, y: Double, z: Double) {
        sums[0] += x
        sums[1] += y
        sums[2] += z
        axisSamples += 1
    }

    /// Feeds one sample: its low-passed magnitude and its raw one; returns a window's span and features when one is
    /// complete.
    @inline(__always)
    mutating func push(timeNs: Int64, value: Double, raw: Double) -> (startNs: Int64, endNs: Int64, features: WindowFeatures)? {
        if nextTickNs != .min {
            // A jump longer than a window (a clock step with gaps allowed), or a grid at the end of time: start over.
            let (ahead, overflow) = timeNs.subtractingReportingOverflow(nextTickNs)
            if overflow || ahead > Int64(Self.windowTicks) * Self.tickNs || nextTickNs > Int64.max - 2 * Self.tickNs {
                reset()
            }
        }
        if nextTickNs == .min {
            nextTickNs = timeNs
            previousNs = timeNs
            previousValue = value
            wide[0] = raw
            wide[1] = raw
        } else {
            let dtNs = timeNs - previousNs
            if dtNs != wideDtNs {
                wideDtNs = dtNs
                wideAlpha = 1 - (-Double(dtNs) * 1e-9 * 2 * Double.pi * Self.wideHz).exponential
            }
            wide[0] += (raw - wide[0]) * wideAlpha
            wide[1] += (wide[0] - wide[1]) * wideAlpha
        }
        tickExcess = max(tickExcess, abs(wide[1] - value))
        var window: (Int64, Int64, WindowFeatures)?
        while nextTickNs <= timeNs && nextTickNs <= Int64.max - 2 * Self.tickNs {
            let span = Double(timeNs - previousNs)
            let fraction = span > 0 ? Double(nextTickNs - previousNs) / span : 1
            addTick(previousValue + (value - previousValue) * fraction)
            if filled == Self.windowTicks && sinceWindow >= Self.hopTicks {
                sinceWindow = 0
                window = scoreWindow(ticks: Self.windowTicks)
            }
        }
        previousNs = timeNs
        previousValue = value
        return window
    }

    private mutating func addTick(_ value: Double) {
        magnitudes[head] = value
        excesses[head] = tickExcess
        tickExcess = 0
        if axisSamples > 0 {
            let n = Double(axisSamples)
            for k in 0..<3 { last[k] = sums[k] / n; sums[k] = 0 }
            axisSamples = 0
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
            storeUnit(in: &gravity, gravityFilter[3], gravityFilter[4], gravityFilter[5])
            storeUnit(in: &direction, last[0], last[1], last[2])
        }
        head = head == Self.windowTicks - 1 ? 0 : head + 1
        if filled < Self.windowTicks { filled += 1 }
        nextTickNs += Self.tickNs
        sinceWindow += 1
    }

    private func storeUnit(in ring: inout [Double], _ x: Double, _ y: Double, _ z: Double) {
        let length = (x * x + y * y + z * z).squareRoot()
        let k = length > 1e-9 ? 1 / length : 0
        ring[3 * head] = x * k
        ring[3 * head + 1] = y * k
        ring[3 * head + 2] = z * k
    }

    /// The window over the newest ticks not yet covered by a full window, when the stream ends or breaks: at least
    /// `minimumTailTicks` of signal, nil otherwise (or when the last window already ended at the newest tick).
    mutating func tailWindow() -> (startNs: Int64, endNs: Int64, features: WindowFeatures)? {
        guard filled >= Self.minimumTailTicks, sinceWindow > 0 || filled < Self.windowTicks else { return nil }
        sinceWindow = 0
        return scoreWindow(ticks: filled)
    }

    /// Features of the newest `n` ticks, and the time they span.
    private func scoreWindow(ticks n: Int) -> (startNs: Int64, endNs: Int64, features: WindowFeatures) {
        let endNs = nextTickNs  // one tick past the newest
        var f = WindowFeatures()
        magnitudeFeatures(ticks: n, into: &f)
        axisFeatures(ticks: n, into: &f)
        return (endNs - Int64(n) * Self.tickNs, endNs, f)
    }

    /// Ring index of tick `i` of the newest `n`, oldest first.
    @inline(__always)
    private func index(_ i: Int, of n: Int) -> Int {
        let k = head - n + i
        return k < 0 ? k + Self.windowTicks : k
    }

    private func magnitudeFeatures(ticks n: Int, into f: inout WindowFeatures) {
        var mean = 0.0
        for i in 0..<n { mean += magnitudes[index(i, of: n)] }
        mean /= Double(n)
        withUnsafeTemporaryAllocation(of: Double.self, capacity: Self.windowTicks) { y in
            var m2 = 0.0, m4 = 0.0, peak = 0.0, crossings = 0
            for i in 0..<n {
                let v = magnitudes[index(i, of: n)] - mean
                y[i] = v
                let v2 = v * v
                m2 += v2
                m4 += v2 * v2
                peak = max(peak, abs(v))
                if i > 0 && (v >= 0) != (y[i - 1] >= 0) { crossings += 1 }
            }
            let variance = m2 / Double(n)
            let std = max(variance.squareRoot(), 0.01)
            f.logStd = std.logarithm
            f.crest = peak / std
            f.logKurtosis = variance > 1e-8 ? (m4 / Double(n) / (variance * variance)).logarithm : 0
            f.crossingsHz = Double(crossings) * Self.tickHz / Double(n)
            var excess = 0.0
            for i in 0..<n { excess = max(excess, excesses[index(i, of: n)]) }
            f.logImpulse = (1 + excess / std).logarithm
            func r(_ lag: Int) -> Double {
                guard lag < n, variance > 1e-8 else { return 0 }
                var s = 0.0
                for i in 0..<(n - lag) { s += y[i] * y[i + lag] }
                return s / Double(n - lag) / variance
            }
            f.r1 = r(1)
            f.r2 = r(2)
            var step = -1.0, stride = -1.0, twoStrides = -1.0
            for lag in 4...49 {
                let v = r(lag)
                if lag <= 12 { step = max(step, v) }
                if lag >= 8 && lag <= 25 { stride = max(stride, v) }
                if lag >= 26 { twoStrides = max(twoStrides, v) }
            }
            f.rStep = step
            f.rStride = stride
            f.rTwoStrides = twoStrides
        }
    }

    private func axisFeatures(ticks n: Int, into f: inout WindowFeatures) {
        for i in 0..<n where !axisTicks[index(i, of: n)] { return }
        f.hasAxes = true
        var g = (0.0, 0.0, 0.0), d = (0.0, 0.0, 0.0)
        for i in 0..<n {
            let k = 3 * index(i, of: n)
            g = (g.0 + gravity[k], g.1 + gravity[k + 1], g.2 + gravity[k + 2])
            d = (d.0 + direction[k], d.1 + direction[k + 1], d.2 + direction[k + 2])
        }
        let count = Double(n)
        f.gravitySteadiness = (g.0 * g.0 + g.1 * g.1 + g.2 * g.2).squareRoot() / count
        f.directionSteadiness = (d.0 * d.0 + d.1 * d.1 + d.2 * d.2).squareRoot() / count
        let a = 3 * index(0, of: n), b = 3 * index(n - 1, of: n)
        let cosine = gravity[a] * gravity[b] + gravity[a + 1] * gravity[b + 1] + gravity[a + 2] * gravity[b + 2]
        f.gravityTurnDegrees = cosine.arcCosineDegrees
    }
}
