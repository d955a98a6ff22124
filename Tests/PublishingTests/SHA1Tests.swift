import Foundation
import Testing

@testable import Publishing

func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

@Suite struct SHA1Tests {
    // RFC 3174 §7.3 test cases (TEST1, TEST2, TEST3 = a million 'a', TEST4).
    @Test(arguments: [
        ("abc", 1, "a9993e364706816aba3e25717850c26c9cd0d89d"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 1, "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
        ("a", 1_000_000, "34aa973cd4c4daa4f61eeb2bdbad27316534016f"),
        (
            "0123456701234567012345670123456701234567012345670123456701234567", 10,
            "dea356a2cddd90c7a7ecedc5ebb563934f460452"
        ),
        ("", 1, "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
    ])
    func rfc3174(message: String, repeats: Int, expected: String) {
        let bytes = [UInt8](repeating: 0, count: 0) + Array(String(repeating: message, count: repeats).utf8)
        #expect(hex(SHA1.digest(bytes)) == expected)
    }

    @Test func lengthsAroundThePaddingBoundary() {
        // 55, 56 and 64 bytes take one, two and two blocks after padding; digests from Python's hashlib.
        #expect(
            hex(SHA1.digest(Array(String(repeating: "a", count: 55).utf8)))
                == "c1c8bbdc22796e28c0e15163d20899b65621d65a")
        #expect(
            hex(SHA1.digest(Array(String(repeating: "a", count: 56).utf8)))
                == "c2db330f6083854c99d4b5bfb6e8f29f201be699")
        #expect(
            hex(SHA1.digest(Array(String(repeating: "a", count: 64).utf8)))
                == "0098ba824b5c16427bd7a1122a5a442a25ec644d")
    }

    // RFC 2202 §3 HMAC-SHA1 test cases 1, 2, 3, 6 and 7.
    @Test func rfc2202() {
        #expect(
            hex(SHA1.hmac(key: [UInt8](repeating: 0x0b, count: 20), message: Array("Hi There".utf8)))
                == "b617318655057264e28bc0b6fb378c8ef146be00")
        #expect(
            hex(SHA1.hmac(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8)))
                == "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79")
        #expect(
            hex(SHA1.hmac(key: [UInt8](repeating: 0xaa, count: 20), message: [UInt8](repeating: 0xdd, count: 50)))
                == "125d7342b9ac11cd91a39af48aa17b4f63f175d3")
        #expect(
            hex(
                SHA1.hmac(
                    key: [UInt8](repeating: 0xaa, count: 80),
                    message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)))
                == "aa4ae5e15272d00e95705637ce8a3b55ed402112")
        #expect(
            hex(
                SHA1.hmac(
                    key: [UInt8](repeating: 0xaa, count: 80),
                    message: Array("Test Using Larger Than Block-Size Key and Larger Than One Block-Size Data".utf8)))
                == "e8e99d0f45237d786d6bbaa7965c7808bbff1a91")
    }
}
