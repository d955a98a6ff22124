import Foundation
import GRDB
import HTTPTestSupport
import Logging
import TestSupport
import Testing

@testable import Agent
@testable import Ingestion
@testable import Store

/// Each of the receiver's limits (`[receive]` max_header, max_body, idle_timeout, read_timeout, max_connections),
/// over real connections to 127.0.0.1 that send what no HTTP client sends: a head that never ends, a body a byte at a
/// time, nothing at all. Every limit closes the connection, and nothing of a request cut short is stored.
@Suite(.timeLimit(.minutes(1))) struct ReceiverLimitsTests {
    let token = "s3cret-token"

    struct Running {
        let receiver: ReceiverService
        let serving: Task<Void, any Error>
        let port: Int
        let store: StateStore

        func stop() async {
            serving.cancel()
            await receiver.stop()
        }

        func storedReadings() throws -> Int {
            try store.writer.read { db in try ReceivedReadingRecord.fetchCount(db) }
        }
    }

    /// A receiver with small limits read from its configuration, as a user writes them.
    func start(_ dir: TempDir, limits: String) async throws -> Running {
        let config = try AgentConfiguration.parse(
            """
            [receive]
            listen = "127.0.0.1:8788"
            token_env = "RECEIVE_TOKEN"
            \(limits)
            [state]
            path = "state.sqlite"
            """, file: dir.path("config.toml"), environment: ["RECEIVE_TOKEN": token])
        var receive = try #require(config.receive)
        receive.port = 0
        let store = try StateStore(path: config.statePath)
        let receiver = ReceiverService(receive: receive, store: store, logger: Logger(label: "test"))
        let serving = Task { try await receiver.run() }
        try await receiver.waitUntilListening()
        let port = Int(try #require(await receiver.port()))
        return Running(receiver: receiver, serving: serving, port: port, store: store)
    }

    func head(contentLength: Int, extra: String = "") -> String {
        "POST /ingest HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n"
            + "Content-Type: application/json\r\nContent-Length: \(contentLength)\r\n\(extra)\r\n"
    }

    var goodBody: String { String(decoding: ReceiverTests.healthAutoExport(0..<3), as: UTF8.self) }

    @Test func aHeadOverMaxHeaderIsAnswered431AndClosed() async throws {
        let dir = try TempDir()
        let r = try await start(dir, limits: "max_header = 2048")
        let port = r.port
        let (terminated, unterminated) = try await offThePool {
            let one = try RawConnection(port: port)
            one.send("POST /ingest HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: 4096))\r\n\r\n")
            // A head that never ends (the probe's 100 KB): answered at the limit, not read to its end.
            let two = try RawConnection(port: port)
            two.send("POST /ingest HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: 100_000))")
            return (one.readUntilClosed(), two.readUntilClosed())
        }
        for answer in [terminated, unterminated] {
            #expect(answer?.hasPrefix("HTTP/1.1 431") == true, "\(answer ?? "no answer")")
            #expect(answer?.contains("larger than the receiver takes") == true)
        }
        // A head within the limit is served.
        let body = goodBody
        let ok = try await offThePool {
            let c = try RawConnection(port: port)
            c.send(head(contentLength: body.utf8.count, extra: "Connection: close\r\n") + body)
            return c.status()
        }
        #expect(ok == 200)
        await r.stop()
    }

    @Test func aConnectionThatSendsNoHeadIsClosedAfterIdleTimeout() async throws {
        let dir = try TempDir()
        let r = try await start(dir, limits: "idle_timeout = \"1s\"")
        let port = r.port
        let (idle, half) = try await offThePool {
            let idle = try RawConnection(port: port, timeout: 20)
            let half = try RawConnection(port: port, timeout: 20)
            half.send("POST /ingest HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthor")
            return (idle.readUntilClosed(), half.readUntilClosed())
        }
        // Closed with nothing sent (an empty read), not the 20 s the client would wait (nil).
        #expect(idle == "" && half == "")
        await r.stop()
    }

    /// The idle timeout runs again from each answer: a kept-alive connection that sends nothing after its answer is
    /// closed then, not held open for good.
    @Test func aKeptAliveConnectionIsClosedIdleTimeoutAfterItsAnswer() async throws {
        let dir = try TempDir()
        let r = try await start(dir, limits: "idle_timeout = \"1s\"")
        let port = r.port
        let body = goodBody
        let request = head(contentLength: body.utf8.count) + body
        let (answer, closedByPeer) = try await offThePool {
            let c = try RawConnection(port: port, timeout: 8)
            c.send(request)
            // The answer, then the close: at the 1 s idle timeout, not the client's 8 s read timeout.
            let answer = c.readUntilClosed()
            return (answer, c.closedByPeer)
        }
        #expect(answer?.hasPrefix("HTTP/1.1 200") == true, "\(answer ?? "no answer")")
        #expect(closedByPeer, "the connection was still open when the client's 8 s read timeout passed")
        await r.stop()
    }

    @Test func aBodyThatArrivesTooSlowlyIsClosedAfterReadTimeoutAndNothingIsStored() async throws {
        let dir = try TempDir()
        let r = try await start(dir, limits: "idle_timeout = \"5s\"\nread_timeout = \"2s\"")
        let port = r.port
        let body = Array(goodBody.utf8)
        let head = head(contentLength: body.count)
        let sentInFull = try await offThePool {
            let c = try RawConnection(port: port, timeout: 20)
            c.send(head)
            // A byte every 0.2 s: never idle for the 5 s idle timeout, but the body takes far longer than 2 s.
            for byte in body {
                guard c.send([byte]) else { return false }
                Thread.sleep(forTimeInterval: 0.2)
            }
            return true
        }
        // Closed while the body still came (a byte every 0.2 s would take far longer to finish).
        #expect(!sentInFull)
        #expect(try r.storedReadings() == 0)
        await r.stop()
    }

    @Test func anEndlessChunkedBodyIsAnswered413AndClosed() async throws {
        let dir = try TempDir()
        let r = try await start(dir, limits: "max_body = 4096")
        let port = r.port
        let answer = try await offThePool {
            let c = try RawConnection(port: port)
            c.send(
                "POST /ingest HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\nTransfer-Encoding: chunked\r\n\r\n"
            )
            let chunk = "400\r\n" + String(repeating: "a", count: 1024) + "\r\n"
            for _ in 0..<1000 where c.send(chunk) {}
            return c.readUntilClosed()
        }
        #expect(answer?.hasPrefix("HTTP/1.1 413") == true, "\(answer ?? "no answer")")
        #expect(try r.storedReadings() == 0)
        await r.stop()
    }

    /// A connection whose request is arriving is never closed to make room: past `max_connections` the next waits
    /// in the listen queue until it is answered and closes.
    @Test func connectionsOverMaxConnectionsWaitForOneToClose() async throws {
        let dir = try TempDir()
        let r = try await start(dir, limits: "max_connections = 1\nidle_timeout = \"30s\"")
        let port = r.port
        let body = Array(goodBody.utf8)
        let first = self.head(contentLength: body.count) + goodBody
        let head = head(contentLength: body.count, extra: "Connection: close\r\n")
        let request = head + goodBody
        let (early, held, late) = try await offThePool {
            // Answered once, so accepted (and the receiver full) before the phone connects; then a second request
            // whose body is arriving.
            var arriving: RawConnection? = try RawConnection(port: port, timeout: 10)
            arriving?.send(first)
            _ = arriving?.readAnswer()
            arriving?.send(Array(head.utf8) + body.dropLast())
            let phone = try RawConnection(port: port, timeout: 1)
            phone.send(request)
            let early = phone.readUntilClosed()  // nothing while the first request is arriving
            arriving?.send([body.last!])  // its end: answered and closed, so the phone is accepted and served
            let held = arriving?.status()
            arriving = nil
            var late: String?
            for _ in 0..<20 where late == nil { late = phone.readUntilClosed() }
            return (early, held, late)
        }
        #expect(early == nil)
        #expect(held == 200)
        #expect(late?.hasPrefix("HTTP/1.1 200") == true, "\(late ?? "no answer")")
        await r.stop()
    }

    /// Connections that wait for a request's head (silent, slowloris, kept alive after an answer) do not keep a phone
    /// out until their `idle_timeout`: the connection that fills the last place closes the one waiting longest.
    /// Before, with the receiver full of them, a phone waited in the listen queue for the idle timeout (60 s here).
    @Test func aFullReceiverClosesTheConnectionWaitingLongestForAHead() async throws {
        let dir = try TempDir()
        let r = try await start(dir, limits: "max_connections = 3\nidle_timeout = \"60s\"")
        let port = r.port
        let body = goodBody
        let keptAlive = head(contentLength: body.utf8.count) + body
        let closing = head(contentLength: body.utf8.count, extra: "Connection: close\r\n") + body
        let (answered, phone, closedForRoom, newest) = try await offThePool {
            // One connection that never sends, then three answered once (so each was accepted) and silent since.
            let silent = try RawConnection(port: port, timeout: 10)
            var idle: [RawConnection] = []
            var answered: [String?] = []
            for _ in 0..<3 {
                let c = try RawConnection(port: port, timeout: 10)
                c.send(keptAlive)
                answered.append(c.readAnswer())
                idle.append(c)
            }
            let phone = try RawConnection(port: port, timeout: 10)
            phone.send(closing)
            let served = phone.status()
            let closed = [silent.readUntilClosed(), idle[0].readUntilClosed(), idle[1].readUntilClosed()]
            // The one that waited least is still served.
            idle[2].send(closing)
            return (answered, served, closed, idle[2].status())
        }
        #expect(answered.allSatisfy { $0?.hasPrefix("HTTP/1.1 200") == true }, "\(answered)")
        #expect(phone == 200)
        // Closed for room, longest waiting first (empty reads: closed, not timed out).
        #expect(closedForRoom == ["", "", ""], "\(closedForRoom)")
        #expect(newest == 200)
        await r.stop()
    }

    @Test func limitsOutsideTheirRangeAreRefusedNamingTheKey() throws {
        let dir = try TempDir()
        for (line, key) in [
            ("max_header = 10", "receive.max_header"), ("idle_timeout = \"0s\"", "receive.idle_timeout"),
            ("read_timeout = \"2h\"", "receive.read_timeout"), ("max_connections = 0", "receive.max_connections"),
        ] {
            #expect {
                _ = try AgentConfiguration.parse(
                    "[receive]\ntoken_env = \"T\"\n\(line)\n", file: dir.path("c.toml"), environment: ["T": "x"])
            } throws: { "\($0)".contains(key) }
        }
    }

    /// More connections than the descriptor limit can hold: the soft limit is raised as far as the hard one, and
    /// past that fewer connections are served and the warning says which key and what to raise.
    @Test func maxConnectionsAreFittedToTheDescriptorLimit() throws {
        var hard = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &hard)
        var limits = HTTPLimits()
        limits.maxConnections = 100
        #expect(limits.fittedToDescriptors(key: "receive.max_connections").warning == nil)
        guard hard.rlim_max < 1 << 24 else { return }  // an unlimited hard limit cannot be exceeded
        limits.maxConnections = Int(hard.rlim_max) + 10
        let (fitted, warning) = limits.fittedToDescriptors(key: "receive.max_connections")
        #expect(fitted.maxConnections < Int(hard.rlim_max))
        #expect(warning?.contains("receive.max_connections") == true && warning?.contains("LimitNOFILE") == true)
    }
}
