import Foundation
import HTTPTypes
import Logging
import SensorInput
import Store
import WallTime

/// One `POST /ingest` request whose token `TokenMiddleware` has checked, to its answer: read the body within
/// `max_body` (inflated when gzip), recognise and parse the payload (`PushApps`), commit it (Store's
/// `StateStore.commit`), answer as its app must be answered (`AppConvention`). A payload that cannot be read is
/// refused whole, naming what is wrong and where, and stores nothing; one whose items cannot all be read stores the
/// others and names those left out.
struct IngestHandler: Sendable {
    let maxBody: Int
    let store: StateStore
    let logger: Logger
    let clock: WallClock
    /// Memory given back once a large body is read and once it is parsed, so that reading it (the HTTP server's
    /// code), parsing it and committing it do not all stay resident at once. Nil: never.
    var releaseMemory: MemoryRelease? = nil

    func answer(_ request: IngestRequest) async throws -> HTTPAnswer {
        let payload: Payload
        let bodyBytes: Int
        do {
            (payload, bodyBytes) = try await receivedPayload(request)
        } catch let refusal as Refusal {
            return refusal.response
        }
        // The body and what parsing it left are freed by now: give them and the parser's pages back before the commit.
        releaseMemory?.after(bodyOf: bodyBytes)
        let convention = PushApps.convention(of: payload.format)
        if let problem = payload.problem, let tellUser = convention.tellUser {
            return tellUser("steptweet counts nothing of this recording: \(problem)\n")
        }
        if payload.isTest {
            if payload.refusedCount > 0 { return leftOut(payload, ReceivedCommit(), convention) }
            return .json(.ok, StoredAnswer(format: payload.format, test: true, readings: 0, samples: 0))
        }
        let committed: ReceivedCommit
        do {
            // The valid items are committed even when some were left out: refusing them all would keep them out for
            // as long as the phone sends the bad one again (Health Auto Export: two days).
            committed = try store.commit(payload, now: clock.nowInstant())
        } catch {
            logger.error("receiver: cannot store a \(payload.format) payload: \(error)")
            if let tellUser = convention.tellUser {
                return tellUser(
                    "steptweet could not store this message, nothing of it was kept: its state database cannot be written now\n"
                )
            }
            return .error(.serviceUnavailable, "the state database cannot be written now; send again")
        }
        logger.debug(
            "received \(payload.format) from \(committed.deviceNames ?? "no named device"): \(committed.readings) readings, \(committed.samples) samples, \(committed.duplicates) duplicates"
        )
        if payload.refusedCount > 0 { return leftOut(payload, committed, convention) }
        if let stored = convention.stored { return stored(payload) }
        return .json(.ok, StoredAnswer(payload, committed))
    }

    /// The answer to a payload whose valid items are stored and some of whose items were left out, logged once:
    /// told to the app's user by its convention (Sensor Logger's 499 text), else a 422 whose JSON names each item
    /// left out (the first `Payload.refusedKept`, with `refused_count`) beside the stored payload's summary, or as
    /// stored for an app that would block on anything but a 2xx (`AppConvention.unreadable`). A resend of the same
    /// payload stores nothing again and gets the same answer.
    func leftOut(_ payload: Payload, _ committed: ReceivedCommit, _ convention: AppConvention) -> HTTPAnswer {
        let what = payload.refusalHeadline
        logger.warning(
            "receiver: \(payload.format) payload: \(what) (\(committed.readings) new readings, \(committed.samples) new samples): \(payload.refusalSummary(naming: 3))"
        )
        if let tellUser = convention.tellUser {
            return tellUser(
                "steptweet, of this message: \(what): \(payload.refusalSummary(naming: 3, devices: false))\n")
        }
        if convention.unreadable != nil, let stored = convention.stored { return stored(payload) }
        return .json(.unprocessableContent, LeftOutAnswer(payload, committed))
    }

    /// A request refused before anything of it is stored: its answer.
    struct Refusal: Error {
        var response: HTTPAnswer
    }

