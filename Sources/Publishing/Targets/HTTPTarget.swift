import Foundation
import WallTime

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What every HTTP target shares: the sender, the redactor that knows its secrets, the wall clock used to turn
/// rate-limit reset times into waits and to age cached facts, and the cache of what targets read from their servers
/// (all injectable; the factory passes one context to every target it builds).
public struct HTTPContext: Sendable {
    public var transport: any HTTPSending
    public var redactor: Redactor
    public var clock: WallClock
    public var infoCache: any TargetInfoCache

    public init(
        transport: any HTTPSending = URLSessionSender(), redactor: Redactor = Redactor(), clock: WallClock = .system,
        infoCache: any TargetInfoCache = InMemoryTargetInfoCache()
    ) {
        self.transport = transport
        self.redactor = redactor
        self.clock = clock
        self.infoCache = infoCache
    }

    /// The time of day on the context's clock.
    public func now() -> Date { clock.now() }

    /// This context with `secrets` added to its redactor (a target's token, password, …).
    func redacting(_ secrets: String...) -> HTTPContext {
        var context = self
        for secret in secrets { context.redactor.add(secret) }
        return context
    }

    /// This context hiding a webhook URL, whose path holds its secret.
    func redacting(webhook url: URL) -> HTTPContext {
        url.path.count > 1 ? redacting(url.absoluteString, url.path) : redacting(url.absoluteString)
    }

    /// Sends `request`, giving up at `deadline` (the one place a request meets its deadline). Error texts are
    /// redacted.
    public func send(_ request: URLRequest, deadline: Deadline) async -> Result<HTTPReply, TransportFailure> {
        guard !deadline.hasPassed else { return .failure(.deadline) }
        var timed = request
        // Only an idle backstop for URLSession, kept well past the deadline: libcurl takes it in whole seconds (1.9 s
        // would end the request after 1 s of silence), and a loaded machine can delay an answer by seconds. The race
        // is the real deadline.
        timed.timeoutInterval = deadline.remainingSeconds + 10
        let request = timed
        let transport = self.transport
        let result = await deadline.race(orElse: .failure(.deadline)) { await transport.send(request) }
        return result.mapError { $0.redacted(redactor) }
    }

    /// The 2xx reply to `request`, or the outcome that stops the post (an upload step before the post itself: a
    /// media upload, a poll for its processing).
    func successfulReply(to request: URLRequest, deadline: Deadline) async -> Result<HTTPReply, Stop> {
        switch await send(request, deadline: deadline) {
        case .failure(let failure): return .failure(Stop(ResponseClassifier.classify(failure)))
        case .success(let reply):
            guard (200..<300).contains(reply.status) else {
                return .failure(Stop(ResponseClassifier.classify(reply, now: now(), redactor: redactor) { _ in nil }))
            }
            return .success(reply)
        }
    }

    /// Sends `request` and classifies the reply; `remoteID` reads the created post's id from a 2xx reply, which
    /// must have one with `idRequired` (`ResponseClassifier.classify`).
    func deliver(
        _ request: URLRequest, deadline: Deadline, idRequired: Bool = false,
        remoteID: (HTTPReply) -> String? = { _ in nil }
    ) async -> DeliveryOutcome {
        switch await send(request, deadline: deadline) {
        case .failure(let failure): return ResponseClassifier.classify(failure)
        case .success(let reply):
            return ResponseClassifier.classify(
                reply, now: now(), redactor: redactor, idRequired: idRequired, remoteID: remoteID)
        }
    }
}

enum Endpoint {
    /// `base` joined with `path` (a base path such as `https://host/prefix` is kept).
    static func join(_ base: URL, _ path: String) -> URL {
        var text = base.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        return URL(string: text + "/" + path) ?? base
    }

    /// One path segment with everything but the unreserved set percent-encoded (Matrix room ids, txnIds).
    static func segment(_ text: String) -> String { OAuth1.percentEncode(text) }

    /// `url` with a query item added.
    static func adding(_ name: String, _ value: String, to url: URL) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        components.queryItems =
            (components.queryItems ?? []).filter { $0.name != name } + [URLQueryItem(name: name, value: value)]
        return components.url ?? url
    }
}
