import TestSupport
import Testing

@testable import SensorInput

/// The one-pass field parser against its definition, and its values against the general number parser, on fields of
/// every length up to and past what it takes, each followed by every kind of byte (the caller checks the byte after
/// the field).
@Suite struct PlainFieldTests {
    /// `plainField` on `bytes` + a newline (the sentinel every buffer has): the value and the bytes taken.
    func plain(_ bytes: [UInt8]) -> (Double?, Int) {
        var buffer = bytes + [0x0A]
        buffer += [UInt8](repeating: 0x37, count: 16)  // digits after the sentinel: a field never runs past it
        return buffer.withUnsafeBufferPointer { b in
            let (value, end) = GenericCSVReader.plainField(b.baseAddress!)
            guard let end else { return (nil, 0) }
            return (value, b.baseAddress!.distance(to: end))
        }
    }

    /// The definition, one digit at a time: an optional '-', digits, an optional '.' and digits; at most 15 digits
    /// with a fraction, 19 without.
    func definition(_ bytes: [UInt8]) -> (Double?, Int) {
        var j = 0
        let negative = bytes.first == 0x2D
        if negative { j += 1 }
        var mantissa: UInt64 = 0
        var digits = 0
        var fraction = 0
        while j < bytes.count, bytes[j] &- 0x30 <= 9 {
            mantissa = mantissa &* 10 &+ UInt64(bytes[j] - 0x30)
            j += 1
            digits += 1
        }
        if j < bytes.count, bytes[j] == 0x2E {
            j += 1
            while j < bytes.count, bytes[j] &- 0x30 <= 9 {
                mantissa = mantissa &* 10 &+ UInt64(bytes[j] - 0x30)
                j += 1
                fraction += 1
            }
            digits += fraction
        }
        guard digits > 0, digits <= (fraction > 0 ? 15 : 19) else { return (nil, 0) }
        var value = Double(mantissa)
        if fraction > 0 { value /= NumberParsing.exactPowerOfTen(fraction) }
        return (negative ? -value : value, j)
    }

    func general(_ text: String) -> Double? {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBufferPointer { NumberParsing.parseDouble($0.baseAddress!, 0, bytes.count) }
    }

    @Test func everyLengthOfIntegerAndFractionIsTakenAsDefined() {
        var rng = SeededRandom(seed: 7)
        func digits(_ n: Int) -> String { String((0..<n).map { _ in Character(String(rng.next() % 10)) }) }
        var compared = 0
        for intLength in 0...21 {
            for fractionLength in [-1] + Array(0...17) {  // -1: no decimal point
                for _ in 0..<3 {
                    var text = (rng.next() % 2 == 0 ? "-" : "") + digits(intLength)
                    if fractionLength >= 0 { text += "." + digits(fractionLength) }
                    // What ends a field, what borders the digits ('/', ':'), bytes that are not ASCII, an exponent.
                    for end: [UInt8] in [
                        [0x2C], [], [0x0D], [0x20], [0x65, 0x33], [0x2E, 0x31], [0x2F], [0x3A], [0xFA], [0xFF, 0x31],
                    ] {
                        let bytes = Array(text.utf8) + end
                        let got = plain(bytes)
                        let want = definition(bytes)
                        #expect(got.0 == want.0 && got.1 == want.1, "\(text) then \(end): \(got) instead of \(want)")
                        if let value = got.0, end.isEmpty {
                            #expect(value == general(text), "\(text)")
                            compared += 1
                        }
                    }
                }
            }
        }
        #expect(compared > 400)  // 474: every length the one-pass path takes
    }

    @Test func examples() {
        #expect(plain(Array("0,".utf8)) == (0, 1))
        #expect(plain(Array("-0.02576,".utf8)) == (-0.02576, 8))
        #expect(plain(Array("12345678,".utf8)) == (12_345_678, 8))
        #expect(plain(Array("1763686800123456789".utf8)) == (Double(1_763_686_800_123_456_789 as Int64), 19))
        #expect(plain(Array("17636868001234567890".utf8)).0 == nil)  // 20 digits
        #expect(plain(Array("0.1234567890123456".utf8)).0 == nil)  // 17 digits with a fraction
        #expect(plain(Array("-,".utf8)).0 == nil)
    }
    /// The sample time's rounding (no libm call) is `Int64(x.rounded())` everywhere it is used: ties either side
    /// of zero, the neighbours of every tie, values around 2^52 and 2^53 where Doubles become integers, the range's
    /// ends and random times in ns, µs and ms.
    @Test func sampleTimesRoundHalfAwayFromZeroLikeRounded() {
        var values: [Double] = [
            0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999999999999994, -0.49999999999999994,
            4503599627370495.5, -4503599627370495.5, 4_503_599_627_370_496, 9_007_199_254_740_992,
            9_007_199_254_740_994,
            9.1e18, -9.1e18, 9.199999999999999e18, -9.199999999999999e18,
        ]
        for k in 0..<2000 {
            let tie = Double(k) - 1000 + 0.5
            values += [tie, tie.nextUp, tie.nextDown]
        }
        var rng = SeededRandom(seed: 11)
        for _ in 0..<20000 {
            let t = Double(rng.next() % 2_000_000_000_000) / 1000  // ms with three decimals
            values += [t * 1e6, t * 1e3, -t * 1e6, Double(rng.next() >> 2) * (rng.next() % 2 == 0 ? 1 : -1)]
        }
        var compared = 0
        for x in values where x > -9.2e18 && x < 9.2e18 {
            #expect(SampleConversion.roundedHalfAway(x) == Int64(x.rounded()), "\(x)")
            compared += 1
        }
        #expect(compared > 80_000)
    }
}
