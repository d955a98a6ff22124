import FlyingFox
import Foundation
import LoopbackHTTP
import ServiceLifecycle

/// The silent-push listener: `POST /push` on 127.0.0.1 only, with `Authorization: Bearer <token>` and a body of
/// `{"aps":{"content-available":1}}`. Accepted pushes become `.push` triggers (coalesced and rate-limited by the
/// scheduler) and are answered 202 `{"status":"accepted"}`; while the agent fetches nothing (`disabledReason`) they
/// are answered 200 `{"status":"ignored","reason":…}` instead, still a success so that the sender does not retry.
/// Anything else is refused: 401 without the right token, 400 for another body, 405 for another method on /push,
/// 404 elsewhere.
public final class PushListener: Service, CustomStringConvertible {
    let server: HTTPServer
    let token: String
    let scheduler: AgentScheduler
    /// Why the agent fetches nothing (`AgentConfiguration.disabledReason`): pushes are answered as ignored.
    let disabledReason: String?

    /// Binds to 127.0.0.1:`port` (0: an ephemeral port, for tests).
    public init(port: UInt16, token: String, scheduler: AgentScheduler, disabledReason: String? = nil) throws {
        self.token = token
        self.scheduler = scheduler
        self.disabledReason = disabledReason
        server = HTTPServer(address: try .inet(ip4: "127.0.0.1", port: port), timeout: 10, logger: .disabled)
    }

    public var description: String { "push listener" }

    /// Serves until graceful shutdown, the task's cancellation or `stop()`.
    public func run() async throws {
        try await HTTPServing.untilGracefulShutdown({ try await self.serve() }, stop: { await self.stop() })
    }

    private func serve() async throws {
        let expected = Array("Bearer \(token)".utf8)
        let scheduler = self.scheduler
        let ignored = disabledReason.map(Self.ignoredBody)
        await server.appendClosingRoute("POST /push") { request in
            let auth = Array((request.headers[.authorization] ?? "").utf8)
            guard HTTPServing.constantTimeEqual(auth, expected) else {
                return HTTPResponse(
                    statusCode: .unauthorized, headers: [HTTPHeader("WWW-Authenticate"): "Bearer"],
                    body: Data("{\"error\":\"bearer token required\"}".utf8))
            }
            let body = try await request.bodyData
            guard body.count <= 4096, Self.isSilentPush(body) else {
                return HTTPResponse(
                    statusCode: .badRequest,
                    body: Data("{\"error\":\"expected {\\\"aps\\\":{\\\"content-available\\\":1}}\"}".utf8))
            }
            await scheduler.post(.push)  // logged by the scheduler even when it fetches nothing
            if let ignored { return HTTPResponse(statusCode: .ok, body: ignored) }
            return HTTPResponse(statusCode: .accepted, body: Data("{\"status\":\"accepted\"}".utf8))
        }
        // Any other method on /push: the resource exists, the method does not.
        await server.appendClosingRoute("/push") { _ in
            HTTPResponse(
                statusCode: .methodNotAllowed, headers: [HTTPHeader("Allow"): "POST"],
                body: Data("{\"error\":\"use POST\"}".utf8))
        }
        try await server.run()
    }

    public func waitUntilListening() async throws {
        try await server.waitUntilStarted()
    }

    /// The bound IPv4 address and port, e.g. `("127.0.0.1", 8787)`.
    public func address() async -> (host: String, port: UInt16)? {
        if case .ip4(let host, let port) = await server.listeningAddress { return (host, port) }
        return nil
    }

    public func stop() async {
        await server.stop(timeout: 1)
    }

    /// `{"reason":…,"status":"ignored"}`.
    static func ignoredBody(_ reason: String) -> Data {
        (try? JSONSerialization.data(
            withJSONObject: ["status": "ignored", "reason": reason], options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data("{\"status\":\"ignored\"}".utf8)
    }

    static func isSilentPush(_ body: Data) -> Bool {
        guard let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any],
            let aps = object["aps"] as? [String: Any], let flag = aps["content-available"] as? NSNumber
        else { return false }
        return flag.intValue == 1
    }

}
