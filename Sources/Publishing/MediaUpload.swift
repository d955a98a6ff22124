import Foundation
import Messages

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A `multipart/form-data` body (RFC 7578): the one builder every target that sends a file uses (Mastodon, Misskey,
/// Discord, X). Text fields go without a content type, as browsers send them (UTF-8); a file part names its file and
/// its type. The boundary is random and checked against the parts, so no part can end the body early.
public struct MultipartBody: Sendable {
    enum Part {
        case field(name: String, value: String)
        case file(name: String, filename: String, contentType: String, data: Data)
    }

    var parts: [Part] = []

    public init() {}

    /// A text field.
    public mutating func add(_ name: String, _ value: String) { parts.append(.field(name: name, value: value)) }

    /// A file: its bytes go into the body untouched.
    public mutating func addFile(_ name: String, filename: String, contentType: String, data: Data) {
        parts.append(.file(name: name, filename: filename, contentType: contentType, data: data))
    }

    /// The body with a boundary found in none of its parts, and the `Content-Type` that announces it.
    public func encoded() -> (contentType: String, body: Data) {
        var boundary = Self.makeBoundary()
        while parts.contains(where: { $0.contains(boundary) }) { boundary = Self.makeBoundary() }
        var body = Data()
        for part in parts {
            body.append(Data("--\(boundary)\r\n".utf8))
            switch part {
            case .field(let name, let value):
                body.append(Data("Content-Disposition: form-data; name=\"\(Self.quoted(name))\"\r\n\r\n".utf8))
                body.append(Data(value.utf8))
            case .file(let name, let filename, let contentType, let data):
                body.append(
                    Data(
                        ("Content-Disposition: form-data; name=\"\(Self.quoted(name))\"; "
                            + "filename=\"\(Self.quoted(filename))\"\r\nContent-Type: \(contentType)\r\n\r\n").utf8))
                body.append(data)
            }
            body.append(Data("\r\n".utf8))
        }
        body.append(Data("--\(boundary)--\r\n".utf8))
        return ("multipart/form-data; boundary=\(boundary)", body)
    }

    /// A request carrying this body.
    func request(_ method: String, _ url: URL, headers: [String: String] = [:]) -> URLRequest {
        let (contentType, body) = encoded()
        return Requests.data(method, url, contentType: contentType, body: body, headers: headers)
    }

    /// 30 random letters and digits after a fixed prefix: far inside RFC 2046's 70 characters.
    static func makeBoundary() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        return "steptweet-" + String((0..<30).map { _ in alphabet.randomElement() ?? "x" })
    }

    /// A name or file name inside a quoted header parameter: quotes and line breaks cannot end it.
    static func quoted(_ text: String) -> String {
        text.replacingOccurrences(of: "\"", with: "%22").replacingOccurrences(of: "\r", with: "%0D")
            .replacingOccurrences(of: "\n", with: "%0A")
    }
}

extension MultipartBody.Part {
    func contains(_ boundary: String) -> Bool {
        let needle = Data(boundary.utf8)
        switch self {
        case .field(let name, let value): return (name + value).contains(boundary)
        case .file(_, _, _, let data): return data.range(of: needle) != nil
        }
    }
}

extension PostImage {
    /// The file name a target shows for the chart: the post's idempotency key, so that every attempt names it the
    /// same (`steps-20261121T010000Z-20261121T013000Z.png`).
    static func fileName(for post: Post) -> String { post.idempotencyKey + ".png" }

    /// The alt text cut at a grapheme boundary (ended with `…`) to a target's limit: Mastodon 1500, X 1000,
    /// Discord 1024, Misskey 512, in code points (what Mastodon's Ruby, Discord's Python and Misskey's schema count;
    /// never more than graphemes). The renderer keeps it within the largest limits already; a cut is the last
    /// resort, better than a refused upload.
    func alt(limit: Int) -> String { LengthRule.codePoints(limit).shorten(alt) ?? alt }
}

extension ImageOption {
    /// The image `post` carries to a target with this option: nil when the target posts text only or the post has
    /// no image.
    func image(of post: Post) -> PostImage? { chart ? post.image : nil }
}

