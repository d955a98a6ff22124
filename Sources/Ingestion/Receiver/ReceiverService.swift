import Foundation
import HTTPTypes
import Hummingbird
import Logging
import ServiceLifecycle
import Store
import WallTime

/// The receiver (`[receive]`): phones push their steps to `POST /ingest` (the apps of `PushApps`). The token is
/// checked by `TokenMiddleware`; the route only hands the request to `IngestHandler`, which commits the payload to
/// the state database and answers 200 once it is committed, so a crash right after the answer loses nothing, and a
/// request refused for any reason stores nothing of it, so the phone sends it again. What a client may send and for
/// how long is `limits` (docs/receiving.md).
public final class ReceiverService: Service, CustomStringConvertible {
    /// `host:port` as configured.
    package let address: String
    let store: StateStore
    let logger: Logger
    /// When a push arrived, as its devices' "last heard" and what their readings are complete up to.
    let clock: WallClock
    let server: LimitedHTTPServer

    /// Binds nothing yet: the server listens on `host:port` in `run()`. With `releaseMemory`, a large body has
    /// memory given back between its stages (the agent's `MemoryTrim`).
    package init(
        host: String, port: UInt16, token: String, limits: HTTPLimits, store: StateStore, logger: Logger,
        clock: WallClock = .system, releaseMemory: MemoryRelease? = nil
    ) {
        address = "\(host):\(port)"
        self.store = store
        self.logger = logger
        self.clock = clock
        let handler = IngestHandler(
            maxBody: limits.maxBody, store: store, logger: logger, clock: clock, releaseMemory: releaseMemory)
        server = LimitedHTTPServer(
            name: "receiver", host: host, port: Int(port), limits: limits,
            responder: Self.routes(handler, token: token).buildResponder(), logger: logger)
    }

    /// `POST /ingest` and `POST /ingest/TOKEN` behind the token; 405 for another method there, a JSON 404 elsewhere.
    static func routes(_ handler: IngestHandler, token: String) -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: NotFoundAnswer(answer: .error(.notFound, "not found: the receiver takes POST /ingest")))
        router.group("ingest").add(middleware: TokenMiddleware.ingest(token: token))
            .post { request, _ in try await handler.answer(IngestRequest(request)).response }
            .post(":token") { request, _ in try await handler.answer(IngestRequest(request)).response }
        for path: RouterPath in ["ingest", "ingest/:token"] {
            for method: HTTPRequest.Method in [.get, .head, .put, .delete, .patch, .options] {
                router.on(path, method: method) { _, _ in IngestHandler.methodNotAllowed.response }
            }
        }
        return router
    }

    public var description: String { "receiver (\(address))" }

    /// Serves until graceful shutdown, cancellation or `stop()`; throws `ListenError` when it cannot listen.
    public func run() async throws {
        try await server.run()
    }

    /// Returns once the receiver listens; throws `ListenError` when it cannot.
    public func waitUntilListening() async throws { _ = try await server.waitUntilListening() }

    /// The bound port (for tests that listen on port 0).
    public func port() async -> UInt16? { await server.boundPort.map { UInt16($0) } }

    public func stop() async { await server.stop() }
}

/// Hummingbird's answer to a path no route takes (an empty 404) as `answer`.
struct NotFoundAnswer: RouterMiddleware {
    typealias Context = BasicRequestContext
    let answer: HTTPAnswer

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            return answer.response
        }
    }
}
