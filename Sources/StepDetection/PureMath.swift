/// The few elementary functions StepDetection needs, without Foundation or libm (the module stays pure Swift and
/// gives the same bits on every platform).
extension Double {
    /// e^self: range reduction by ln 2 and a short series.
    @usableFromInline var exponential: Double {
        if self > 700 { return .infinity }
        if self < -700 { return 0 }
        let ln2 = 0.6931471805599453
        let k = (self / ln2).rounded()
        let r = self - k * ln2  // |r| ≤ ln2 / 2
        var term = 1.0, sum = 1.0
        for i in 1...14 { term *= r / Double(i); sum += term }
        return sum * Double(sign: .plus, exponent: Int(k), significand: 1)
    }

    /// Natural logarithm: the binary exponent times ln 2 plus a series for the significand.
    @usableFromInline var logarithm: Double {
        guard self > 0, isFinite else { return self == 0 ? -.infinity : .nan }
        let e = Double(exponent)
        let m = significand  // [1, 2)
        // ln m = 2 atanh((m - 1) / (m + 1)), |s| ≤ 1/3
        let s = (m - 1) / (m + 1), s2 = s * s
        var term = s, sum = 0.0
        var k = 1.0
        for _ in 0..<12 { sum += term / k; term *= s2; k += 2 }
        return e * 0.6931471805599453 + 2 * sum
    }

    /// cos self, for self in [0, π]: the series of −sin around π/2.
    var cosineOnHalfTurn: Double {
        let t = self - Double.pi / 2
        let t2 = t * t
        var term = t, sum = 0.0
        var k = 1.0
        for _ in 0..<12 { sum += term; term *= -t2 / ((k + 1) * (k + 2)); k += 2 }
        return -sum
    }

    /// acos self in degrees, for self in [−1, 1], by bisection on the cosine (to about 1e-10 degrees).
    var arcCosineDegrees: Double {
        let c = Swift.min(1, Swift.max(-1, self))
        var lo = 0.0, hi = Double.pi
        for _ in 0..<44 {
            let mid = (lo + hi) / 2
            if mid.cosineOnHalfTurn > c { lo = mid } else { hi = mid }
        }
        return (lo + hi) / 2 * 180 / Double.pi
    }
}
