import FlyingFox
import Foundation
import Logging
import LoopbackHTTP
import Messages
import SensorInput
import ServiceLifecycle
import WallTime

/// The receiver (`[receive]`): phones push their steps to `POST /ingest` (Health Auto Export, Health Connect webhook
/// apps, OwnTracks, our step log). The route only checks the request and hands the payload to the state database;
/// it answers 200 once what was received is committed, so a crash right after the answer loses nothing, and a
/// request refused for any reason stores nothing of it, so the phone sends it again.
public final class ReceiverService: Service, CustomStringConvertible {
    let server: HTTPServer
    let receive: AgentConfiguration.Receive
    let store: StateStore
    let logger: Logger
    /// When a push arrived, as its devices' "last heard" and what their readings are complete up to.
    let clock: WallClock

    /// Binds nothing yet: the server listens in `run()`.
    public init(
        receive: AgentConfiguration.Receive, store: StateStore, logger: Logger, clock: WallClock = .system
    ) throws {
        self.receive = receive
        self.store = store
        self.logger = logger
        self.clock = clock
        // FlyingFox's own logging stays off: request lines would carry `/ingest/TOKEN`.
        server = HTTPServer(
            address: try .inet(ip4: receive.host, port: receive.port), timeout: 30, logger: .disabled)
    }

    public var description: String { "receiver (\(receive.host):\(receive.port))" }

    public func run() async throws {
        try await HTTPServing.untilGracefulShutdown({ try await self.serve() }, stop: { await self.stop() })
    }

    private func serve() async throws {
        let handler = IngestHandler(
            token: Array((receive.token ?? "").utf8), maxBody: receive.maxBody, store: store, logger: logger,
            clock: clock)
        await server.appendClosingRoute("POST /ingest") { try await handler.answer($0, pathToken: nil) }
        await server.appendClosingRoute("POST /ingest/:token") { request in
            try await handler.answer(request, pathToken: request.routeParameters["token"])
        }
        await server.appendClosingRoute("/ingest") { _ in IngestHandler.methodNotAllowed }
        await server.appendClosingRoute("/ingest/:token") { _ in IngestHandler.methodNotAllowed }
        await server.appendClosingRoute("*") { _ in
            IngestHandler.json(.notFound, ["error": "not found: the receiver takes POST /ingest"])
        }
        try await server.run()
    }

    public func waitUntilListening() async throws { try await server.waitUntilStarted() }

    /// The bound port (for tests that listen on port 0).
    public func port() async -> UInt16? {
        if case .ip4(_, let port) = await server.listeningAddress { return port }
        return nil
    }

    public func stop() async { await server.stop(timeout: 1) }
}
