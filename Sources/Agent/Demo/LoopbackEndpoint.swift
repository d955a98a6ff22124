import FlyingFox
import Foundation
import LoopbackHTTP

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

    let server: HTTPServer
    public private(set) var received: [Received] = []
    public private(set) var requests = 0
    private var failing: Set<Int> = []
    private var task: Task<Void, Error>?

    public init() throws {
        server = HTTPServer(address: try .inet(ip4: "127.0.0.1", port: 0), timeout: 10, logger: .disabled)
    }

    /// Starts listening on an ephemeral port and returns the posts URL.
    public func start() async throws -> URL {
        await server.appendClosingRoute("POST /posts") { [weak self] request in
            guard let self else { return HTTPResponse(statusCode: .serviceUnavailable) }
            let body = try await request.bodyData
            return await self.handle(key: request.headers[HTTPHeader("Idempotency-Key")], body: body)
        }
        let server = self.server
        task = Task { try await server.run() }
        try await server.waitUntilStarted()
        guard case .ip4(_, let port) = await server.listeningAddress else { throw URLError(.cannotConnectToHost) }
        guard let url = URL(string: "http://127.0.0.1:\(port)/posts") else { throw URLError(.badURL) }
        return url
    }

    public func stop() async {
        await server.stop(timeout: 0)
        task?.cancel()
    }

    /// Makes the requests with these numbers (1-based) fail with 503 before anything is kept.
    public func fail(requests numbers: Set<Int>) { failing = numbers }

    func handle(key: String?, body: Data) -> HTTPResponse {
        requests += 1
        if failing.contains(requests) {
            return HTTPResponse(statusCode: .serviceUnavailable, body: Data("{\"error\":\"deliberate failure\"}".utf8))
        }
        guard let key, !key.isEmpty else {
            return HTTPResponse(statusCode: .badRequest, body: Data("{\"error\":\"Idempotency-Key required\"}".utf8))
        }
        let text = ((try? JSONSerialization.jsonObject(with: body)) as? [String: Any])?["text"] as? String ?? ""
        if let existing = received.first(where: { $0.key == key }) {
            return HTTPResponse(
                statusCode: .ok, headers: [HTTPHeader("Idempotent-Replayed"): "true"],
                body: Data("{\"id\":\"\(existing.id)\"}".utf8))
        }
        let entry = Received(id: received.count + 1, key: key, text: text)
        received.append(entry)
        return HTTPResponse(statusCode: .created, body: Data("{\"id\":\"\(entry.id)\"}".utf8))
    }
}
