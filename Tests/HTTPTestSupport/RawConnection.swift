import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A TCP connection to 127.0.0.1 that sends bytes as given: what no HTTP client sends (heads without an end, bodies a
/// byte at a time, malformed request lines), for the tests of a server's limits. Blocking: call it off the pool.
public final class RawConnection: @unchecked Sendable {
    let fd: Int32
    /// Whether the last `readUntilClosed` ended because the server closed or reset the connection, not because the
    /// read timeout passed: what a test of a server's timeouts asserts instead of the wall time, which a loaded
    /// machine stretches.
    public private(set) var closedByPeer = false

    /// Connects to 127.0.0.1:`port`; reads wait at most `timeout`.
    public init(port: Int, timeout: TimeInterval = 10) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(fd)
            throw POSIXError(.ECONNREFUSED)
        }
        var wait = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    /// Sends `bytes`; false when the server has closed or reset the connection.
    @discardableResult public func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    @discardableResult public func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// What the server sends until it closes the connection or `timeout` (set at connecting) passes; nil when it
    /// sent nothing and did not close (the timeout passed).
    public func readUntilClosed() -> String? {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        closedByPeer = false
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                received += buffer[0..<count]
            } else if count == 0 || errno == ECONNRESET {
                closedByPeer = true
                return String(decoding: received, as: UTF8.self)
            } else {
                return received.isEmpty ? nil : String(decoding: received, as: UTF8.self)
            }
        }
    }

    /// One answer, head and body (by its Content-Length), leaving the connection open for the next request; nil when
    /// the server closed or the timeout passed before it was whole.
    public func readAnswer() -> String? {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let text = String(decoding: received, as: UTF8.self)
            if let end = text.range(of: "\r\n\r\n") {
                let length =
                    text[..<end.lowerBound].split(separator: "\r\n")
                    .first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst(15).trimmingCharacters(in: .whitespaces)) } ?? 0
                if text.utf8.count - text[..<end.upperBound].utf8.count >= length { return text }
            }
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return nil }
            received += buffer[0..<count]
        }
    }

    /// The status code of the first answer the server sends, or nil when it sends none (closed or timed out).
    public func status() -> Int? {
        guard let answer = readUntilClosed(), answer.hasPrefix("HTTP/1.1 ") else { return nil }
        return Int(answer.dropFirst(9).prefix(3))
    }
}
