/// How much of the moving acceleration along gravity is only the projection of a motion that also moves across it
/// (issue #47): the least-squares fit of the component along gravity on the vector across gravity, tick by tick (no
/// lag). A hand that moves along one line tilted from gravity (clapping, brushing teeth) puts a fixed share of that
/// line along gravity, and the motion across gravity predicts all of it; walking's push along gravity (the heel
/// strike, the body's rise and fall, twice a stride) is its own motion, which the arm's swing across gravity (once a
/// stride) does not predict. Sums over mean-free ticks, on the stack; nothing depends on which way the axes point.
struct AlongOnAcross {
    /// Σ c cᵀ (xx, xy, xz, yy, yz, zz) of the vectors across gravity and Σ a c of the component along it.
    private var xx = 0.0, xy = 0.0, xz = 0.0, yy = 0.0, yz = 0.0, zz = 0.0
    private var ax = 0.0, ay = 0.0, az = 0.0

    /// Adds one tick: its mean-free component along gravity and vector across it.
    @inline(__always)
    mutating func add(along a: Double, across c: (Double, Double, Double)) {
        xx += c.0 * c.0
        xy += c.0 * c.1
        xz += c.0 * c.2
        yy += c.1 * c.1
        yz += c.1 * c.2
        zz += c.2 * c.2
        ax += a * c.0
        ay += a * c.1
        az += a * c.2
    }

    /// The share (0-1) of `alongEnergy` (Σ a² over the same ticks) that the fit leaves: 1 when the motion across
    /// gravity says nothing of the component along it, 0 when it says all. The vectors across gravity span only the
    /// plane perpendicular to it (a little more as gravity's estimate moves): a ridge keeps
    /// the fit out of the third direction: there the vectors are only the wobble of gravity's estimate, and a fit
    /// that scaled it up would predict a walk's push along gravity from the arm's swing (the two are locked, one at
    /// twice the other's rate). A ridge of 1 % of their energy leaves any direction that carries less alone.
    func unexplainedShare(alongEnergy: Double) -> Double {
        guard alongEnergy > 1e-12 else { return 1 }
        let ridge = 1e-2 * (xx + yy + zz) + 1e-12
        let (m00, m01, m02, m11, m12, m22) = (xx + ridge, xy, xz, yy + ridge, yz, zz + ridge)
        // The inverse of the symmetric 3×3 matrix by its cofactors (positive definite with the ridge).
        let c00 = m11 * m22 - m12 * m12
        let c01 = m02 * m12 - m01 * m22
        let c02 = m01 * m12 - m02 * m11
        let c11 = m00 * m22 - m02 * m02
        let c12 = m01 * m02 - m00 * m12
        let c22 = m00 * m11 - m01 * m01
        let det = m00 * c00 + m01 * c01 + m02 * c02
        guard det > 0 else { return 1 }
        let w0 = (c00 * ax + c01 * ay + c02 * az) / det
        let w1 = (c01 * ax + c11 * ay + c12 * az) / det
        let w2 = (c02 * ax + c12 * ay + c22 * az) / det
        // Σ (a − w·c)² = Σ a² − 2 w·Σ a c + wᵀ (Σ c cᵀ) w.
        let fitted =
            w0 * (xx * w0 + xy * w1 + xz * w2) + w1 * (xy * w0 + yy * w1 + yz * w2)
            + w2 * (xz * w0 + yz * w1 + zz * w2)
        let left = alongEnergy - 2 * (w0 * ax + w1 * ay + w2 * az) + fitted
        return min(max(left / alongEnergy, 0), 1)
    }
}
