/// A bout confirmed once a stride (issue #47, h47stride36): on some wrists |a| swings once a stride and the other
/// foot's step hardly shows, so a walk's first peaks come a stride apart and the rhythm locks there. The arm is a
/// pendulum whose period is a stride: when the candidates' interval is a stride, the motion across gravity reverses
/// half-way through it, while the motion along gravity repeats at it. A walk seen step by step swings its arm over two
/// intervals (a quarter period at half of one), and a hand's motion does not repeat along gravity.
extension StepDetector {
    /// The candidates' intervals a stride lock can have (seconds): a walk of 86-150 steps a minute seen once a stride,
    /// whose halved interval is a short walk's (`shortBoutCadence`, at least 0.4 s): halved below it, a short bout
    /// fails its own cadence and counts nothing.
    static let armStrideIntervals = (2 * shortBoutCadence.lowerBound)...1.4

    /// Whether the bout just confirmed (its run the confirming peaks alone) was seen once a stride.
    func seenOnceAStride() -> Bool {
        guard parameters.armStrideSeconds > 0, recognizing, Self.armStrideIntervals.contains(rhythm.stepInterval),
            rhythm.pending.count == parameters.confirmSteps
        else { return false }
        let ticks = Int(min(parameters.armStrideSeconds, 10.24) * WalkingRecognizer.tickHz)
        let r = recognizer.armRepeats(interval: rhythm.stepInterval, ticks: ticks)
        return r.acrossHalf <= parameters.armStrideAcross && r.along >= parameters.armStrideAlong
    }

    /// Whether the short bout ending uncredited (its steps still the pending run) was seen once a stride: its mean
    /// interval a stride lock's and, over its own seconds (its first step − 0.3 s to the newest tick), the arm reverses
    /// across gravity half-way through an interval and the motion along gravity repeats at it (`boutEndArmAcross`,
    /// `boutEndArmAlong`). At confirmation the newest 5.12 s are mostly the pause before a pottering bout.
    func endedOnceAStride() -> Bool {
        let p = parameters
        guard p.boutEndArmAlong <= 1, recognizing, rhythm.pending.count >= 2, let first = rhythm.pending.first,
            let last = rhythm.pending.last, recognizer.nextTickNs != .min
        else { return false }
        let interval = Double(last - first) * 1e-9 / Double(rhythm.pending.count - 1)
        let (newestNs, fromNs) = (
            recognizer.nextTickNs - WalkingRecognizer.tickNs, Self.before(first, Self.loneBoutMarginNs)
        )
        guard Self.armStrideIntervals.contains(interval), newestNs > fromNs else { return false }
        let ticks = Int((newestNs - fromNs) / WalkingRecognizer.tickNs) + 1
        let r = recognizer.armRepeats(interval: interval, ticks: ticks)
        return r.acrossHalf <= p.boutEndArmAcross && r.along >= p.boutEndArmAlong
    }
}

extension WalkingRecognizer {
    /// Over the newest `ticks` ticks (all with three axes): the autocorrelation of the vector across gravity at half
    /// `interval` and of the component along it at `interval` (lags interpolated between ticks); 0 when they cannot
    /// be read.
    func armRepeats(interval: Double, ticks: Int) -> (acrossHalf: Double, along: Double) {
        let n = min(ticks, filled)
        let lag = interval * Self.tickHz
        guard n > Int(lag) + 2, lag >= 2 else { return (0, 0) }
        var (meanA, meanX, meanY, meanZ) = (0.0, 0.0, 0.0, 0.0)
        for i in 0..<n {
            let k = ring(i, of: n)
            guard axisTicks[k] else { return (0, 0) }
            meanA += along[k]
            meanX += across[3 * k]
            meanY += across[3 * k + 1]
            meanZ += across[3 * k + 2]
        }
        let count = Double(n)
        (meanA, meanX, meanY, meanZ) = (meanA / count, meanX / count, meanY / count, meanZ / count)
        func alongAt(_ i: Int) -> Double { along[ring(i, of: n)] - meanA }
        func acrossDot(_ i: Int, _ j: Int) -> Double {
            let (a, b) = (3 * ring(i, of: n), 3 * ring(j, of: n))
            return (across[a] - meanX) * (across[b] - meanX) + (across[a + 1] - meanY) * (across[b + 1] - meanY)
                + (across[a + 2] - meanZ) * (across[b + 2] - meanZ)
        }
        func correlation(_ lag: Double, _ product: (Int, Int) -> Double) -> Double {
            let whole = Int(lag)
            let fraction = lag - Double(whole)
            var (at, next, variance) = (0.0, 0.0, 0.0)
            for i in 0..<n {
                variance += product(i, i)
                if i + whole < n { at += product(i, i + whole) }
                if i + whole + 1 < n { next += product(i, i + whole + 1) }
            }
            guard variance > 1e-8 * count else { return 0 }
            let atMean = at / Double(n - whole)
            let nextMean = next / Double(n - whole - 1)
            return ((1 - fraction) * atMean + fraction * nextMean) / (variance / count)
        }
        return (correlation(lag / 2, acrossDot), correlation(lag) { alongAt($0) * alongAt($1) })
    }

    /// Ring index of tick `i` of the newest `n`, oldest first.
    private func ring(_ i: Int, of n: Int) -> Int {
        let k = head - n + i
        return k < 0 ? k + Self.windowTicks : k
    }
}
