import Agent
import Foundation
import Ingestion
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite(.timeLimit(.minutes(1))) struct PushListenerTests {
    func send(_ port: UInt16, method: String = "POST", path: String = "/push", token: String?, body: String)
        async throws -> Int
    {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if method == "POST" { request.httpBody = Data(body.utf8) }
        let (_, response) = try await URLSession.shared.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }

    @Test func acceptsOnlyTokenBearingSilentPushesOnLoopback() async throws {
        let dir = try TempDir()
        let config = try AgentConfiguration.parse(
            "[source]\npath = \"w.csv\"\n[schedule]\ninterval = \"1h\"\njitter = \"0s\"\n[state]\npath = \"s.sqlite\"\n",
            file: dir.path("c.toml"), environment: [:])
        let clock = ManualClock(Fixture.date("2026-11-21T10:00:00Z"))
        let recorder = FetchRecorder()
        let scheduler = AgentScheduler(configuration: config, clock: clock.wall, random: { 0 }) {
            await recorder.fetch($0, $1)
        }
        let loop = Task { await scheduler.run() }
        let listener = PushListener(port: 0, token: "s3cret", scheduler: scheduler)
        let server = Task { try await listener.run() }
        try await listener.waitUntilListening()
        let address = try #require(await listener.address())
        #expect(address.host == "127.0.0.1")
        let port = address.port
        let push = #"{"aps":{"content-available":1}}"#

        #expect(try await send(port, token: nil, body: push) == 401)
        #expect(try await send(port, token: "wrong", body: push) == 401)
        #expect(try await send(port, token: "s3cret", body: #"{"aps":{"alert":"hi"}}"#) == 400)
        #expect(try await send(port, token: "s3cret", body: "not json") == 400)
        #expect(try await send(port, method: "GET", token: "s3cret", body: "") == 405)
        #expect(try await send(port, method: "GET", path: "/other", token: "s3cret", body: "") == 404)
        await scheduler.waitUntilIdle()
        #expect(await recorder.calls.isEmpty)

        #expect(try await send(port, token: "s3cret", body: push) == 202)
        await scheduler.waitUntilIdle(fetches: 1)
        #expect(await recorder.calls.map(\.trigger) == ["push"])

        // Cancelling the serving task ends it at once; `stop()` alone gives in-flight requests up to 1 s.
        server.cancel()
        await listener.stop()
        await scheduler.shutdown()
        await loop.value
    }

    /// The push listener is served with the loopback limits (`HTTPLimits.loopback`): a head over its 8 KB is answered
    /// 431 and closed, where the receiver's default of 16 KB would take it; a head within them is served.
    @Test func aHeadOverTheLoopbackLimitIsAnswered431() async throws {
        let dir = try TempDir()
        let config = try AgentConfiguration.parse(
            "[source]\npath = \"w.csv\"\n[schedule]\ninterval = \"1h\"\n[state]\npath = \"s.sqlite\"\n",
            file: dir.path("c.toml"), environment: [:])
        let recorder = FetchRecorder()
        let scheduler = AgentScheduler(configuration: config, random: { 0 }) { await recorder.fetch($0, $1) }
        let listener = PushListener(port: 0, token: "s3cret", scheduler: scheduler)
        let server = Task { try await listener.run() }
        try await listener.waitUntilListening()
        let port = Int(try #require(await listener.address()).port)
        let (large, small) = try await offThePool {
            let large = try RawConnection(port: port)
            large.send("POST /push HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: 9000))\r\n\r\n")
            let small = try RawConnection(port: port)
            small.send(
                "GET /push HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: 6000))\r\nConnection: close\r\n\r\n"
            )
            return (large.readUntilClosed(), small.status())
        }
        #expect(large?.hasPrefix("HTTP/1.1 431") == true, "\(large ?? "no answer")")
        #expect(small == 405)
        server.cancel()
        await listener.stop()
    }
}
