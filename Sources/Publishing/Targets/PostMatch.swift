import Foundation
import Messages
import WallTime

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
        self.since = post.window.end.date.addingTimeInterval(-60)
    }

    /// Whether an entry created at `createdAt` (ISO 8601; nil or unreadable: assumed recent) may be the post.
    func isPost(createdAt: String?) -> Bool {
        guard let created = createdAt.flatMap({ Timestamps.parse($0) }) else { return true }
        return created >= since
    }

    /// Whether `shown`, a server's copy of a post that may be plain text or HTML (servers differ in what a field
    /// holds), is the post: read either way, with the domains of mentions dropped on both sides (HTML shows
    /// `@user@example.social` as `@user`).
    func isText(_ shown: String) -> Bool {
        let sent = MastodonMention.withoutDomains(text)
        return [Self.normalized(shown), Self.plainText(shown)].contains { MastodonMention.withoutDomains($0) == sent }
    }

    /// White space runs collapsed to one space, ends trimmed.
    static func normalized(_ text: String) -> String {
        text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }

    /// HTML as the plain text it was rendered from (normalised): `<br>` and paragraph ends as line breaks, other tags
    /// dropped (a link keeps its text), entities decoded.
    static func plainText(_ html: String) -> String {
        var text = html.replacingOccurrences(
            of: #"<br\s*/?>|</p\s*>"#, with: "\n", options: [.regularExpression, .caseInsensitive])
        text = text.replacingOccurrences(of: "<[^>]*>", with: "", options: .regularExpression)
        return normalized(decodeEntities(text))
    }

    /// `&amp;`, `&lt;`, `&gt;`, `&quot;`, `&apos;`, `&nbsp;` and numeric references decoded.
    static func decodeEntities(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var out = ""
        var rest = Substring(text)
        let named = ["amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{A0}"]
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            let after = rest[rest.index(after: amp)...]
            if let semi = after.prefix(10).firstIndex(of: ";") {
                let name = String(after[..<semi])
                var decoded = named[name]
                if name.hasPrefix("#x"), let code = UInt32(name.dropFirst(2), radix: 16) {
                    decoded = Unicode.Scalar(code).map(String.init)
                } else if name.hasPrefix("#"), let code = UInt32(name.dropFirst()) {
                    decoded = Unicode.Scalar(code).map(String.init)
                }
                if let decoded {
                    out += decoded
                    rest = after[after.index(after: semi)...]
                    continue
                }
            }
            out += "&"
            rest = after
        }
        return out + rest
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

    /// A look-up `GET` of `url` asking for JSON, with `Authorization: Bearer token`.
    func lookUpGET(_ url: URL, token: String, deadline: Deadline) async -> Result<HTTPReply, LookupFailure> {
        var request = URLRequest(url: url)
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.setValue("steptweet", forHTTPHeaderField: "User-Agent")
        return await lookUpRequest(request, deadline: deadline)
    }
}