/// How a target's post meets its image and `image_required`: the one place that decides when a failed upload
/// fails the post and when the text goes out alone (and says so with `.deliveredWithoutImage`).
///
/// An upload that fails is never an unconfirmed post: nothing was posted yet, so the outcome is retryable with
/// `unconfirmed: false` (no look-up needed before the next attempt, and `resend_unconfirmed = false` does not give
/// the post up). The next attempt uploads again; an upload whose answer was lost stays on the server unattached,
/// which every target either deletes (Mastodon after a day, X after 24 h, Bluesky's unreferenced blobs) or keeps
/// out of sight (a Misskey drive file, a Matrix media item nobody links).
enum ImageAttachment {
    /// Targets that upload first and post a reference (Mastodon, Bluesky, Misskey, Matrix, X): `upload` returns the
    /// reference or the outcome that stops the post; `send` posts with the reference, or without it (nil).
    static func uploadThenPost<Media>(
        _ post: Post, option: ImageOption, target: String,
        upload: (PostImage) async -> Result<Media, Stop>,
        send: (Media?) async -> DeliveryOutcome
    ) async -> DeliveryOutcome {
        guard let image = option.image(of: post) else { return await send(nil) }
        let failure: DeliveryOutcome
        switch await upload(image) {
        case .success(let media): return await send(media)
        case .failure(let stop): failure = uploadFailure(stop.outcome)
        }
        if option.required { return failure }
        return textOnly(await send(nil), because: "its image could not be uploaded to \(target)", failure)
    }

    /// `uploadThenPost` for the text `gate` lets through (as it is, or cut): a text it refuses stops the post before
    /// anything is uploaded. `send` posts that text with the reference, or without it (nil).
    static func uploadThenPost<Media>(
        _ post: Post, gate: TextGate, option: ImageOption, target: String,
        upload: (PostImage) async -> Result<Media, Stop>,
        send: (String, Media?) async -> DeliveryOutcome
    ) async -> DeliveryOutcome {
        switch gate.prepare(post.text) {
        case .failure(let stop): return stop.outcome
        case .success(let text):
            return await uploadThenPost(post, option: option, target: target, upload: upload) { await send(text, $0) }
        }
    }

    /// Targets whose image travels in the post's own request (Discord, ntfy, webhook, file): a post refused for
    /// good with its image is sent again without it when the image is not required. A retryable failure is not:
    /// the post with its image may have been made, and the next attempt sends the same request again.
    static func inOneRequest(
        _ post: Post, option: ImageOption, target: String,
        send: (PostImage?) async -> DeliveryOutcome
    ) async -> DeliveryOutcome {
        guard let image = option.image(of: post) else { return await send(nil) }
        let outcome = await send(image)
        guard case .permanent = outcome, !option.required else { return outcome }
        return textOnly(await send(nil), because: "\(target) refused the post with its image", outcome)
    }

    /// An upload's failure as the post's outcome: never unconfirmed, its reason saying it was the upload.
    static func uploadFailure(_ outcome: DeliveryOutcome) -> DeliveryOutcome {
        switch outcome {
        case .retryable(let reason, let after, _):
            return .retryable(reason: "image upload: \(reason)", retryAfter: after, unconfirmed: false)
        case .permanent(let reason):
            return .permanent(reason: "image upload: \(reason)")
        default:
            return .permanent(reason: "image upload: \(outcome)")
        }
    }

    /// The outcome of the text-only post, marked as delivered without its image when it went through.
    static func textOnly(_ outcome: DeliveryOutcome, because why: String, _ failure: DeliveryOutcome)
        -> DeliveryOutcome
    {
        guard case .delivered(let id) = outcome else { return outcome }
        return .deliveredWithoutImage(
            remoteID: id, reason: "posted without its image (image_required = false): \(why): \(failure.reason)")
    }
}

extension HTTPContext {
    /// The reference an upload's 2xx `reply` carries (`read`: a media id, an mxc:// URI, a blob), or the stop when it
    /// carries none: the one place that decides what such an answer is, for every target that uploads first. It is
    /// retryable, not permanent: a 2xx without the reference is a proxy's or a captive portal's page, or a server
    /// that took the upload and lost it, and the next attempt (which uploads again) may well get through; a
    /// permanent failure would lose a post that needs its image for good. Not unconfirmed: nothing was posted.
    func uploadReference<Reference>(
        in reply: HTTPReply, named what: String, _ read: (HTTPReply) -> Reference?
    ) -> Result<Reference, Stop> {
        if let reference = read(reply) { return .success(reference) }
        return .failure(
            Stop(
                .retryable(
                    reason: ResponseClassifier.reason(reply, redactor: redactor) + " (no \(what) in the answer)",
                    retryAfter: nil)))
    }
}

extension DeliveryOutcome {
    /// The reason of a failed outcome, or a description of the others.
    var reason: String {
        switch self {
        case .retryable(let reason, _, _), .permanent(let reason): return reason
        default: return "\(self)"
        }
    }
}
