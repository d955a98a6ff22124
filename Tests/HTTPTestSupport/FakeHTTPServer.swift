import FlyingFox
import Foundation
import Publishing
import WallTime

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An in-memory HTTP server for target unit tests: an `HTTPSending` that hands each request to `handler` (the same
/// handler and responses as `LoopbackServer`) without a socket. Pass `context` (or `sender`) to the target.
/// A handler that throws ends the request as a network error; one that is cancelled (the deadline passed) as
/// `.deadline`.
public final class FakeHTTPServer: HTTPSending, Sendable {
    let handler: @Sendable (SeenRequest, Int) async throws -> HTTPResponse
    let log = RequestLog()

    private init(_ handler: @escaping @Sendable (SeenRequest, Int) async throws -> HTTPResponse) {
        self.handler = handler
    }

    /// Same shape as `LoopbackServer.start`, so a test can switch between them.
    public static func start(_ handler: @escaping @Sendable (SeenRequest, Int) async throws -> HTTPResponse)
        async throws -> FakeHTTPServer
    {
        FakeHTTPServer(handler)
    }

    /// The port in `baseURL` (never connected to: requests go to `send`).
    public let port: UInt16 = 9
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }
    public func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// A context whose requests come here (`now` is the wall clock unless given).
    public func context(clock: WallClock = .system) -> HTTPContext {
        HTTPContext(transport: self, clock: clock)
    }
    public var context: HTTPContext { context() }

    public var requests: [SeenRequest] {
        get async { await log.requests }
    }

    public func stop() async {}

    public func send(_ request: URLRequest) async -> Result<HTTPReply, TransportFailure> {
        let seen = Self.seen(request)
        let number = await log.append(seen)
        do {
            let response = try await handler(seen, number)
            var headers: [String: String] = [:]
            for (name, value) in response.headers { headers[name.rawValue.lowercased()] = value }
            return .success(
                HTTPReply(status: response.statusCode.code, headers: headers, body: try await response.bodyData))
        } catch {
            if error is CancellationError || Task.isCancelled { return .failure(.deadline) }
            return .failure(.network("\(error)"))
        }
    }

    static func seen(_ request: URLRequest) -> SeenRequest {
        let url = request.url ?? URL(string: "http://127.0.0.1:9/")!
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        var query: [String: String] = [:]
        for item in components?.queryItems ?? [] { query[item.name] = item.value ?? "" }
        var headers: [String: String] = [:]
        for (name, value) in request.allHTTPHeaderFields ?? [:] { headers[name.lowercased()] = value }
        let path = components?.percentEncodedPath.removingPercentEncoding ?? url.path
        return SeenRequest(
            method: request.httpMethod ?? "GET", path: path.isEmpty ? "/" : path, query: query,
            headers: headers, body: request.httpBody ?? Data())
    }
}
