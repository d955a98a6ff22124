import Foundation
import Messages
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What every HTTP target shares: the transport, the redactor that knows its secrets, and the clock used to turn
/// rate-limit reset times into waits (injectable for tests).
public struct HTTPContext: Sendable {
    public var transport: HTTPTransport
    public var redactor: Redactor
    public var now: @Sendable () -> Date

    public init(transport: HTTPTransport = HTTPTransport(), redactor: Redactor = Redactor(),
                now: @escaping @Sendable () -> Date = { Date() }) {
        self.transport = transport
        self.redactor = redactor
        self.now = now
    }

    /// Sends `request` and classifies the reply; `remoteID` reads the created post's id from a 2xx reply.
    func deliver(_ request: URLRequest, deadline: Deadline,
                 remoteID: (HTTPReply) -> String? = { _ in nil }) async -> DeliveryOutcome {
        switch await transport.send(request, deadline: deadline, redactor: redactor) {
        case .failure(let failure): return ResponseClassifier.classify(failure)
        case .success(let reply): return ResponseClassifier.classify(reply, now: now(), redactor: redactor, remoteID: remoteID)
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
        components.queryItems = (components.queryItems ?? []).filter { $0.name != name } + [URLQueryItem(name: name, value: value)]
        return components.url ?? url
    }
}

/// Reads an id that may be a JSON string or number.
func idString(_ value: Any?) -> String? {
    if let s = value as? String { return s }
    if let n = value as? NSNumber { return n.stringValue }
    return nil
}
