import Foundation
import HTTPTypes
import Hummingbird
import Ingestion
import Logging

/// An in-process HTTP endpoint on 127.0.0.1 that accepts JSON posts at `/posts`, keeps each idempotency key once
/// (answering `Idempotent-Replayed: true` for repeats) and can be told to fail the next requests with 503.
/// The demo posts to it; it never listens on another interface.
public actor LoopbackEndpoint {
    /// One post the endpoint keeps.
    public struct Received: Sendable, Equatable {
        public var id: Int
        public var key: String
        public var text: String
    }

    private var server: LimitedHTTPServer?
    public private(set) var received: [Received] = []
    public private(set) var requests = 0
    private var failing: Set<Int> = []
    private var task: Task<Void, Error>?

    public init() {}

    /// Starts listening on an ephemeral port and returns the posts URL.
    public func start() async throws -> URL {
        let router = Router()
        router.post("posts") { [weak self] request, _ in
            guard let self else { return HTTPAnswer(status: .serviceUnavailable).response }
            let body = try await HTTPServing.body(of: request, upTo: HTTPLimits.loopback.maxBody) ?? []
            let key = request.headers[HTTPField.Name("Idempotency-Key")!]
            return await self.handle(key: key, body: Data(body)).response
        }
        let server = LimitedHTTPServer(
            name: "demo endpoint", host: "127.0.0.1", port: 0, limits: .loopback, responder: router.buildResponder(),
            logger: Logger(label: "steptweet.demo"))
        self.server = server
        task = Task { try await server.run() }
        let port = try await server.waitUntilListening()
        guard let url = URL(string: "http://127.0.0.1:\(port)/posts") else { throw URLError(.badURL) }
        return url
    }

    /// Stops gracefully and waits until the server has: cancelling it mid-shutdown made Hummingbird log two errors
    /// ("Waiting on child channel: CancellationError()", "Server shutdown error: Already closed") at the end of a
    /// newcomer's first `make demo`.
    public func stop() async {
        await server?.stop()
        _ = try? await task?.value
    }

    /// Makes the requests with these numbers (1-based) fail with 503 before anything is kept.
    public func fail(requests numbers: Set<Int>) { failing = numbers }

    /// What the endpoint reads of a post's JSON body.
    private struct PostBody: Decodable {
        let text: String?
    }

    func handle(key: String?, body: Data) -> HTTPAnswer {
        requests += 1
        if failing.contains(requests) {
            return HTTPAnswer(status: .serviceUnavailable, body: Data("{\"error\":\"deliberate failure\"}".utf8))
        }
        guard let key, !key.isEmpty else {
            return HTTPAnswer(status: .badRequest, body: Data("{\"error\":\"Idempotency-Key required\"}".utf8))
        }
        let text = (try? JSONDecoder().decode(PostBody.self, from: body))?.text ?? ""
        if let existing = received.first(where: { $0.key == key }) {
            return HTTPAnswer(
                status: .ok, headerFields: [HTTPField.Name("Idempotent-Replayed")!: "true"],
                body: Data("{\"id\":\"\(existing.id)\"}".utf8))
        }
        let entry = Received(id: received.count + 1, key: key, text: text)
        received.append(entry)
        return HTTPAnswer(status: .created, body: Data("{\"id\":\"\(entry.id)\"}".utf8))
    }
}
