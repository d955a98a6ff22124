import Foundation
import Synchronization
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// An HTTP server on 127.0.0.1 that answers from a thread of its own: for each connection it reads one request,
/// stays silent for `silence` of real time, answers 200 with `body` (JSON) and closes. It stops by itself once no
/// connection has come for `idleLimit`.
///
/// For a test whose point is a silence of real time. `LoopbackServer` (FlyingFox) runs on the cooperative pool, one
/// thread per core, which other suites' detector loops can hold for seconds on a loaded machine: its answer then
/// comes after the silence plus that wait, and URLSession's idle timeout counts both. This server waits only for the
/// kernel's scheduler, so its silence lasts what the test says.
final class OwnThreadServer: Sendable {
    let port: UInt16
    private let answers = Mutex(0)

    init(silence: Duration, body: String, idleLimit: Duration = .seconds(60)) {
        let (fd, port) = LoopbackPort.boundSocket()
        self.port = port
        listen(fd, 8)
        let answer = Array(
            ("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n"
                + "Connection: close\r\n\r\n" + body).utf8)
        let thread = Thread { [self] in
            while Self.readable(fd, within: idleLimit) {
                let client = accept(fd, nil, nil)
                guard client >= 0 else { break }
                if Self.readRequest(client) {
                    Thread.sleep(forTimeInterval: silence.timeInterval)
                    let sent = answer.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    if sent == answer.count { self.answers.withLock { $0 += 1 } }
                }
                close(client)
            }
            close(fd)
        }
        thread.name = "steptweet-test-own-thread-server"
        thread.start()
    }

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// The requests answered in full so far.
    var answered: Int { answers.withLock { $0 } }

    /// Whether `fd` has something to read (a connection, bytes, its end) within `limit`.
    private static func readable(_ fd: Int32, within limit: Duration) -> Bool {
        var request = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&request, 1, Int32(limit.timeInterval * 1000)) == 1
    }

    /// Reads one request, its head and a body of its `Content-Length`; false when the client closes first or sends
    /// nothing for 30 s.
    private static func readRequest(_ client: Int32) -> Bool {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        let headEnd = Array("\r\n\r\n".utf8)
        while readable(client, within: .seconds(30)) {
            let count = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return false }
            received += buffer[0..<count]
            guard let end = received.indices.first(where: { received[$0...].starts(with: headEnd) }) else { continue }
            let head = String(decoding: received[..<end], as: UTF8.self).lowercased()
            let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) }
            if received.count >= end + headEnd.count + (length ?? 0) { return true }
        }
        return false
    }
}
