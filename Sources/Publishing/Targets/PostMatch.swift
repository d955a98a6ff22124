import Foundation
import Messages

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How a look-up recognises a post among a target's recent ones: made since its window ended (a post is only made
/// after its window closes; a minute's slack for clocks), with the same text once white space is collapsed.
struct PostMatch {
    /// The text as sent, normalised.
    let text: String
    let since: Date

    init(post: Post, text: String) {
        self.text = Self.normalized(text)
        self.since = post.windowEnd.addingTimeInterval(-60)
    }

    /// Whether an entry created at `createdAt` (ISO 8601; nil or unreadable: assumed recent) may be the post.
    func isPost(createdAt: String?) -> Bool {
        guard let created = createdAt.flatMap({ Timestamps.parse($0) }) else { return true }
        return created >= since
    }

    /// White space runs collapsed to one space, ends trimmed.
    static func normalized(_ text: String) -> String {
        text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }

}

/// Why a look-up request gave no usable answer (already redacted).
struct LookupFailure: Error {
    var reason: String
    init(_ reason: String) { self.reason = reason }
}

extension HTTPContext {
    /// Sends a look-up request: the 2xx reply, or why there is none (network, deadline, HTTP error).
    func lookUpRequest(_ request: URLRequest, deadline: Deadline) async -> Result<HTTPReply, LookupFailure> {
        switch await send(request, deadline: deadline) {
        case .failure(let failure):
            guard case .retryable(let reason, _, _) = ResponseClassifier.classify(failure) else {
                return .failure(LookupFailure("\(failure)"))
            }
            return .failure(LookupFailure(reason))
        case .success(let reply):
            guard (200..<300).contains(reply.status) else {
                return .failure(LookupFailure(ResponseClassifier.reason(reply, redactor: redactor)))
            }
            return .success(reply)
        }
    }
}
