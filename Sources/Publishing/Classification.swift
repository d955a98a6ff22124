import Foundation
import Messages

/// Turns responses into `DeliveryOutcome`s from status codes (never from message text, with the one documented
/// exception of X's duplicate-content 403, which targets handle themselves).
///
/// 2xx delivered (already delivered with `Idempotent-Replayed: true`; unconfirmed without the post's id where the
/// target always answers with one); 408, 425, 429 and 5xx retryable with the server's wait when it gave one; other 4xx
/// permanent with the server's message (redacted), and so is a 3xx (redirects are not followed), naming where it points.
public enum ResponseClassifier {
    /// Classifies `reply`; `remoteID` extracts the id of the created post from a 2xx reply. With `idRequired` (a
    /// target whose every success carries the post's id), a 2xx without it is not a post but unconfirmed: a proxy's
    /// or a wrong `base_url`'s page, a server that took the request and may not have saved it.
    public static func classify(
        _ reply: HTTPReply, now: Date, redactor: Redactor, idRequired: Bool = false,
        remoteID: (HTTPReply) -> String?
    ) -> DeliveryOutcome {
        switch reply.status {
        case 200..<300:
            let id = remoteID(reply)
            // `Idempotent-Replayed: true`: the server recognised the Idempotency-Key and replayed its first answer.
            if reply.header("Idempotent-Replayed")?.lowercased() == "true" {
                return .alreadyDelivered(remoteID: id)
            }
            if idRequired, id == nil {
                return .retryable(
                    reason: reason(reply, redactor: redactor) + " (no id of the post in the answer)", retryAfter: nil,
                    unconfirmed: true)
            }
            return .delivered(remoteID: id)
        case 408, 425, 429:
            // The server says it did not process the request.
            return .retryable(reason: reason(reply, redactor: redactor), retryAfter: retryAfter(reply, now: now))
        case 500..<600:
            // A gateway timeout or a crash may come after the post was made.
            return .retryable(
                reason: reason(reply, redactor: redactor), retryAfter: retryAfter(reply, now: now), unconfirmed: true)
        default:
            return .permanent(reason: reason(reply, redactor: redactor))
        }
    }

    /// The transport failure as an outcome: always retryable; unconfirmed unless the request cannot have been sent.
    public static func classify(_ failure: TransportFailure) -> DeliveryOutcome {
        switch failure {
        case .deadline:
            return .retryable(
                reason: "deadline passed before a response (request cancelled)", retryAfter: nil, unconfirmed: true)
        case .network(let text): return .retryable(reason: "network error: \(text)", retryAfter: nil, unconfirmed: true)
        case .notSent(let text): return .retryable(reason: "network error: \(text)", retryAfter: nil)
        }
    }

    /// `HTTP 401: The access token is invalid`; for a redirect, where it points (`redirect(_:)`).
    public static func reason(_ reply: HTTPReply, redactor: Redactor) -> String {
        if (300..<400).contains(reply.status) { return redactor.redact(redirect(reply)) }
        let message = serverMessage(reply)
        return redactor.redact(message.isEmpty ? "HTTP \(reply.status)" : "HTTP \(reply.status): \(message)")
    }

    /// `HTTP 301: redirects to https://example.org/…, not followed …`: the target's address as far as its host (the
    /// rest of a webhook's may be its secret), so that the configuration can be corrected.
    static func redirect(_ reply: HTTPReply) -> String {
        var place = "elsewhere"
        if let location = reply.header("location"), let url = URL(string: location, relativeTo: nil),
            let scheme = url.scheme, let host = url.host
        {
            place = "\(scheme)://\(host)" + (url.port.map { ":\($0)" } ?? "") + "/…"
        }
        return "HTTP \(reply.status): redirects to \(place), not followed (the request carries the target's "
            + "credentials): set the target's address to where it points"
    }

