import Foundation
import HTTPTypes
import Hummingbird
import Logging
import ServiceLifecycle

/// The silent-push listener: `POST /push` on 127.0.0.1 only, with `Authorization: Bearer <token>` and a body of
/// `{"aps":{"content-available":1}}`. Accepted pushes are handed to `onPush` (the agent's scheduler, which coalesces
/// and rate-limits them) and are answered 202 `{"status":"accepted"}`; while the agent fetches nothing
/// (`disabledReason`) they are answered 200 `{"status":"ignored","reason":…}` instead, still a success so that the
/// sender does not retry. Anything else is refused: 401 without the right token, 400 for another body, 405 for
/// another method on /push, 404 elsewhere.
public final class PushListener: Service, CustomStringConvertible {
    let token: String
    /// Why the agent fetches nothing (`disabledReason`): pushes are answered as ignored.
    let disabledReason: String?
    let server: LimitedHTTPServer
    let logger: Logger

    /// Binds to 127.0.0.1:`port` (0: an ephemeral port, for tests) in `run()`.
    package init(
        port: UInt16, token: String, disabledReason: String? = nil, logger: Logger = Logger(label: "steptweet.push"),
        onPush: @escaping @Sendable () async -> Void
    ) {
        self.token = token
        self.disabledReason = disabledReason
        self.logger = logger
        server = LimitedHTTPServer(
            name: "push listener", host: "127.0.0.1", port: Int(port), limits: .loopback,
            responder: Self.routes(token: token, ignored: disabledReason.map(Self.ignoredBody), onPush: onPush)
                .buildResponder(), logger: logger)
    }

    public var description: String { "push listener" }

    /// `POST /push` behind the token; 405 for another method on /push, 404 elsewhere.
    static func routes(
        token: String, ignored: Data?, onPush: @escaping @Sendable () async -> Void
    ) -> Router<BasicRequestContext> {
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
            await onPush()  // logged by the scheduler even when it fetches nothing
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
        struct Ignored: Encodable {
            var status = "ignored"
            var reason: String
        }
        return HTTPAnswer.jsonData(Ignored(reason: reason), "{\"status\":\"ignored\"}", slashes: true)
    }

    /// `{"aps": {"content-available": 1}}`: the flag a number whose whole part is 1, or true.
    static func isSilentPush(_ body: Data) -> Bool {
        struct Push: Decodable {
            struct APS: Decodable {
                var flag: SilentFlag

                enum CodingKeys: String, CodingKey { case flag = "content-available" }
            }
            var aps: APS
        }
        return (try? JSONDecoder().decode(Push.self, from: body))?.aps.flag.isOn == true
    }
}

/// `content-available` as APNs senders write it: 1, 1.0, or true.
struct SilentFlag: Decodable {
    var isOn: Bool

    init(from decoder: any Decoder) throws {
        let value = try decoder.singleValueContainer()
        if let flag = try? value.decode(Bool.self) {
            isOn = flag
        } else {
            let number = try value.decode(Double.self)
            isOn = number.isFinite && Int(exactly: number.rounded(.towardZero)) == 1
        }
    }
}
