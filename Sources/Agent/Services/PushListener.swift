import Foundation
import HTTPTypes
import Hummingbird
import Logging
import ServiceLifecycle

/// The silent-push listener: `POST /push` on 127.0.0.1 only, with `Authorization: Bearer <token>` and a body of
/// `{"aps":{"content-available":1}}`. Accepted pushes become `.push` triggers (coalesced and rate-limited by the
/// scheduler) and are answered 202 `{"status":"accepted"}`; while the agent fetches nothing (`disabledReason`) they
/// are answered 200 `{"status":"ignored","reason":…}` instead, still a success so that the sender does not retry.
/// Anything else is refused: 401 without the right token, 400 for another body, 405 for another method on /push,
/// 404 elsewhere.
public final class PushListener: Service, CustomStringConvertible {
    let token: String
    let scheduler: AgentScheduler
    /// Why the agent fetches nothing (`disabledReason`): pushes are answered as ignored.
    let disabledReason: String?
    let server: LimitedHTTPServer
    let logger: Logger

    /// Binds to 127.0.0.1:`port` (0: an ephemeral port, for tests) in `run()`.
    public init(
        port: UInt16, token: String, scheduler: AgentScheduler, disabledReason: String? = nil,
        logger: Logger = Logger(label: "steptweet.push")
    ) {
        self.token = token
        self.scheduler = scheduler
        self.disabledReason = disabledReason
        self.logger = logger
        server = LimitedHTTPServer(
            name: "push listener", host: "127.0.0.1", port: Int(port), limits: .loopback,
            responder: Self.routes(token: token, scheduler: scheduler, ignored: disabledReason.map(Self.ignoredBody))
                .buildResponder(), logger: logger)
    }

    public var description: String { "push listener" }

    /// `POST /push` behind the token; 405 for another method on /push, 404 elsewhere.
    static func routes(token: String, scheduler: AgentScheduler, ignored: Data?) -> Router<BasicRequestContext> {
        var unauthorized = HTTPAnswer(status: .unauthorized, body: Data("{\"error\":\"bearer token required\"}".utf8))
        unauthorized.headerFields[.wwwAuthenticate] = "Bearer"
        let router = Router()
        router.group("push").add(
            middleware: TokenMiddleware(token: Array(token.utf8), places: .bearer, refusal: unauthorized)
        )
        .post { request, _ in
            guard let body = try await HTTPServing.body(of: request, upTo: 4096), Self.isSilentPush(Data(body))
            else {
                return HTTPAnswer(
                    status: .badRequest,
                    body: Data("{\"error\":\"expected {\\\"aps\\\":{\\\"content-available\\\":1}}\"}".utf8)
                ).response
            }
            await scheduler.post(.push)  // logged by the scheduler even when it fetches nothing
            if let ignored { return HTTPAnswer(status: .ok, body: ignored).response }
            return HTTPAnswer(status: .accepted, body: Data("{\"status\":\"accepted\"}".utf8)).response
        }
        // Any other method on /push: the resource exists, the method does not.
        for method: HTTPRequest.Method in [.get, .head, .put, .delete, .patch, .options] {
            router.on("push", method: method) { _, _ in
                var answer = HTTPAnswer(status: .methodNotAllowed, body: Data("{\"error\":\"use POST\"}".utf8))
                answer.headerFields[.allow] = "POST"
                return answer.response
            }
        }
        return router
    }

    /// Serves until graceful shutdown, the task's cancellation or `stop()`; throws `ListenError` when it cannot
    /// listen.
    public func run() async throws {
        do {
            try await server.run()
        } catch let error as ListenError {
            logger.error("\(error): pushes are not taken; fetching on the schedule goes on")
            throw error
        }
    }

    public func waitUntilListening() async throws { _ = try await server.waitUntilListening() }

    /// The bound IPv4 address and port, e.g. `("127.0.0.1", 8787)`.
    public func address() async -> (host: String, port: UInt16)? {
        await server.boundPort.map { ("127.0.0.1", UInt16($0)) }
    }

    public func stop() async { await server.stop() }

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
