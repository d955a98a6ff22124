/// How much a window's whole moving acceleration repeats a stride later (issue #47, h47fold35): `vectorStride` and
/// `alongStride`, read by the vector repeat gate (RepeatGate.swift). Autocorrelations of vectors are sums of dot
/// products, so neither depends on which way the device's axes point.
extension WalkingRecognizer {
    /// `vectorStride` and `alongStride` (h47fold35) of `n` ticks: the mean-free components along gravity and vectors
    /// across it (x, y, z interleaved), with their variances (the across one per component), into `f`; -1 (as left)
    /// without motion in either. The autocorrelations of each at strides of 8-20 ticks; the vector's is the two parts'
    /// mean products over their summed variance. The variances go to `f` for the rounding's correction (the gate's).
    static func strideRepeats(
        of parts: (along: UnsafePointer<Double>, across: UnsafePointer<Double>), _ n: Int,
        _ variances: (along: Double, across: Double), into f: inout WindowFeatures
    ) {
        let (b, c, va, vc) = (parts.along, parts.across, variances.along, variances.across)
        (f.alongVariance, f.movingVariance) = (va, va + 3 * vc)
        guard va > 1e-8 && vc > 1e-8 else { return }
        withUnsafeTemporaryAllocation(of: Double.self, capacity: 26) { r in
            let ra = UnsafeMutableBufferPointer(rebasing: r[0..<13])
            let rc = UnsafeMutableBufferPointer(rebasing: r[13..<26])
            autocorrelations(
                into: ra, of: b, count: n, first: SIMD4(8, 9, 10, 11), step: 4, passes: 3, last: 20, variance: va)
            autocorrelations(
                into: rc, of: c, count: 3 * n, first: SIMD4(8, 9, 10, 11) &* 3, step: 12, passes: 3, last: 60,
                variance: vc)
            let (alongWeight, acrossWeight) = (va / (va + 3 * vc), 3 * vc / (va + 3 * vc))
            var (vector, along, best) = (-1.0, -1.0, 0)
            for i in 0..<13 {
                let v = alongWeight * ra[i] + acrossWeight * rc[i]
                if v > vector { (vector, best) = (v, i) }
                along = max(along, ra[i])
            }
            f.vectorStride = vector
            f.vectorStrideTicks = best + 8
            f.alongStride = along
            guard vector >= carriedNeedsStride else { return }
            // The carried arm (CarriedStride.swift): the vector at lags 4-7 too, for the step around half the stride.
            let shortAlong = meanProducts(b, count: n, lags: SIMD4(4, 5, 6, 7)) / va
            let shortAcross = meanProducts(c, count: 3 * n, lags: SIMD4(12, 15, 18, 21)) / vc
            let short = alongWeight * shortAlong + acrossWeight * shortAcross
            (f.carriedStep, f.carriedJolt) = carried(
                stride: best + 8,
                vector: { lag in lag < 8 ? short[lag - 4] : alongWeight * ra[lag - 8] + acrossWeight * rc[lag - 8] },
                magnitude: f.magnitudeSteps)
        }
    }
}
