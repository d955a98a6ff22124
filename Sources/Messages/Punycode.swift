/// RFC 3492 Punycode and the IDNA ToASCII form of a domain label, as far as twitter-text needs them: the length a
/// label has on the wire decides whether a host is valid (at most 63 per label).
public enum Punycode {
    static let base = 36, tmin = 1, tmax = 26, skew = 38, damp = 700, initialBias = 72, initialN: UInt32 = 128

    /// `input` encoded per RFC 3492 §6.3 (without the `xn--` prefix): `bücher` → `bcher-kva`. Nil on overflow.
    public static func encode(_ input: some Sequence<Unicode.Scalar>) -> String? {
        let code = input.map(\.value)
        var output = code.filter { $0 < 0x80 }.map { Character(Unicode.Scalar($0)!) }
        let basic = output.count
        var handled = basic
        if basic > 0 { output.append("-") }
        var n = initialN
        var delta = 0
        var bias = initialBias
        while handled < code.count {
            guard let m = code.filter({ $0 >= n }).min() else { break }
            let (step, overflow) = Int(m - n).multipliedReportingOverflow(by: handled + 1)
            guard !overflow else { return nil }
            delta += step
            n = m
            for c in code {
                if c < n { delta += 1 }
                if c == n {
                    var q = delta
                    var k = base
                    while true {
                        let t = k <= bias ? tmin : (k >= bias + tmax ? tmax : k - bias)
                        if q < t { break }
                        output.append(digit(t + (q - t) % (base - t)))
                        q = (q - t) / (base - t)
                        k += base
                    }
                    output.append(digit(q))
                    bias = adapt(delta, points: handled + 1, first: handled == basic)
                    delta = 0
                    handled += 1
                }
            }
            delta += 1
            n += 1
        }
        return String(output)
    }

    /// The ToASCII form of one label: itself when ASCII (lower-cased), else `xn--` and its Punycode after
    /// lower-casing and NFKC (a short form of nameprep).
    public static func asciiLabel(_ label: some StringProtocol) -> String? {
        let prepared = String(label).lowercased().precomposedStringWithCompatibilityMapping
        if prepared.unicodeScalars.allSatisfy(\.isASCII) { return prepared }
        return encode(prepared.unicodeScalars).map { "xn--" + $0 }
    }

    static func adapt(_ delta: Int, points: Int, first: Bool) -> Int {
        var delta = first ? delta / damp : delta / 2
        delta += delta / points
        var k = 0
        while delta > ((base - tmin) * tmax) / 2 {
            delta /= base - tmin
            k += base
        }
        return k + (base - tmin + 1) * delta / (delta + skew)
    }

    static func digit(_ d: Int) -> Character {
        Character(Unicode.Scalar(UInt8(d < 26 ? 97 + d : 22 + d)))
    }
}
