import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

/// One of the agent's HTTP servers (the receiver, the push listener, the demo's endpoint): a Hummingbird application
/// on SwiftNIO's event loops, with `HTTPLimits` enforced by the parser (head size), `ConnectionGuard` (timeouts,
/// 431/400 answers) and a cap on open connections. Runs as a service: graceful shutdown closes idle connections at
/// once, drops requests still arriving, and lets the answers being written finish.
package final class LimitedHTTPServer: Sendable {
    /// What it is, for its errors: "receiver", "push listener".
    let name: String
    let host: String
    let port: Int
    private let group: ServiceGroup
    private let listening = ListeningPort()

    package init<Responder: HTTPResponder>(
        name: String, host: String, port: Int, limits: HTTPLimits, responder: Responder, logger: Logger
    ) where Responder.Context == BasicRequestContext {
        self.name = name
        self.host = host
        self.port = port
        // Hummingbird logs its start and connection errors: the agent says what it needs itself.
        var quiet = logger
        quiet.logLevel = max(logger.logLevel, .warning)
        let listening = self.listening
        let waiting = WaitingConnections()
        let headLimit = HTTP1Channel.Configuration.DecoderConfiguration(
            maxHeaderFieldSize: limits.maxHeader, maxHeaderListSize: limits.maxHeader,
            maxHeaderFieldCount: ConnectionGuard.maxHeaderFields)
        let app = Application(
            responder: responder,
            server: .http1(
                configuration: .init(
                    additionalChannelHandlers: [ConnectionGuard(limits: limits, waiting: waiting)],
                    httpDecoderConfiguration: headLimit)),
            configuration: .init(
                address: .hostname(host, port: port), backlog: limits.backlog,
                availableConnectionsDelegate: RoomMakingConnectionLimit(
                    maxConnections: limits.maxConnections, waiting: waiting)),
            onServerRunning: { channel in await listening.set(.success(channel.localAddress?.port ?? port)) },
            eventLoopGroupProvider: .shared(HTTPServing.eventLoops), logger: quiet)
        group = ServiceGroup(configuration: .init(services: [app], logger: quiet))
    }

    /// Listens and serves until graceful shutdown, `stop()` or cancellation. A failure to listen throws
    /// `ListenError`, naming the address.
    package func run() async throws {
        do {
            try await group.run()
        } catch {
            guard await !listening.isListening else { throw error }
            let failure = ListenError(name: name, address: "\(host):\(port)", underlying: error)
            await listening.set(.failure(failure))
            throw failure
        }
        await listening.set(.failure(ListenError(name: name, address: "\(host):\(port)", underlying: nil)))
    }

    /// The bound port, once listening; throws `ListenError` when it cannot listen.
    package func waitUntilListening() async throws -> Int { try await listening.wait() }

    /// The bound port, or nil before it listens.
    package var boundPort: Int? { get async { await listening.port } }

    package func stop() async { await group.triggerGracefulShutdown() }
}

/// A server that could not listen: what it is, the address, and why (the system's words).
public struct ListenError: Error, CustomStringConvertible {
    public let name: String
    public let address: String
    let underlying: (any Error)?

    public var description: String {
        guard let underlying else { return "the \(name) on \(address) stopped before it listened" }
        let reason = (underlying as? IOError).map { String(cString: strerror($0.errnoCode)) } ?? "\(underlying)"
        return "the \(name) cannot listen on \(address): \(reason)"
    }
}

/// The port a server listens on, once it does, or why it cannot: what `waitUntilListening` waits for.
actor ListeningPort {
    private var result: Result<Int, ListenError>?
    private var waiting: [CheckedContinuation<Int, any Error>] = []

    var isListening: Bool { port != nil }
    var port: Int? { if case .success(let port)? = result { port } else { nil } }

    func set(_ outcome: Result<Int, ListenError>) {
        guard result == nil else { return }
        result = outcome
        for waiter in waiting { waiter.resume(with: outcome.mapError { $0 as any Error }) }
        waiting = []
    }

    func wait() async throws -> Int {
        if let result { return try result.get() }
        return try await withCheckedThrowingContinuation { waiting.append($0) }
    }
}

package enum HTTPServing {
    /// The event loop every server of the agent runs its connections on: one thread. Parsing and the limits are
    /// light; the handlers run on Swift's own pool. NIO's default, a thread a core, peaked higher under 10 phones
    /// (43.4 against 41.6 MB, bench/receiver_load_result.txt).
    static let eventLoops = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    /// Whether two secrets are equal, in time that does not depend on where they differ (a token guessed byte by
    /// byte learns nothing from how fast it is refused).
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var diff = UInt8(a.count == b.count ? 0 : 1)
        for i in 0..<max(a.count, b.count) {
            diff |= (i < a.count ? a[i] : 0) ^ (i < b.count ? b[i] : 0)
        }
        return diff == 0
    }

    /// A request's body, whole, if it is at most `limit` bytes; nil as soon as it is longer (the rest is not read).
    package static func body(of request: Request, upTo limit: Int) async throws -> [UInt8]? {
        var body: [UInt8] = []
        if let length = request.headers[.contentLength].flatMap(Int.init) {
            guard length <= limit else { return nil }
            body.reserveCapacity(length)
        }
        for try await chunk in request.body {
            guard body.count + chunk.readableBytes <= limit else { return nil }
            body.append(contentsOf: chunk.readableBytesView)
        }
        return body
    }
}

extension HTTPAnswer {
    /// As Hummingbird writes it, with its length.
    package var response: Response {
        var fields = headerFields
        fields[.contentLength] = String(body.count)
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}

extension IngestRequest {
    /// The request as Hummingbird received it.
    init(_ request: Request) {
        self.init(
            headerFields: request.headers, format: request.uri.queryParameters["format"].map(String.init),
            readBody: { limit in try await HTTPServing.body(of: request, upTo: limit) })
    }
}
