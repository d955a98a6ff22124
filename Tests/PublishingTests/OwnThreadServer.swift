import Foundation
import Synchronization
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// An HTTP server on 127.0.0.1 that answers from a thread of its own: for each connection it reads one request,
/// stays silent for `silence` of real time, answers 200 with `body` (JSON) and closes. The test stops it (`stop()`);
/// it also stops by itself once no connection has come for `idleLimit` (10 minutes: the test's own task can wait
/// a minute and more for a thread of the cooperative pool on a loaded machine before it sends its request, and a
/// server that gave up after 60 s refused it).
///
/// For a test whose point is a silence of real time. `LoopbackServer` (FlyingFox) runs on the cooperative pool, one
/// thread per core, which other suites' detector loops can hold for seconds on a loaded machine: its answer then
/// comes after the silence plus that wait, and URLSession's idle timeout counts both. This server waits only for the
/// kernel's scheduler, so its silence lasts what the test says.
final class OwnThreadServer: Sendable {
    let port: UInt16
    private let answers = Mutex(0)
    private let ending = Mutex<String?>(nil)
    private let listening: Int32

    init(silence: Duration, body: String, idleLimit: Duration = .seconds(600)) {
        let (fd, port) = LoopbackPort.boundSocket()
        self.port = port
        listening = fd
        if fd < 0 || listen(fd, 8) != 0 { ending.withLock { $0 = "no socket: \(String(cString: strerror(errno)))" } }
        let answer = Array(
            ("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n"
                + "Connection: close\r\n\r\n" + body).utf8)
        let thread = Thread { [self] in
            var why = "no connection for \(idleLimit)"
            while Self.readable(fd, within: idleLimit, why: &why) {
                let client = accept(fd, nil, nil)
                guard client >= 0 else {
                    if errno == EINTR { continue }
                    why = self.stopped ?? "accept failed: \(String(cString: strerror(errno)))"
                    break
                }
                if Self.readRequest(client) {
                    Thread.sleep(forTimeInterval: silence.timeInterval)
                    let sent = answer.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    if sent == answer.count { self.answers.withLock { $0 += 1 } }
                }
                close(client)
            }
            close(fd)
            self.ending.withLock { $0 = $0 ?? why }
        }
        thread.name = "steptweet-test-own-thread-server"
        thread.start()
    }

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Stops listening: the server's thread wakes, closes its socket and ends.
    func stop() {
        ending.withLock { $0 = $0 ?? "stopped by the test" }
        shutdown(listening, Int32(SHUT_RDWR))
    }

    /// The requests answered in full so far.
    var answered: Int { answers.withLock { $0 } }

    /// Why the server stopped listening, or nil while it listens: what a failing test prints, so that a refused
    /// connection says whether the server gave up (and why) or was never reached.
    var stopped: String? { ending.withLock { $0 } }

    /// Whether `fd` has something to read (a connection, bytes, its end) within `limit`. A signal that interrupts
    /// the wait (`EINTR`) is not an answer: the wait goes on, or the server would close its socket and the test's
    /// request be refused.
    private static func readable(_ fd: Int32, within limit: Duration) -> Bool {
        var why = ""
        return readable(fd, within: limit, why: &why)
    }

    /// `readable(_:within:)`, saying in `why` what ended the wait when nothing can be read (a poll error, or a
    /// socket closed under the server: `POLLNVAL` when some other code closed its descriptor).
    private static func readable(_ fd: Int32, within limit: Duration, why: inout String) -> Bool {
        var request = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        var ready = poll(&request, 1, Int32(limit.timeInterval * 1000))
        while ready < 0 && errno == EINTR { ready = poll(&request, 1, Int32(limit.timeInterval * 1000)) }
        if ready < 0 { why = "poll failed: \(String(cString: strerror(errno)))" }
        if ready == 1 && request.revents & Int16(POLLNVAL) != 0 {
            why = "its socket was closed by other code (POLLNVAL)"
            return false
        }
        return ready == 1
    }

    /// Reads one request, its head and a body of its `Content-Length`; false when the client closes first or sends
    /// nothing for 30 s.
    private static func readRequest(_ client: Int32) -> Bool {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        let headEnd = Array("\r\n\r\n".utf8)
        while readable(client, within: .seconds(30)) {
            let count = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
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
