/// SHA-1 (RFC 3174) and HMAC (RFC 2104), enough for OAuth 1.0a `HMAC-SHA1` signatures, which require it, and for
/// the fingerprints that name a stored session by its configured secret (`fingerprint`). Not for anything else.
public enum SHA1 {
    /// The first 64 bits of the digest (of an HMAC keyed with `salt` when given) in hex: names a configured secret in
    /// a storage key without revealing it, so a changed secret gets an entry of its own. A salt (the server and the
    /// account) keeps a password's fingerprint from being looked up in a table made for everyone.
    static func fingerprint(_ secret: String, salt: String? = nil) -> String {
        let bytes = salt.map { hmac(key: Array($0.utf8), message: Array(secret.utf8)) } ?? digest(Array(secret.utf8))
        return bytes.prefix(8).map { String(format: "%02x", $0) }.joined()
    }

    /// The 20-byte digest of `message`.
    public static func digest<Bytes: Collection<UInt8>>(_ message: Bytes) -> [UInt8] {
        var h: (UInt32, UInt32, UInt32, UInt32, UInt32) = (
            0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0
        )
        var data = Array(message)
        let bitLength = UInt64(data.count) * 8
        data.append(0x80)
        while data.count % 64 != 56 { data.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) {
            data.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift)))
        }

        var w = [UInt32](repeating: 0, count: 80)
        for chunk in stride(from: 0, to: data.count, by: 64) {
            for i in 0..<16 {
                let j = chunk + i * 4
                w[i] =
                    UInt32(data[j]) << 24 | UInt32(data[j + 1]) << 16 | UInt32(data[j + 2]) << 8 | UInt32(data[j + 3])
            }
            for i in 16..<80 { w[i] = rotl(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1) }
            var (a, b, c, d, e) = h
            for i in 0..<80 {
                let f: UInt32
                let k: UInt32
                switch i {
                case 0..<20:
                    f = (b & c) | (~b & d)
                    k = 0x5A82_7999
                case 20..<40:
                    f = b ^ c ^ d
                    k = 0x6ED9_EBA1
                case 40..<60:
                    f = (b & c) | (b & d) | (c & d)
                    k = 0x8F1B_BCDC
                default:
                    f = b ^ c ^ d
                    k = 0xCA62_C1D6
                }
                let t = rotl(a, 5) &+ f &+ e &+ k &+ w[i]
                e = d
                d = c
                c = rotl(b, 30)
                b = a
                a = t
            }
            h = (h.0 &+ a, h.1 &+ b, h.2 &+ c, h.3 &+ d, h.4 &+ e)
        }
        return [h.0, h.1, h.2, h.3, h.4].flatMap { v in
            (0..<4).map { UInt8(truncatingIfNeeded: v >> UInt32(24 - 8 * $0)) }
        }
    }

    /// HMAC-SHA1 of `message` with `key` (RFC 2104, block size 64).
    public static func hmac(key: some Collection<UInt8>, message: some Collection<UInt8>) -> [UInt8] {
        var k = Array(key)
        if k.count > 64 { k = digest(k) }
        k += [UInt8](repeating: 0, count: 64 - k.count)
        let inner = digest(k.map { $0 ^ 0x36 } + Array(message))
        return digest(k.map { $0 ^ 0x5C } + inner)
    }

    @inline(__always) static func rotl(_ x: UInt32, _ n: UInt32) -> UInt32 { x << n | x >> (32 - n) }
}
