import Foundation
import HTTPTestSupport
import TestSupport
import Testing

@testable import Agent
@testable import Ingestion

/// Requests in forms that HTTP allows and phones' and scripts' clients send (session 36's audit), over real
/// connections to 127.0.0.1: a body sent only after `100 Continue`, a token in the path percent-encoded, a head of
/// many small header fields.
@Suite(.timeLimit(.minutes(1))) struct ReceiverRequestFormTests {
    let limits = ReceiverLimitsTests()

    /// curl asks for `100 Continue` before a body over 1 MB and waits a second for it; Java's and .NET's clients,
    /// asked to, wait longer. Without it the request waited for the client to give up.
    @Test func aRequestThatExpectsContinueGetsItBeforeItSendsItsBody() async throws {
        let dir = try TempDir()
        let r = try await limits.start(dir, limits: "read_timeout = \"30s\"")
        let port = r.port
        let body = limits.goodBody
        let head = limits.head(contentLength: body.utf8.count, extra: "Expect: 100-continue\r\nConnection: close\r\n")
        let (interim, final) = try await offThePool {
            let c = try RawConnection(port: port, timeout: 5)
            c.send(head)
            let interim = c.readAnswer()
            c.send(body)
            return (interim, c.readUntilClosed())
        }
        #expect(interim?.hasPrefix("HTTP/1.1 100 Continue\r\n") == true, "\(interim ?? "nothing within 5 s")")
        #expect(final?.hasPrefix("HTTP/1.1 200") == true, "\(final ?? "no answer")")
        #expect(try r.storedReadings() == 3)
        await r.stop()
    }

    /// A body announced over max_body gets its 413 at once, not a `100 Continue` that would have it sent for
    /// nothing.
    @Test func aBodyOverMaxBodyIsRefusedBeforeItIsSent() async throws {
        let dir = try TempDir()
        let r = try await limits.start(dir, limits: "max_body = 2048")
        let port = r.port
        let head = limits.head(contentLength: 5000, extra: "Expect: 100-continue\r\n")
        let answer = try await offThePool {
            let c = try RawConnection(port: port, timeout: 5)
            c.send(head)
            return c.readAnswer()
        }
        #expect(answer?.hasPrefix("HTTP/1.1 413") == true, "\(answer ?? "nothing within 5 s")")
        await r.stop()
    }

    /// A token in the path may be percent-encoded, as RFC 3986 makes it the same path (and as a token holding `?`,
    /// `#` or `/` must be); a wrong one is still refused.
    @Test func aTokenInThePathMayComePercentEncoded() async throws {
        let dir = try TempDir()
        let r = try await limits.start(dir, limits: "")
        let port = r.port
        let body = limits.goodBody
        let encoded = limits.token.utf8.map { String(format: "%%%02X", $0) }.joined()
        let requests = ["/ingest/\(limits.token)", "/ingest/\(encoded)", "/ingest/%73wrong"].map { path in
            "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body
        }
        let (plain, percent, wrong) = try await offThePool {
            let statuses = try requests.map { request in
                let c = try RawConnection(port: port)
                c.send(request)
                return c.status()
            }
            return (statuses[0], statuses[1], statuses[2])
        }
        #expect(plain == 200)
        #expect(percent == 200)
        #expect(wrong == 401)
        await r.stop()
    }

    /// A head under max_header's bytes with more header fields than the parser takes is told which limit it
    /// passed, not only that it is "larger".
    @Test func aHeadOfTooManyFieldsIsToldTheLimit() async throws {
        let dir = try TempDir()
        let r = try await limits.start(dir, limits: "")
        let port = r.port
        let fields = (0..<300).map { "X-F\($0): v\r\n" }.joined()
        let answer = try await offThePool {
            let c = try RawConnection(port: port)
            c.send(limits.head(contentLength: 0, extra: fields))
            return c.readUntilClosed()
        }
        #expect(answer?.hasPrefix("HTTP/1.1 431") == true, "\(answer ?? "no answer")")
        #expect(answer?.contains("over max_header (16384 bytes) or over 200 header fields") == true)
        await r.stop()
    }
}
