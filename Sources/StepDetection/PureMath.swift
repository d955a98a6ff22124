/// The few elementary functions StepDetection needs, without Foundation or libm (the module stays pure Swift and
/// gives the same bits on every platform).
extension Double {
    /// A gate's ramp: `self` is the distance past the gate's threshold in ramp widths; 0 a half width below it, 1 a
    /// half width above, linear between (the recognizer's gravity gates and the steady-stride path share it).
    @inline(__always)
    var rampedAcrossThreshold: Double { Swift.min(Swift.max(self + 0.5, 0), 1) }

    /// e^self: range reduction by ln 2 and a short series.
    @usableFromInline var exponential: Double {
        if self > 700 { return .infinity }
        if self < -700 { return 0 }
        let ln2 = 0.6931471805599453
        let k = (self / ln2).rounded()
        let r = self - k * ln2  // |r| ≤ ln2 / 2
        var term = 1.0
        var sum = 1.0
        for i in 1...14 {
            term *= r / Double(i)
            sum += term
        }
        return sum * Double(sign: .plus, exponent: Int(k), significand: 1)
    }

    /// 1 − e^−self for self ≥ 0: the exact coefficient of a one-pole low-pass over a time step of `self` time
    /// constants. Jittered timestamps defeat caching it, so steps of up to half a time constant (every rate above
    /// ~40 Hz) take the (3,3) Padé form of e^−x (relative error below 2e-7 there: one division); longer ones the full
    /// exponential.
    @inline(__always)
    var lowPassCoefficient: Double {
        let x = self
        guard x <= 0.5 else { return 1 - (-x).exponential }
        // e^−x ≈ P(−x)/P(x), P(x) = 1 + x/2 + x²/10 + x³/120; so 1 − e^−x = (P(x) − P(−x))/P(x).
        let x2 = x * x
        let odd = x * (1 + x2 * (1.0 / 60))  // (P(x) − P(−x)) / 2 · 2 = x + x³/60
        let p = 1 + x * 0.5 + x2 * 0.1 + x2 * x * (1.0 / 120)
        return odd / p
    }

    /// Natural logarithm: the binary exponent times ln 2 plus a series for the significand.
    @usableFromInline var logarithm: Double {
        guard self > 0, isFinite else { return self == 0 ? -.infinity : .nan }
        let e = Double(exponent)
        let m = significand  // [1, 2)
        // ln m = 2 atanh((m - 1) / (m + 1)), |s| ≤ 1/3
        let s = (m - 1) / (m + 1)
        let s2 = s * s
        var term = s
        var sum = 0.0
        var k = 1.0
        for _ in 0..<12 {
            sum += term / k
            term *= s2
            k += 2
        }
        return e * 0.6931471805599453 + 2 * sum
    }

    /// cos(self): reduced to [−π, π] by whole turns, then the Taylor series to x²⁶ by Horner's rule (the next term is
    /// below 3e-16 there).
    @usableFromInline var cosine: Double {
        guard isFinite else { return .nan }
        let turn = 2 * Double.pi
        let x = self - (self / turn).rounded() * turn
        let x2 = x * x
        // (−1)^k / (2k)! for k = 13 down to 0.
        var sum = -2.4795962632247976e-27
        sum = sum * x2 + 1.6117375710961184e-24
        sum = sum * x2 + -8.896791392450574e-22
        sum = sum * x2 + 4.110317623312165e-19
        sum = sum * x2 + -1.5619206968586225e-16
        sum = sum * x2 + 4.779477332387385e-14
        sum = sum * x2 + -1.1470745597729725e-11
        sum = sum * x2 + 2.08767569878681e-09
        sum = sum * x2 + -2.755731922398589e-07
        sum = sum * x2 + 2.48015873015873e-05
        sum = sum * x2 + -0.001388888888888889
        sum = sum * x2 + 0.041666666666666664
        sum = sum * x2 + -0.5
        sum = sum * x2 + 1.0
        return sum
    }
}
