import FlyingFox
import Foundation
import Logging
import Messages
import SensorInput
import WallTime

/// One `POST /ingest` request, from the token to the answer: authenticate (bearer, Basic password or path token, in
/// constant time; the token is never logged or repeated), read the body within `max_body` (inflated when gzip),
/// recognise and parse the payload, commit it, answer. A payload that cannot be read is refused whole, naming what is
/// wrong and where, and stores nothing; one whose items cannot all be read stores the others and names those left out.
struct IngestHandler: Sendable {
    let token: [UInt8]
    let maxBody: Int
    let store: StateStore
    let logger: Logger
    let clock: WallClock

    func answer(_ request: HTTPRequest, pathToken: String?) async throws -> HTTPResponse {
        let bearer = request.headers[.authorization].flatMap { h -> String? in
            h.lowercased().hasPrefix("bearer ") ? String(h.dropFirst(7)).trimmingCharacters(in: .whitespaces) : nil
        }
        guard let given = bearer ?? Self.basicPassword(request) ?? pathToken, !token.isEmpty,
            HTTPServing.constantTimeEqual(Array(given.utf8), token)
        else {
            var response = Self.json(
                .unauthorized,
                [
                    "error":
                        "a valid token is required: in the Authorization header (Bearer TOKEN, or Basic with TOKEN as the password) or in the path (/ingest/TOKEN)"
                ])
            response.headers[HTTPHeader("WWW-Authenticate")] = "Bearer"
            return response
        }
        let payload: Payload
        do {
            payload = try await receivedPayload(request)
        } catch let refusal as Refusal {
            return refusal.response
        }
        let convention = AppConventions.of(payload.app)
        if let problem = payload.problem, let tellUser = convention.tellUser {
            return tellUser("steptweet counts nothing of this recording: \(problem)\n")
        }
        if payload.isTest {
            if payload.refusedCount > 0 { return leftOut(payload, ReceivedCommit(), convention) }
            return Self.json(.ok, ["format": payload.format, "test": true, "readings": 0, "samples": 0])
        }
        let committed: ReceivedCommit
        do {
            // The valid items are committed even when some were left out: refusing them all would keep them out for
            // as long as the phone sends the bad one again (Health Auto Export: two days).
            committed = try store.commit(payload, nowNs: clock.nowNs())
        } catch {
            logger.error("receiver: cannot store a \(payload.format) payload: \(error)")
            if let tellUser = convention.tellUser {
                return tellUser(
                    "steptweet could not store this message, nothing of it was kept: its state database cannot be written now\n"
                )
            }
            return Self.json(.serviceUnavailable, ["error": "the state database cannot be written now; send again"])
        }
        logger.debug(
            "received \(payload.format) from \(committed.devices.joined(separator: ", ")): \(committed.readings) readings, \(committed.samples) samples, \(committed.duplicates) duplicates"
        )
        if payload.refusedCount > 0 { return leftOut(payload, committed, convention) }
        if let stored = convention.stored { return stored(payload) }
        var answer: [String: Any] = [
            "format": payload.format, "readings": committed.readings, "samples": committed.samples,
            "duplicates": committed.duplicates, "device": committed.devices.joined(separator: ", "),
        ]
        if !payload.ignored.isEmpty { answer["ignored"] = payload.ignored }
        return Self.json(.ok, answer)
    }

    /// The answer to a payload whose valid items are stored and some of whose items were left out, logged once:
    /// told to the app's user by its convention (Sensor Logger's 499 text), else a 422 whose JSON names each item
    /// left out (the first `Payload.refusedKept`, with `refused_count`) beside the stored payload's summary, or as
    /// stored for an app that would block on anything but a 2xx (`AppConvention.unreadable`). A resend of the same
    /// payload stores nothing again and gets the same answer.
    func leftOut(_ payload: Payload, _ committed: ReceivedCommit, _ convention: AppConvention) -> HTTPResponse {
        let what = payload.refusalHeadline
        logger.warning(
            "receiver: \(payload.format) payload: \(what) (\(committed.readings) new readings, \(committed.samples) new samples): \(payload.refusalSummary(naming: 3))"
        )
        if let tellUser = convention.tellUser {
            return tellUser(
                "steptweet, of this message: \(what): \(payload.refusalSummary(naming: 3, devices: false))\n")
        }
        if convention.unreadable != nil, let stored = convention.stored { return stored(payload) }
        var answer: [String: Any] = [
            "error": "\(what): \(payload.refusalSummary(naming: 3))", "format": payload.format,
            "stored": payload.items.count,
            "readings": committed.readings, "samples": committed.samples, "duplicates": committed.duplicates,
            "device": committed.devices.joined(separator: ", "), "refused_count": payload.refusedCount,
            "refused": payload.refused.map { e -> [String: String] in
                var item = ["field": e.path, "reason": e.message]
                if let device = e.device { item["device"] = device }
                return item
            },
        ]
        if !payload.ignored.isEmpty { answer["ignored"] = payload.ignored }
        if payload.isTest { answer["test"] = true }
        return Self.json(.unprocessableContent, answer)
    }

