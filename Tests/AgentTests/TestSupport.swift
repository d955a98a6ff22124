import Agent
import FlyingFox
import Foundation
import Messages
import Publishing
@_exported import TestSupport

/// What the loopback endpoint does with the next request.
enum EndpointBehaviour: Sendable {
    case accept
    case status(Int)
    /// Acts on the post (records it) but answers 503, as if the response had been lost.
    case actThenFail
    /// Never answers (until the server stops).
    case hang
}

/// An in-process HTTP endpoint on 127.0.0.1 that records posts and deduplicates them by `Idempotency-Key`,
/// as a target with idempotency keys does.
actor RecordingEndpoint {
    let server: HTTPServer
    private(set) var posts: [(key: String, text: String)] = []
    private(set) var requests = 0
    private var ids: [String: Int] = [:]
    private var script: [EndpointBehaviour]
    private var task: Task<Void, Error>?

    init(script: [EndpointBehaviour] = []) throws {
        self.script = script
        server = HTTPServer(address: try .inet(ip4: "127.0.0.1", port: 0), timeout: 30)
    }

    func start() async throws -> URL {
        await server.appendRoute("POST /posts") { [weak self] request in
            guard let self else { return HTTPResponse(statusCode: .internalServerError) }
            return try await self.handle(request)
        }
        let server = self.server
        task = Task { try await server.run() }
        try await server.waitUntilListening()
        guard case .ip4(_, let port) = await server.listeningAddress else { throw URLError(.cannotConnectToHost) }
        return URL(string: "http://127.0.0.1:\(port)/posts")!
    }

    func stop() async {
        await server.stop(timeout: 0)
        task?.cancel()
    }

    func setScript(_ s: [EndpointBehaviour]) { script = s }

    private func handle(_ request: HTTPRequest) async throws -> HTTPResponse {
        requests += 1
        let behaviour = script.isEmpty ? .accept : script.removeFirst()
        let body = try await request.bodyData
        let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
        let key = request.headers[HTTPHeader("Idempotency-Key")] ?? ""
        switch behaviour {
        case .status(let code):
            return HTTPResponse(statusCode: HTTPStatusCode(code, phrase: "Scripted"))
        case .hang:
            try await Task.sleep(for: .seconds(30))
            return HTTPResponse(statusCode: .ok)
        case .accept, .actThenFail:
            var replayed = true
            if ids[key] == nil {
                posts.append((key, object?["text"] as? String ?? ""))
                ids[key] = posts.count
                replayed = false
            }
            if case .actThenFail = behaviour { return HTTPResponse(statusCode: .serviceUnavailable) }
            return HTTPResponse(statusCode: .ok, headers: [HTTPHeader("Idempotent-Replayed"): replayed ? "true" : "false"],
                                body: Data("{\"id\":\"\(ids[key]!)\"}".utf8))
        }
    }
}

/// A publisher under the test's control.
actor ScriptedPublisher: Publisher {
    nonisolated let name: String
    var outcomes: [DeliveryOutcome]
    private(set) var received: [Post] = []

    init(name: String = "test", outcomes: [DeliveryOutcome] = []) {
        self.name = name
        self.outcomes = outcomes
    }

    func publish(_ post: Post, deadline: Deadline) async -> DeliveryOutcome {
        received.append(post)
        return outcomes.isEmpty ? .delivered(remoteID: "r\(received.count)") : outcomes.removeFirst()
    }
}

enum Fixture {
    /// The committed 60 s walk at 50 Hz (t_ms relative times).
    static var walk: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("fixtures/demo_walk_50hz.csv").path
    }

    static func date(_ text: String) -> Date { Timestamps.parse(text)! }

    /// A configuration reading `source` (relative times anchored at `start`) with state in `dir`.
    static func config(dir: TempDir, source: String? = walk, start: String = "2026-11-21T10:02:00+09:00",
                       extra: String = "", schedule: String = "", publish: String = "") throws -> AgentConfiguration {
        var text = ""
        if let source { text += "[source]\npath = \"\(source)\"\nstart = \"\(start)\"\n\(extra)\n" }
        text += "[schedule]\ninterval = \"10m\"\n\(schedule)\n[text]\ntime_zone = \"Asia/Tokyo\"\n[state]\npath = \"state.sqlite\"\n\(publish)"
        return try AgentConfiguration.parse(text, file: dir.path("config.toml"), environment: [:])
    }
}
