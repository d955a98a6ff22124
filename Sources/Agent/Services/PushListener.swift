import FlyingFox
import Foundation
import LoopbackHTTP
import ServiceLifecycle

/// The silent-push listener: `POST /push` on 127.0.0.1 only, with `Authorization: Bearer <token>` and a body of
/// `{"aps":{"content-available":1}}`. Accepted pushes become `.push` triggers (coalesced and rate-limited by the
/// scheduler); anything else is refused: 401 without the right token, 400 for another body, 405 for another method on /push, 404 elsewhere.
public final class PushListener: Service, CustomStringConvertible {
    let server: HTTPServer
    let token: String
    let scheduler: AgentScheduler

    /// Binds to 127.0.0.1:`port` (0: an ephemeral port, for tests).
    public init(port: UInt16, token: String, scheduler: AgentScheduler) throws {
        self.token = token
        self.scheduler = scheduler
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
            await scheduler.post(.push)
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
        try await server.waitUntilListening()
    }

    /// The bound IPv4 address and port, e.g. `("127.0.0.1", 8787)`.
    public func address() async -> (host: String, port: UInt16)? {
        if case .ip4(let host, let port) = await server.listeningAddress { return (host, port) }
        return nil
    }

    public func stop() async {
        await server.stop(timeout: 1)
    }

    static func isSilentPush(_ body: Data) -> Bool {
        guard let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any],
            let aps = object["aps"] as? [String: Any], let flag = aps["content-available"] as? NSNumber
        else { return false }
        return flag.intValue == 1
    }

}
