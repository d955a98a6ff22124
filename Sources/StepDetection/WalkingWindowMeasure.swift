/// Measuring a window: the recognizer's ring of ticks (and, with axes, the averaged vectors) and its ring of
/// candidate peak times turned into `WindowFeatures`, without allocating (stack buffers only).
extension WalkingRecognizer {
    /// Features of the newest `n` ticks, and the time they span.
    func scoreWindow(ticks n: Int) -> (startNs: Int64, endNs: Int64, features: WindowFeatures) {
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
            var mean = 0.0
            var excess = 0.0
            magnitudes.withUnsafeBufferPointer { ring in
                Self.forEachTick(count, head: head) { i, k in
                    b[i] = ring[k]
                    mean += ring[k]
                }
            }
            excesses.withUnsafeBufferPointer { ring in
                Self.forEachTick(count, head: head) { _, k in excess = max(excess, ring[k]) }
            }
            mean /= Double(count)
            var m2 = 0.0
            var m4 = 0.0
            var peak = 0.0
            var crossings = 0
            var wasAbove = b[0] - mean >= 0  // the first tick crosses nothing
            for i in 0..<count {
                let v = b[i] - mean
                b[i] = v
                let v2 = v * v
                m2 += v2
                m4 += v2 * v2
                peak = max(peak, abs(v))
                let above = v >= 0
                if above != wasAbove { crossings &+= 1 }  // at most `count`
                wasAbove = above
            }
            let variance = m2 / Double(count)
            let std = max(variance.squareRoot(), 0.01)
            f.logStd = std.logarithm
            f.crest = peak / std
            f.logKurtosis = variance > 1e-8 ? (m4 / Double(count) / (variance * variance)).logarithm : 0
            f.crossingsHz = min(Double(crossings) * Self.tickHz / Double(count), WindowFeatures.crossingsCap)
            f.logImpulse = (1 + excess / std).logarithm
            // Autocorrelation at lags 1, 2 and 4-49 ticks (up to 3.92 s), normalised by the variance.
            var r = (
                r1: 0.0, r2: 0.0, step: -1.0, stride: -1.0, twoStrides: -1.0, steps: SIMD8<Double>(repeating: -1)
            )
            if variance > 1e-8 && min(49, count - 1) >= 4 {
                r = Self.autocorrelations(UnsafePointer(b), count: count, variance: variance)
            }
            f.magnitudeSteps = r.steps
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
    static func forEachTick(_ n: Int, head: Int, _ body: (Int, Int) -> Void) {
        let first = index(0, of: n, head: head)
        let run = min(n, windowTicks - first)
        for i in 0..<run { body(i, first &+ i) }  // both within the ring: no overflow to check
        for i in run..<n { body(i, i &- run) }
    }

    /// Autocorrelations of the mean-free window `b` (`count` ticks): at lags 1 and 2, and the largest over a step
    /// (4-12 ticks), a stride (8-25) and two strides (26-49); and each at lags 4-11 (`steps`, -1 beyond the window).
    private static func autocorrelations(_ b: UnsafePointer<Double>, count: Int, variance: Double)
        -> (r1: Double, r2: Double, step: Double, stride: Double, twoStrides: Double, steps: SIMD8<Double>)
    {
        var steps = SIMD8<Double>(repeating: -1)
        var r1 = 0.0
        var r2 = 0.0
        var step = -1.0
        var stride = -1.0
        var twoStrides = -1.0
        func note(_ lag: Int, _ meanProduct: Double) {
            let v = meanProduct / variance
            if lag == 1 { r1 = v } else if lag == 2 { r2 = v }
            if lag >= 4 && lag <= 11 { steps[lag - 4] = v }
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
            note(lag, meanProduct(b, count: count, lag: lag))
        }
        return (r1, r2, step, stride, twoStrides, steps)
    }

    /// The mean products `Σ b[i]·b[i+lag] / (count − lag)` at four increasing lags. Each lag keeps four running sums
    /// in the lanes of one vector (lane k: pairs i + k), then a scalar tail: the same sums in the same order as one lag
    /// alone, so results do not depend on how lags are grouped.
    @inline(__always)
    static func meanProducts(_ b: UnsafePointer<Double>, count: Int, lags: SIMD4<Int>) -> SIMD4<Double> {
        let raw = UnsafeRawPointer(b)
        @inline(__always) func load(_ i: Int) -> SIMD4<Double> {
            raw.loadUnaligned(fromByteOffset: i &* 8, as: SIMD4<Double>.self)
        }
        var s0 = SIMD4<Double>()
        var s1 = SIMD4<Double>()
        var s2 = SIMD4<Double>()
        var s3 = SIMD4<Double>()
        // Together while every lag has four more pairs (the largest lag has the fewest).
        let together = count &- lags[3]
        var i = 0
        let lastFour = together &- 3  // `i < lastFour`: `i + 4 <= together` with one induction variable
        while i < lastFour {
            let x = load(i)
            s0 += x * load(i &+ lags[0])
            s1 += x * load(i &+ lags[1])
            s2 += x * load(i &+ lags[2])
            s3 += x * load(i &+ lags[3])
            i &+= 4
        }
        return SIMD4(
            meanProduct(b, count: count, lag: lags[0], from: i, sums: s0),
            meanProduct(b, count: count, lag: lags[1], from: i, sums: s1),
            meanProduct(b, count: count, lag: lags[2], from: i, sums: s2),
            meanProduct(b, count: count, lag: lags[3], from: i, sums: s3))
    }

    /// `meanProducts` at one lag: the same sums in the same order, a quarter of the work of four lags. `sums` holds the
    /// four lanes' sums of the pairs before `start` (`meanProducts` finishes each of its lags here).
    @inline(__always)
    static func meanProduct(
        _ b: UnsafePointer<Double>, count: Int, lag: Int, from start: Int = 0, sums: SIMD4<Double> = SIMD4()
    ) -> Double {
        let raw = UnsafeRawPointer(b)
        var sums = sums
        var j = start
        let pairs = count &- lag
        let lastFour = pairs &- 3
        while j < lastFour {
            sums +=
                raw.loadUnaligned(fromByteOffset: j &* 8, as: SIMD4<Double>.self)
                * raw.loadUnaligned(fromByteOffset: (j &+ lag) &* 8, as: SIMD4<Double>.self)
            j &+= 4
        }
        var first = sums[0]
        while j < pairs {
            first += b[j] * b[j &+ lag]
            j &+= 1
        }
        return ((first + sums[1]) + (sums[2] + sums[3])) / Double(pairs)
    }

    /// Autocorrelations (mean products over `variance`) into `r`: `passes` groups of four lags, `first` moved by `step`
    /// a pass, then one more at `last`. `r` holds `4 · passes + 1` values.
    @inline(__always)
    static func autocorrelations(
        into r: UnsafeMutableBufferPointer<Double>, of values: UnsafePointer<Double>, count: Int,
        first: SIMD4<Int>, step: Int, passes: Int, last: Int, variance: Double
    ) {
        for pass in 0..<passes {
            let products = meanProducts(values, count: count, lags: first &+ step &* pass) / variance
            (r[4 * pass], r[4 * pass + 1], r[4 * pass + 2], r[4 * pass + 3]) = (
                products[0], products[1], products[2], products[3]
            )
        }
        r[4 * passes] = meanProduct(values, count: count, lag: last) / variance
    }

    /// `peakRate` and `strideCV` of the candidate steps in `[startNs, endNs)`, and `r1`, `r2` made relative to their
    /// rate.
    private func rhythmFeatures(startNs: Int64, endNs: Int64, into f: inout WindowFeatures) {
        peakTimes.withUnsafeBufferPointer { ring in
            withUnsafeTemporaryAllocation(of: Int64.self, capacity: Self.peakCapacity) { buffer in
                // Newest first, back to the window's start (the ring is in time order); stored oldest first at the end.
                var n = 0
                var k = peakHead
                while n < Self.peakCapacity {
                    k = k == 0 ? Self.peakCapacity - 1 : k - 1
                    let t = ring[k]
                    if t < startNs { break }
                    if t < endNs {
                        n += 1
                        buffer[Self.peakCapacity - n] = t
                    }
                }
                let times = buffer.baseAddress! + (Self.peakCapacity - n)
                let rate = Double(n) / (Double(endNs - startNs) * 1e-9)
                f.peakRate = min(rate, WindowFeatures.peakRateCap)
                // r1 and r2 as far from what a sine at the candidates' rate would give: smoothness, not cadence.
                let cadence = max(rate, 0.5)
                let tick = 1 / Self.tickHz  // r1 and r2 are one and two ticks apart
                f.r1 -= (2 * Double.pi * tick * cadence).cosine
                f.r2 -= (2 * Double.pi * (2 * tick) * cadence).cosine
                guard n >= 4 else { return }
                var sum = 0.0
                var squares = 0.0
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
        var everyTick: UInt8 = 1
        axisTicks.withUnsafeBufferPointer { ring in
            // A Bool is stored as one byte, 0 or 1: their AND, read as raw bytes, without a branch a tick.
            let bytes = UnsafeRawBufferPointer(ring)
            Self.forEachTick(n, head: head) { _, k in everyTick &= bytes[k] }
        }
        guard everyTick != 0 else { return }
        f.hasAxes = true
        // Each component summed in tick order, x and y in the two lanes of one vector.
        var (gxy, gz, dxy, dz) = (SIMD2<Double>(), 0.0, SIMD2<Double>(), 0.0)
        gravity.withUnsafeBufferPointer { gravity in
            direction.withUnsafeBufferPointer { direction in
                let (rawG, rawD) = (UnsafeRawPointer(gravity.baseAddress!), UnsafeRawPointer(direction.baseAddress!))
                Self.forEachTick(n, head: head) { _, k in
                    gxy += rawG.loadUnaligned(fromByteOffset: 24 &* k, as: SIMD2<Double>.self)
                    gz += gravity[3 &* k &+ 2]
                    dxy += rawD.loadUnaligned(fromByteOffset: 24 &* k, as: SIMD2<Double>.self)
                    dz += direction[3 &* k &+ 2]
                }
            }
        }
        let (g, d) = ((gxy.x, gxy.y, gz), (dxy.x, dxy.y, dz))
        let count = Double(n)
        f.gravitySteadiness = (g.0 * g.0 + g.1 * g.1 + g.2 * g.2).squareRoot() / count
        f.directionSteadiness = (d.0 * d.0 + d.1 * d.1 + d.2 * d.2).squareRoot() / count
        let a = 3 * Self.index(0, of: n, head: head)
        let b = 3 * Self.index(n - 1, of: n, head: head)
        let cosine = gravity[a] * gravity[b] + gravity[a + 1] * gravity[b + 1] + gravity[a + 2] * gravity[b + 2]
        f.gravityTurn = 1 - min(1, max(-1, cosine))
        motionFeatures(ticks: n, into: &f)
    }

    /// Ticks a stride apart for `strideTurn` (0.96 s).
    static let strideTicks = 12

    /// `alongShare`, `alongStep`, `armSwing`, `alongOwnShare`, `strideTurn` and `bodySway` of the newest `n` ticks
    /// (all with axes). The buffer holds the along component mean-free in its first `n`, the vectors across gravity
    /// (x, y, z interleaved, mean-free) after them. `armSwing`: how the vectors across gravity alternate once a stride
    /// while the along component repeats each step.
    private func motionFeatures(ticks n: Int, into f: inout WindowFeatures) {
        var alongEnergy = 0.0
        var acrossEnergy = 0.0
        var unexplained = 1.0
        withUnsafeTemporaryAllocation(of: Double.self, capacity: 4 * Self.windowTicks) { buffer in
            let b = buffer.baseAddress!
            let c = b + Self.windowTicks
            var mean = 0.0
            var acrossMean = (0.0, 0.0, 0.0)
            along.withUnsafeBufferPointer { along in
                across.withUnsafeBufferPointer { across in
                    Self.forEachTick(n, head: head) { i, k in
                        b[i] = along[k]
                        mean += along[k]
                        alongEnergy += along[k] * along[k]
                        let (x, y, z) = (across[3 * k], across[3 * k + 1], across[3 * k + 2])
                        (c[3 * i], c[3 * i + 1], c[3 * i + 2]) = (x, y, z)
                        acrossMean = (acrossMean.0 + x, acrossMean.1 + y, acrossMean.2 + z)
                        acrossEnergy += x * x + y * y + z * z
                    }
                }
            }
            let count = Double(n)
            mean /= count
            acrossMean = (acrossMean.0 / count, acrossMean.1 / count, acrossMean.2 / count)
            var variance = 0.0
            var acrossVariance = 0.0
            var moments = AlongOnAcross()
            for i in 0..<n {
                b[i] -= mean
                variance += b[i] * b[i]
                c[3 * i] -= acrossMean.0
                c[3 * i + 1] -= acrossMean.1
                c[3 * i + 2] -= acrossMean.2
                acrossVariance += c[3 * i] * c[3 * i] + c[3 * i + 1] * c[3 * i + 1] + c[3 * i + 2] * c[3 * i + 2]
                moments.add(along: b[i], across: (c[3 * i], c[3 * i + 1], c[3 * i + 2]))
            }
            unexplained = moments.unexplainedShare(alongEnergy: variance)
            variance /= count
            acrossVariance /= 3 * count  // per component, as `meanProducts` over the interleaved vectors averages
            let step = variance > 1e-8 ? Self.stepAutocorrelations(UnsafePointer(b), count: n, variance: variance) : nil
            f.alongStep = step.map { max(max($0.0.max(), $0.1.max()), $0.2) } ?? -1
            Self.strideRepeats(of: (UnsafePointer(b), UnsafePointer(c)), n, (variance, acrossVariance), into: &f)
            f.armSwing = -1
            if let step, acrossVariance > 1e-8 {
                f.armSwing = Self.alternation(
                    of: UnsafePointer(c), components: 3, count: n, variance: acrossVariance,
                    strides: Self.swingStrides.shortest...Self.swingStrides.longest, stepping: step)
            }
        }
        let energy = alongEnergy + acrossEnergy
        f.alongShare = energy > 1e-8 ? alongEnergy / energy : 0
        // What the motion across gravity predicts along it, at most as much as it has itself: a line within 45° of
        // gravity (a body's rise and fall carried by a held arm) keeps the excess along gravity as its own.
        let explained = f.alongShare * (1 - unexplained)
        f.alongOwnShare = f.alongShare - min(explained, 1 - f.alongShare)
        f.strideTurn = strideTurn(ticks: n)
        // Only where the held-arm path could use it (see `swayNeedsStride`).
        f.bodySway = f.rStride >= Self.swayNeedsStride ? bodySway(ticks: n) : -1
    }

    /// `strideTurn` of the newest `n` ticks: 1 − the mean cos between each tick's gravity and that a stride before.
    private func strideTurn(ticks n: Int) -> Double {
        var cosines = 0.0
        gravity.withUnsafeBufferPointer { g in
            // The ring's size is a power of two: a mask wraps the tick a stride before without a test per tick.
            let mask = Self.windowTicks - 1
            let first = Self.index(0, of: n - Self.strideTicks, head: head)
            for i in 0..<(n - Self.strideTicks) {
                let k = 3 * ((first &+ i) & mask)
                let j = 3 * ((first &+ i &- Self.strideTicks) & mask)
                cosines += g[k] * g[j] + g[k + 1] * g[j + 1] + g[k + 2] * g[j + 2]
            }
        }
        return 1 - cosines / Double(n - Self.strideTicks)
    }

    /// The autocorrelations of the mean-free window `b` over a step: lags 4-7, 8-11 and 12 ticks, three passes of four.
    static func stepAutocorrelations(_ b: UnsafePointer<Double>, count: Int, variance: Double)
        -> (SIMD4<Double>, SIMD4<Double>, Double)
    {
        let first = meanProducts(b, count: count, lags: SIMD4(4, 5, 6, 7))
        let second = meanProducts(b, count: count, lags: SIMD4(8, 9, 10, 11))
        let last = meanProduct(b, count: count, lag: 12)
        return (first / variance, second / variance, last / variance)
    }

    /// Shortest and longest stride `armSwing` looks at, in ticks (0.64-1.6 s).
    static let swingStrides = (shortest: 8, longest: 20)

    /// Over `strides` (8 ticks to a multiple of 4), the best of the least of three autocorrelations (`bestStride`): of
    /// `values` (`count` mean-free vectors of `components` interleaved values) one stride later, the same negated half
    /// a stride later, and of a motion that steps (`stepping`: its autocorrelations at lags 4-12) half a stride later:
    /// a motion that alternates once a stride beside one that repeats each step (`armSwing`, `bodySway`).
    @inline(__always)
    static func alternation(
        of values: UnsafePointer<Double>, components: Int, count: Int, variance: Double, strides: ClosedRange<Int>,
        stepping: (SIMD4<Double>, SIMD4<Double>, Double)
    ) -> Double {
        let longest = strides.upperBound
        // The vectors' autocorrelations at lags 4 to `longest` (index lag − 4), four lags a pass: a lag of L ticks is
        // `components`·L interleaved values. On the stack: a SIMD vector indexed by a variable lag is stored and
        // reloaded at every access.
        return withUnsafeTemporaryAllocation(of: Double.self, capacity: longest - 3) { r in
            autocorrelations(
                into: r, of: values, count: components * count, first: SIMD4(4, 5, 6, 7) &* components,
                step: 4 * components, passes: (longest - 4) / 4, last: components * longest, variance: variance)
            return bestStride(
                strides, repeating: { r[$0 &- 4] }, reversing: { r[$0 &- 4] },
                stepping: { lag in lag < 8 ? stepping.0[lag - 4] : lag < 12 ? stepping.1[lag - 8] : stepping.2 })
        }
    }

    /// Over `strides` (in ticks), the best of the least of `repeating` a stride later, `reversing` negated half a
    /// stride later and `stepping` half a stride later (each an autocorrelation by lag; at an odd stride the half is
    /// the mean of the two lags around it): a motion that alternates once a stride beside one that repeats each step.
    @inline(__always)
    static func bestStride(
        _ strides: ClosedRange<Int>, repeating: (Int) -> Double, reversing: (Int) -> Double,
        stepping: (Int) -> Double
    ) -> Double {
        var best = -1.0
        for stride in strides {
            let (low, high) = (stride / 2, (stride + 1) / 2)
            let reversingHalf = (reversing(low) + reversing(high)) / 2
            let steppingHalf = (stepping(low) + stepping(high)) / 2
            best = max(best, min(repeating(stride), -reversingHalf, steppingHalf))
        }
        return best
    }
}
