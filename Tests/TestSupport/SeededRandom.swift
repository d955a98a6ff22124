/// Deterministic pseudo-random numbers (SplitMix64), so every synthetic signal and fuzz-like input is the same on
/// every run.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    public var state: UInt64
    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Roughly normal noise (sum of uniforms), mean 0, standard deviation `sigma`.
    public mutating func noise(_ sigma: Double) -> Double {
        var sum = 0.0
        for _ in 0..<4 { sum += unitInterval() * 2 - 1 }
        return sum * sigma * 0.866
    }

    /// What `Double.random(in: 0...1, using: &self)` gives for the same state, bit for bit, without the generic
    /// path, which unoptimised test builds run an order of magnitude slower: a 53-bit integer in 0...2^53 drawn by
    /// Lemire's method (as `next(upperBound:)` does), times 2^-53.
    mutating func unitInterval() -> Double {
        let upperBound: UInt64 = (1 << 53) + 1
        var m = next().multipliedFullWidth(by: upperBound)
        if m.low < upperBound {
            let t = (0 &- upperBound) % upperBound
            while m.low < t { m = next().multipliedFullWidth(by: upperBound) }
        }
        return m.high == 1 << 53 ? 1 : Double(m.high) * (Double.ulpOfOne / 2)
    }
}
