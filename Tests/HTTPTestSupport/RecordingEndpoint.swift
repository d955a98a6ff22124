import FlyingFox
import Foundation

/// What the loopback endpoint does with the next request.
public enum EndpointBehaviour: Sendable {
    case accept
    case status(Int)
    /// Answers 429 with this `Retry-After` value, as given (a rate limit; a server's wish, however large).
    case tooManyRequests(retryAfter: String)
    /// Acts on the post (records it) but answers 503, as if the response had been lost.
    case actThenFail
    /// Never answers (until the server stops).
    case hang
    /// Waits until the test calls `release()`, then records the post and answers as `accept` does (an answer that
    /// comes after something else happened: the agent told to stop).
    case holdUntilReleased
}

/// An in-process HTTP endpoint on 127.0.0.1 that records posts and deduplicates them by `Idempotency-Key`,
/// as a target with idempotency keys does.
public actor RecordingEndpoint {
    public let server: HTTPServer
    public private(set) var posts: [(key: String, text: String)] = []
    public private(set) var requests = 0
    private var ids: [String: Int] = [:]
    private var script: [EndpointBehaviour]
    private var task: Task<Void, Error>?
    private var requestWaiters: [CheckedContinuation<Void, Never>] = []
    private var held: [CheckedContinuation<Void, Never>] = []
    private var released = false

    public init(script: [EndpointBehaviour] = []) throws {
        self.script = script
        server = HTTPServer(address: try .inet(ip4: "127.0.0.1", port: 0), timeout: 30, logger: .disabled)
    }

    public func start() async throws -> URL {
        await server.appendClosingRoute("POST /posts") { [weak self] request in
            guard let self else { return HTTPResponse(statusCode: .internalServerError) }
            return try await self.handle(request)
        }
        let server = self.server
        task = Task { try await server.run() }
        try await server.waitUntilStarted()
        guard case .ip4(_, let port) = await server.listeningAddress else { throw URLError(.cannotConnectToHost) }
        return URL(string: "http://127.0.0.1:\(port)/posts")!
    }

    public func stop() async {
        await server.stop(timeout: 0)
        task?.cancel()
    }

    /// Returns once the endpoint has received a request (at once if it already has): a test awaits the event
    /// instead of polling.
    public func received() async {
        if requests > 0 { return }
        await withCheckedContinuation { requestWaiters.append($0) }
    }

    public func setScript(_ s: [EndpointBehaviour]) { script = s }

    /// Lets every `holdUntilReleased` request, held now or later, go on.
    public func release() {
        released = true
        held.forEach { $0.resume() }
        held = []
    }

    private func handle(_ request: HTTPRequest) async throws -> HTTPResponse {
        requests += 1
        requestWaiters.forEach { $0.resume() }
        requestWaiters = []
        let behaviour = script.isEmpty ? .accept : script.removeFirst()
        let body = try await request.bodyData
        let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
        let key = request.headers[HTTPHeader("Idempotency-Key")] ?? ""
        switch behaviour {
        case .status(let code):
            return HTTPResponse(statusCode: HTTPStatusCode(code, phrase: "Scripted"))
        case .tooManyRequests(let retryAfter):
            var headers = HTTPHeaders()
            headers[HTTPHeader("Retry-After")] = retryAfter
            return HTTPResponse(statusCode: .tooManyRequests, headers: headers)
        case .hang:
            try await Task.sleep(for: .seconds(30))
            return HTTPResponse(statusCode: .ok)
        case .holdUntilReleased:
            if !released { await withCheckedContinuation { held.append($0) } }
            return accept(key: key, text: object?["text"] as? String ?? "", failing: false)
        case .accept, .actThenFail:
            let failing: Bool
            if case .actThenFail = behaviour { failing = true } else { failing = false }
            return accept(key: key, text: object?["text"] as? String ?? "", failing: failing)
        }
    }

    /// Records a post once per idempotency key and answers 200 with its id (503 when `failing`: acted on, the answer
    /// lost).
    private func accept(key: String, text: String, failing: Bool) -> HTTPResponse {
        var replayed = true
        if ids[key] == nil {
            posts.append((key, text))
            ids[key] = posts.count
            replayed = false
        }
        if failing { return HTTPResponse(statusCode: .serviceUnavailable) }
        return HTTPResponse(
            statusCode: .ok, headers: [HTTPHeader("Idempotent-Replayed"): replayed ? "true" : "false"],
            body: Data("{\"id\":\"\(ids[key]!)\"}".utf8))
    }
}
