/// `WindowFeatures.bodySway` (issue #47): whether the moving acceleration traces a walking body's figure of eight.
///
/// A body in gait rises and falls once a step and sways to the side of the foot it stands on, once a stride. A hand
/// held on a treadmill's rail or a stepper's handles carries that motion: the band-passed vector moves mostly along
/// one line (the rise and fall, tilted from gravity as the arm is), which repeats a step later, while what is left
/// off that line (the sway) repeats a stride later and reverses a step later. A hand clapping or brushing moves along
/// one line too, but nothing beside it alternates stride after stride. Measured on the vector alone (its principal
/// line and the rest): nothing depends on which way the axes point, nor on gravity's direction.
extension WalkingRecognizer {
    /// Shortest and longest stride `bodySway` looks at, in ticks (0.64-1.92 s: 62-188 steps a minute).
    static let swayStrides = (shortest: 8, longest: 24)

    /// Least `r_stride` at which a window's `bodySway` is measured (−1 below it). The held-arm path needs both, with
    /// r_stride ≥ `heldArmStride` (0.75, ramp ±0.05); below 0.5, under every setting of its plateau (0.55-0.8), the
    /// sway cannot open it, and not measuring it saves a tenth of the recognizer's instructions.
    static let swayNeedsStride = 0.5

    /// `bodySway` of the newest `n` ticks (all with axes): over strides of 8-24 ticks, the best of the least of the
    /// principal line's autocorrelation half a stride later, the rest's a stride later and the rest's negated half a
    /// stride later (at an odd stride, the mean of the two lags around the half); -1 to 1, -1 without motion.
    func bodySway(ticks n: Int) -> Double {
        withUnsafeTemporaryAllocation(of: Double.self, capacity: 4 * Self.windowTicks) { buffer in
            // The vectors, x, y, z interleaved; then the line's component, and the rest in the plane across the line
            // (two components interleaved, over the vectors already read: the same products as in three dimensions).
            let v = buffer.baseAddress!
            let line = v + 3 * Self.windowTicks
            guard let axis = movingVectors(ticks: n, into: v) else { return -1 }
            let (e1, e2) = Self.plane(across: axis)
            let rest = v
            var lineVariance = 0.0
            var restVariance = 0.0
            for i in 0..<n {
                let (x, y, z) = (v[3 * i], v[3 * i + 1], v[3 * i + 2])
                let s = x * axis.0 + y * axis.1 + z * axis.2
                let r1 = x * e1.0 + y * e1.1 + z * e1.2
                let r2 = x * e2.0 + y * e2.1 + z * e2.2
                line[i] = s
                (rest[2 * i], rest[2 * i + 1]) = (r1, r2)
                lineVariance += s * s
                restVariance += r1 * r1 + r2 * r2
            }
            lineVariance /= Double(n)
            restVariance /= 2 * Double(n)  // per component, as `meanProducts` over the interleaved vectors averages
            guard lineVariance > 1e-8, restVariance > 1e-8 else { return -1 }
            // How the rest alternates once a stride while the line repeats each step.
            return Self.alternation(
                of: UnsafePointer(rest), components: 2, count: n, variance: restVariance,
                strides: Self.swayStrides.shortest...Self.swayStrides.longest,
                stepping: Self.stepAutocorrelations(UnsafePointer(line), count: n, variance: lineVariance))
        }
    }

    /// Two unit vectors that with `axis` (a unit vector) make an orthonormal basis.
    private static func plane(across axis: (Double, Double, Double)) -> (
        (Double, Double, Double), (Double, Double, Double)
    ) {
        // Crossed with the coordinate axis least along `axis`, so the cross product is never near zero.
        let (ax, ay, az) = (abs(axis.0), abs(axis.1), abs(axis.2))
        let other = ax <= ay && ax <= az ? (1.0, 0.0, 0.0) : ay <= az ? (0.0, 1.0, 0.0) : (0.0, 0.0, 1.0)
        func cross(_ a: (Double, Double, Double), _ b: (Double, Double, Double)) -> (Double, Double, Double) {
            (a.1 * b.2 - a.2 * b.1, a.2 * b.0 - a.0 * b.2, a.0 * b.1 - a.1 * b.0)
        }
        let c = cross(axis, other)
        let length = (c.0 * c.0 + c.1 * c.1 + c.2 * c.2).squareRoot()
        let e1 = (c.0 / length, c.1 / length, c.2 / length)
        return (e1, cross(axis, e1))
    }

    /// The moving vectors (the component along gravity times gravity, plus the vector across it) of the newest `n`
    /// ticks, mean-free, into `v` (x, y, z interleaved), and the unit direction along which they move most (nil
    /// without motion).
    private func movingVectors(ticks n: Int, into v: UnsafeMutablePointer<Double>) -> (Double, Double, Double)? {
        var mean = (0.0, 0.0, 0.0)
        gravity.withUnsafeBufferPointer { g in
            along.withUnsafeBufferPointer { along in
                across.withUnsafeBufferPointer { across in
                    Self.forEachTick(n, head: head) { i, k in
                        let a = along[k]
                        let x = a * g[3 * k] + across[3 * k]
                        let y = a * g[3 * k + 1] + across[3 * k + 1]
                        let z = a * g[3 * k + 2] + across[3 * k + 2]
                        (v[3 * i], v[3 * i + 1], v[3 * i + 2]) = (x, y, z)
                        mean = (mean.0 + x, mean.1 + y, mean.2 + z)
                    }
                }
            }
        }
        let count = Double(n)
        mean = (mean.0 / count, mean.1 / count, mean.2 / count)
        var m = (xx: 0.0, xy: 0.0, xz: 0.0, yy: 0.0, yz: 0.0, zz: 0.0)
        for i in 0..<n {
            let (x, y, z) = (v[3 * i] - mean.0, v[3 * i + 1] - mean.1, v[3 * i + 2] - mean.2)
            (v[3 * i], v[3 * i + 1], v[3 * i + 2]) = (x, y, z)
            m = (m.xx + x * x, m.xy + x * y, m.xz + x * z, m.yy + y * y, m.yz + y * z, m.zz + z * z)
        }
        guard m.xx + m.yy + m.zz > 1e-8 * count else { return nil }
        // The principal direction by power iteration from the covariance's longest column.
        var u =
            m.xx >= m.yy && m.xx >= m.zz ? (m.xx, m.xy, m.xz) : m.yy >= m.zz ? (m.xy, m.yy, m.yz) : (m.xz, m.yz, m.zz)
        for _ in 0..<Self.powerIterations {
            let length = (u.0 * u.0 + u.1 * u.1 + u.2 * u.2).squareRoot()
            guard length > 0 else { return nil }
            u = (u.0 / length, u.1 / length, u.2 / length)
            u = (
                m.xx * u.0 + m.xy * u.1 + m.xz * u.2, m.xy * u.0 + m.yy * u.1 + m.yz * u.2,
                m.xz * u.0 + m.yz * u.1 + m.zz * u.2
            )
        }
        let length = (u.0 * u.0 + u.1 * u.1 + u.2 * u.2).squareRoot()
        return length > 0 ? (u.0 / length, u.1 / length, u.2 / length) : nil
    }

    /// Power iterations for the principal direction: the ratio of the second to the first eigenvalue to the 32nd
    /// power leaves less than 1 % of the second direction in it when that ratio is under 0.87 (the line of a held
    /// arm holds 0.6-0.95 of the energy); when the two are near equal the motion has no line, and any direction of
    /// that plane says as little.
    static let powerIterations = 32
}