    /// The request's payload and the size of its body. The body is let go on return, before the commit, so that a
    /// large body and what was read from it are not held at once.
    func receivedPayload(_ request: IngestRequest) async throws -> (Payload, bodyBytes: Int) {
        let body = try await readBody(request)
        // The HTTP server's pages that read it are not needed to parse it.
        releaseMemory?.after(bodyOf: body.count)
        if let type = request.headerFields[.contentType], type.lowercased().hasPrefix("multipart/form-data") {
            // Health Auto Export sends its CSV export so (read whole first: answering before the body is read may
            // reset the connection under the answer); every format read here is JSON.
            throw Refusal(
                response: .error(
                    .unsupportedMediaType,
                    "Content-Type multipart/form-data (Health Auto Export's CSV export) is not read: send JSON (in Health Auto Export, set the automation's export format to JSON)"
                ))
        }
        let format = request.format
        if body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }),
            let sender = Self.emptyBodySender(request, format)
        {
            return (Payload(format: sender.app.name, ignored: [sender.note]), body.count)
        }
        do {
            return (try PushApps.parse(bytes: body, format: format), body.count)
        } catch let error as PayloadError {
            throw refusal(of: error, request)
        }
    }

    /// The answer to a body refused whole: as its app must be told (a 2xx to an app that would block, its user's
    /// notice), else a 400 naming what is wrong.
    func refusal(of error: PayloadError, _ request: IngestRequest) -> Refusal {
        let app = error.format.flatMap(PushApps.named) ?? Self.emptyBodySender(request, request.format)?.app
        if let app, let unreadable = app.convention.unreadable {
            logger.warning("receiver: \(app.name) message refused whole, answered 2xx: \(error.description)")
            do {
                try store.refused(
                    device: app.name, format: app.name, now: clock.nowInstant(),
                    text: "refused whole: \(error.description)")
            } catch {
                logger.error("receiver: cannot keep a refusal for status: \(error)")
            }
            return Refusal(response: unreadable())
        }
        if let tellUser = PushApps.convention(of: error.format).tellUser {
            return Refusal(
                response: tellUser("steptweet refused this message, nothing of it was stored: \(error.description)\n"))
        }
        return Refusal(response: .json(.badRequest, ErrorAnswer(error: error.description, format: error.format)))
    }

    /// The app whose empty body this is (`AppConvention.emptyBody`): named by `?format=NAME`, or told by the
    /// request's headers.
    static func emptyBodySender(_ request: IngestRequest, _ format: String?) -> (app: any PushApp, note: String)? {
        let named = format.flatMap(PushApps.named)?.name
        for app in PushApps.all {
            if let empty = app.convention.emptyBody, named == app.name || empty.sentBy(request.headerFields) {
                return (app, empty.note)
            }
        }
        return nil
    }

    /// The body, at most `maxBody` bytes as sent and, when gzip, as inflated.
    func readBody(_ request: IngestRequest) async throws -> [UInt8] {
        let tooLarge = Refusal(
            response: .error(.contentTooLarge, "the body is larger than max_body (\(maxBody) bytes)"))
        guard let body = try await request.readBody(maxBody) else { throw tooLarge }
        guard let encoding = request.headerFields[.contentEncoding]?.lowercased(), encoding != "identity" else {
            return body
        }
        guard encoding == "gzip" || encoding == "x-gzip" else {
            throw Refusal(
                response: .error(.unsupportedMediaType, "Content-Encoding \(encoding) is not taken: send gzip or none"))
        }
        do {
            return [UInt8](try GzipBody.inflate(Data(body), limit: maxBody))
        } catch let failure as GzipBody.Failure {
            if case .tooLarge = failure { throw tooLarge }
            throw Refusal(response: .error(.badRequest, failure.description))
        }
    }

    static let methodNotAllowed: HTTPAnswer = {
        var answer = HTTPAnswer.error(.methodNotAllowed, "use POST")
        answer.headerFields[.allow] = "POST"
        return answer
    }()
}

/// Memory given back (the agent's `MemoryTrim`) after a body larger than `above` bytes, between the stages of its
/// request: a month of Health Auto Export in one request peaked 4-10 MB lower (bench/receiver_load_result.txt).
package struct MemoryRelease: Sendable {
    package var above: Int
    package var release: @Sendable () -> Void

    package init(above: Int, release: @escaping @Sendable () -> Void) {
        self.above = above
        self.release = release
    }

    /// The agent's `above`: a body this large is rare (a month of Health Auto Export is 3.3 MB; a day, 0.1 MB;
    /// Sensor Logger's batch of a second, 10 KB), so the pages faulted back in after it cost nothing that counts.
    package static let largeBody = 1 << 20

    /// Gives memory back when a body of `bytes` is over `above`.
    func after(bodyOf bytes: Int) {
        if bytes > above { release() }
    }
}
