import FlyingFox
import FlyingSocks
import Foundation

/// A request as the test server saw it.
public struct SeenRequest: Sendable {
    public var method: String
    public var path: String
    public var query: [String: String]
    /// Lower-cased names.
    public var headers: [String: String]
    public var body: Data

    public init(method: String, path: String, query: [String: String], headers: [String: String], body: Data) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }

    public var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] }
    public var text: String { String(decoding: body, as: UTF8.self) }
}

/// Keeps what the server received, in order.
public actor RequestLog {
    public private(set) var requests: [SeenRequest] = []
    public init() {}
    public func append(_ request: SeenRequest) -> Int {
        requests.append(request)
        return requests.count
    }
}

/// An in-process FlyingFox server on 127.0.0.1 with an ephemeral port; `handler` gets each request and its
/// 1-based number.
public final class LoopbackServer: Sendable {
    let server: HTTPServer
    let task: Task<Void, Error>
    let port: UInt16
    let log: RequestLog

    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }
    public func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    private init(server: HTTPServer, task: Task<Void, Error>, port: UInt16, log: RequestLog) {
        self.server = server
        self.task = task
        self.port = port
        self.log = log
    }

    public static func start(_ handler: @escaping @Sendable (SeenRequest, Int) async throws -> HTTPResponse)
        async throws -> LoopbackServer
    {
        let log = RequestLog()
        let server = HTTPServer(address: try .inet(ip4: "127.0.0.1", port: 0), timeout: 30, logger: .disabled)
        await server.appendClosingRoute("/*") { request in
            var headers: [String: String] = [:]
            for (name, value) in request.headers { headers[name.rawValue.lowercased()] = value }
            var query: [String: String] = [:]
            for item in request.query { query[item.name] = item.value }
            let seen = SeenRequest(
                method: request.method.rawValue, path: request.path, query: query, headers: headers,
                body: try await request.bodyData)
            let number = await log.append(seen)
            return try await handler(seen, number)
        }
        let task = Task { try await server.run() }
        try await server.waitUntilStarted()
        guard case .ip4(_, let port) = await server.listeningAddress else {
            task.cancel()
            throw URLError(.cannotConnectToHost)
        }
        return LoopbackServer(server: server, task: task, port: port, log: log)
    }

    public var requests: [SeenRequest] {
        get async { await log.requests }
    }

    public func stop() async {
        task.cancel()
        await server.stop(timeout: 0)
    }
}

/// A JSON response.
public func jsonResponse(_ status: Int, _ object: Any, headers: [String: String] = [:]) -> HTTPResponse {
    var h = HTTPHeaders()
    h[HTTPHeader("Content-Type")] = "application/json"
    for (name, value) in headers { h[HTTPHeader(name)] = value }
    let body = (try? JSONSerialization.data(withJSONObject: object)) ?? Data()
    return HTTPResponse(statusCode: HTTPStatusCode(status, phrase: "Status \(status)"), headers: h, body: body)
}

/// A plain-text response.
public func textResponse(_ status: Int, _ text: String, headers: [String: String] = [:]) -> HTTPResponse {
    var h = HTTPHeaders()
    for (name, value) in headers { h[HTTPHeader(name)] = value }
    return HTTPResponse(
        statusCode: HTTPStatusCode(status, phrase: "Status \(status)"), headers: h, body: Data(text.utf8))
}

/// A body that sends one byte per `interval`: a server that is never idle long enough for an idle timeout.
public struct DripBytes: AsyncBufferedSequence {
    public typealias Element = UInt8
    let count: Int
    let interval: Duration

    public func makeAsyncIterator() -> Iterator { Iterator(remaining: count, interval: interval) }

    public struct Iterator: AsyncBufferedIteratorProtocol {
        var remaining: Int
        let interval: Duration
        public mutating func next() async throws -> UInt8? {
            guard remaining > 0 else { return nil }
            try await Task.sleep(for: interval)
            remaining -= 1
            return UInt8(ascii: " ")
        }
        public mutating func nextBuffer(suggested count: Int) async throws -> [UInt8]? {
            guard let byte = try await next() else { return nil }
            return [byte]
        }
    }
}

/// 200 with a JSON-ish body of `bytes` bytes, dripped one per `interval`.
public func drippingResponse(bytes: Int, interval: Duration) -> HTTPResponse {
    HTTPResponse(
        statusCode: .ok, headers: [HTTPHeader("Content-Type"): "text/plain"],
        body: HTTPBodySequence(from: DripBytes(count: bytes, interval: interval), count: bytes, suggestedBufferSize: 1))
}

/// A handler that never answers (until the server stops).
public func neverAnswer() async throws -> HTTPResponse {
    try await Task.sleep(for: .seconds(120))
    return textResponse(500, "too late")
}