    /// The server's own words: `error`, `error_description`, `detail`, `message`, `title` or Matrix `errcode`
    /// from a JSON body, else the start of a text body.
    public static func serverMessage(_ reply: HTTPReply) -> String {
        if let answer = reply.decoded(ErrorAnswer.self) {
            // A machine code first: Matrix `errcode`, or XRPC's `error` when a `message` comes with it.
            let xrpcCode = answer.message?.isText == true ? answer.error?.text : nil
            let code = answer.errcode ?? xrpcCode
            var message = answer.detail?.shown ?? answer.message?.shown ?? answer.errorDescription?.shown
            if message == nil && xrpcCode == nil { message = answer.error?.shown }
            if message == nil, let first = answer.errors?.first { message = first.message ?? first.detail }
            if message == nil { message = answer.title?.shown }
            let parts = [code, message].compactMap { $0 }
            if !parts.isEmpty { return String(parts.joined(separator: " ").prefix(300)) }
        }
        let text = String(decoding: reply.body.prefix(300), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
            .replacingOccurrences(of: "\n", with: " ")
        return text
    }

    /// Seconds the server asks us to wait, from (in order) `Retry-After` (seconds or an HTTP-date), Discord's
    /// `X-RateLimit-Reset-After`, a rate-limit reset header (`X-RateLimit-Reset` (Mastodon, Discord) / `x-rate-limit-reset` (X) / `RateLimit-Reset` (Bluesky): epoch seconds
    /// as X and Discord send, an ISO-8601 time as Mastodon sends, or delta seconds as the IETF draft), or Matrix's
    /// `retry_after_ms` / Discord's `retry_after` in the body. Nil when none is usable.
    public static func retryAfter(_ reply: HTTPReply, now: Date) -> TimeInterval? {
        if let value = reply.header("retry-after")?.trimmingCharacters(in: .whitespaces) {
            if let seconds = Double(value), seconds.isFinite { return max(0, seconds) }
            if let date = httpDate(value) { return max(0, date.timeIntervalSince(now)) }
        }
        if let value = reply.header("x-ratelimit-reset-after"), let seconds = Double(value), seconds.isFinite {
            return max(0, seconds)
        }
        let remaining =
            reply.header("x-ratelimit-remaining") ?? reply.header("x-rate-limit-remaining")
            ?? reply.header("ratelimit-remaining")
        if reply.status == 429 || remaining.flatMap(Double.init) == 0,
            let reset = reply.header("x-ratelimit-reset") ?? reply.header("x-rate-limit-reset")
                ?? reply.header("ratelimit-reset"),
            let seconds = resetSeconds(reset, now: now)
        {
            return seconds
        }
        if let answer = reply.decoded(ErrorAnswer.self) {
            if let ms = answer.retryAfterMs { return max(0, ms / 1000) }
            if let s = answer.retryAfter { return max(0, s) }
        }
        return nil
    }

    /// A reset header as seconds from `now`.
    static func resetSeconds(_ value: String, now: Date) -> TimeInterval? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let number = Double(trimmed), number.isFinite {
            // Epoch seconds are large; the IETF RateLimit-Reset draft sends a delta.
            return number > 1_000_000_000 ? max(0, number - now.timeIntervalSince1970) : max(0, number)
        }
        return Timestamps.parse(trimmed).map { max(0, $0.timeIntervalSince(now)) }
    }

    /// An HTTP-date in any of the three forms a recipient must accept (RFC 9110 §5.6.7): IMF-fixdate
    /// (`Sun, 06 Nov 1994 08:49:37 GMT`), RFC 850 (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime
    /// (`Sun Nov  6 08:49:37 1994`, in GMT).
    static func httpDate(_ value: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        let text = value.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        for format in ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }
}

/// The fields of an answer the server's words and wait are read from. Servers put a text or an object with a
/// `message` in `error`, `message`, `detail`, `error_description` and `title` (`ServerText`).
private struct ErrorAnswer: Decodable {
    @Lenient var errcode: String?
    @Lenient var error: ServerText?
    @Lenient var message: ServerText?
    @Lenient var detail: ServerText?
    @Lenient var errorDescription: ServerText?
    @Lenient var title: ServerText?
    @Lenient var errors: [ErrorItem]?
    @Lenient var retryAfterMs: Double?
    @Lenient var retryAfter: Double?

    private enum CodingKeys: String, CodingKey {
        case errcode, error, message, detail, title, errors
        case errorDescription = "error_description"
        case retryAfterMs = "retry_after_ms"
        case retryAfter = "retry_after"
    }

    struct ErrorItem: Decodable {
        @Lenient var message: String?
        @Lenient var detail: String?
    }
}

/// A field holding a text, or an object whose `message` is one.
private struct ServerText: Decodable {
    /// The text when the field is one (empty included).
    let text: String?
    /// The object's `message` when the field is an object.
    let nested: String?

    private struct Nested: Decodable {
        @Lenient var message: String?
    }

    init(from decoder: any Decoder) throws {
        let value = try decoder.singleValueContainer()
        text = try? value.decode(String.self)
        nested = text == nil ? (try? value.decode(Nested.self))?.message : nil
    }

    var isText: Bool { text != nil }
    /// What the field says: a text that is not empty, else an object's message.
    var shown: String? { text.flatMap { $0.isEmpty ? nil : $0 } ?? nested }
}