    /// The password of `Authorization: Basic` (OwnTracks authenticates so, with its user and password settings):
    /// the token, whatever the user name.
    static func basicPassword(_ request: HTTPRequest) -> String? {
        guard let header = request.headers[.authorization], header.lowercased().hasPrefix("basic "),
            let decoded = Data(base64Encoded: header.dropFirst(6).trimmingCharacters(in: .whitespaces)),
            let pair = String(data: decoded, encoding: .utf8), let colon = pair.firstIndex(of: ":")
        else { return nil }
        return String(pair[pair.index(after: colon)...])
    }

    /// A request refused before anything of it is stored: its answer.
    struct Refusal: Error {
        var response: HTTPResponse
    }

    /// The request's payload. Its body is let go on return, before the commit, so that a large body and what was
    /// read from it are not held at once.
    func receivedPayload(_ request: HTTPRequest) async throws -> Payload {
        let body = try await readBody(request)
        if let type = request.headers[.contentType], type.lowercased().hasPrefix("multipart/form-data") {
            // Health Auto Export sends its CSV export so (read whole first: answering before the body is read may
            // reset the connection under the answer); every format read here is JSON.
            throw Refusal(
                response: Self.json(
                    .unsupportedMediaType,
                    [
                        "error":
                            "Content-Type multipart/form-data (Health Auto Export's CSV export) is not read: send JSON (in Health Auto Export, set the automation's export format to JSON)"
                    ]))
        }
        let format = request.query.first { $0.name == "format" }?.value
        if body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }),
            let sender = Self.emptyBodySender(request, format)
        {
            return Payload(app: sender.app, ignored: [sender.note])
        }
        do {
            return try PayloadFormats.parse(bytes: body, format: format)
        } catch let error as PayloadError {
            let app = error.app ?? Self.emptyBodySender(request, format)?.app
            if let app, let unreadable = AppConventions.of(app).unreadable {
                logger.warning("receiver: \(app.rawValue) message refused whole, answered 2xx: \(error.description)")
                do {
                    try store.refused(
                        device: app.rawValue, format: app.rawValue, nowNs: clock.nowNs(),
                        text: "refused whole: \(error.description)")
                } catch {
                    logger.error("receiver: cannot keep a refusal for status: \(error)")
                }
                throw Refusal(response: unreadable())
            }
            if let tellUser = AppConventions.of(error.app).tellUser {
                throw Refusal(
                    response: tellUser(
                        "steptweet refused this message, nothing of it was stored: \(error.description)\n"))
            }
            throw Refusal(response: Self.json(.badRequest, ["error": error.description, "format": error.format ?? ""]))
        }
    }

    /// The app whose empty body this is (`AppConvention.emptyBody`): named by `?format=NAME`, or told by the
    /// request's headers.
    static func emptyBodySender(_ request: HTTPRequest, _ format: String?) -> (app: PayloadApp, note: String)? {
        let named = format.flatMap(PayloadFormats.named)?.app
        for app in PayloadApp.allCases {
            if let empty = AppConventions.of(app).emptyBody, named == app || empty.sentBy(request) {
                return (app, empty.note)
            }
        }
        return nil
    }

    /// The body, at most `maxBody` bytes as sent and, when gzip, as inflated.
    func readBody(_ request: HTTPRequest) async throws -> [UInt8] {
        let tooLarge = Refusal(
            response: Self.json(.payloadTooLarge, ["error": "the body is larger than max_body (\(maxBody) bytes)"]))
        let length = request.headers[.contentLength].flatMap(Int.init)
        if let length, length > maxBody { throw tooLarge }
        var body: [UInt8] = []
        body.reserveCapacity(length ?? 0)
        for try await chunk in request.bodySequence {
            body.append(contentsOf: chunk)
            if body.count > maxBody { throw tooLarge }
        }
        guard let encoding = request.headers[.contentEncoding]?.lowercased(), encoding != "identity" else {
            return body
        }
        guard encoding == "gzip" || encoding == "x-gzip" else {
            throw Refusal(
                response: Self.json(
                    .unsupportedMediaType, ["error": "Content-Encoding \(encoding) is not taken: send gzip or none"]))
        }
        do {
            return [UInt8](try GzipBody.inflate(Data(body), limit: maxBody))
        } catch let failure as GzipBody.Failure {
            if case .tooLarge = failure { throw tooLarge }
            throw Refusal(response: Self.json(.badRequest, ["error": failure.description]))
        }
    }

    static let methodNotAllowed: HTTPResponse = {
        var response = json(.methodNotAllowed, ["error": "use POST"])
        response.headers[HTTPHeader("Allow")] = "POST"
        return response
    }()

    static func json(_ status: HTTPStatusCode, _ object: [String: Any]) -> HTTPResponse {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return HTTPResponse(statusCode: status, headers: [.contentType: "application/json"], body: data)
    }

}
