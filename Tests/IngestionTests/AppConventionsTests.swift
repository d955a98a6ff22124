import Clocks
import Foundation
import GRDB
import HTTPTypes
import Logging
import SensorInput
import TestSupport
import Testing
import WallTime

@testable import Ingestion
@testable import Store

/// The table of app answer conventions, through the receiver's handler in process: each app's convention reaches
/// that app and no other (a 499 only for Sensor Logger, a JSON array only for OwnTracks, an empty body answered 200
/// only for OwnTracks), and every other app keeps the plain JSON answers: 400 for a body refused whole, 422 naming the
/// items left out.
@Suite struct AppConventionsTests {
    static let token = "s3cret-token"

    struct Answer {
        var status: Int
        var contentType: String?
        var body: Data
        var object: [String: Any]? { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] }
        var array: [Any]? { (try? JSONSerialization.jsonObject(with: body)) as? [Any] }
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// The receiver's handler in process, its state in `dir`.
    static func handler(_ dir: TempDir) throws -> IngestHandler {
        IngestHandler(
            maxBody: 1 << 20, store: try StateStore(path: dir.path("state.sqlite")),
            logger: Logger(label: "test"),
            clock: WallClock(ImmediateClock(), startingAt: Date(timeIntervalSince1970: 1_795_316_460)))
    }

    /// `body` POSTed to `/ingest` (with `?format=` when given) with the token, or the headers given: through the
    /// receiver's token check (`TokenMiddleware`) and its handler, as its route does.
    static func send(
        _ handler: IngestHandler, _ body: String, format: String? = nil,
        headers: HTTPFields = [.authorization: "Bearer \(token)"]
    ) async throws -> Answer {
        let tokenCheck = TokenMiddleware.ingest(token: token)
        let bytes = Array(body.utf8)
        let answer =
            tokenCheck.accepts(authorization: headers[.authorization], pathToken: nil)
            ? try await handler.answer(
                IngestRequest(headerFields: headers, format: format) { limit in bytes.count <= limit ? bytes : nil })
            : tokenCheck.refusal
        return Answer(status: answer.status.code, contentType: answer.headerFields[.contentType], body: answer.body)
    }

    /// `answer` is as `expected` declares, for `app`.
    static func check(_ answer: Answer, is expected: PushAppCase.Answer, _ app: String, _ what: String) {
        switch expected {
        case .json(let status):
            #expect(
                answer.status == status && answer.contentType == "application/json", "\(app) \(what): \(answer.text)")
            #expect(answer.object != nil, "\(app) \(what): \(answer.text)")
        case .told(let status):
            #expect(answer.status == status && answer.contentType?.hasPrefix("text/plain") == true, "\(answer.text)")
        case .array(let status):
            #expect(answer.status == status && answer.array != nil, "\(app) \(what): \(answer.text)")
        }
    }

    @Test(arguments: PushAppCase.all)
    func eachAppGetsItsOwnConventionAndNoOther(_ app: PushAppCase) async throws {
        let dir = try TempDir()
        let handler = try Self.handler(dir)

        // Its one item cannot be read: left out, and the app told so by its convention.
        let refused = try await Self.send(handler, app.malformed)
        Self.check(refused, is: app.leftOut, app.name, "left out")
        if app.leftOut == .json(422) {
            #expect(refused.object?["format"] as? String == app.name, "\(app): \(refused.text)")
            #expect(refused.object?["refused_count"] as? Int == 1, "\(app): \(refused.text)")
            #expect((refused.object?["refused"] as? [[String: String]])?.first?["field"] != nil, "\(refused.text)")
        } else if case .told = app.leftOut {
            #expect(
                refused.text.hasPrefix("steptweet, of this message: stored 0 items, left out 1 that cannot be read: "),
                "\(refused.text)")
        }

        let stored = try await Self.send(handler, app.valid)
        Self.check(stored, is: app.stored, app.name, "stored")
        if case .json = app.stored {
            #expect(stored.object?["format"] as? String == app.name, "\(app): \(stored.text)")
        } else {
            #expect(stored.array?.count == 1, "OwnTracks reads an array: \(stored.text)")
        }

        // Only an app that sends an empty body and waits for a 2xx has it answered so; any other app's empty body is
        // refused, as that app is told of a refusal.
        let empty = try await Self.send(handler, "", format: app.name)
        Self.check(empty, is: app.emptyBody, app.name, "empty body")
        if case .told = app.emptyBody { #expect(empty.text.contains("nothing of it was stored"), "\(empty.text)") }
        if case .json = app.emptyBody { #expect(empty.object?["error"] != nil, "\(app): \(empty.text)") }
    }

    /// Sensor Logger sends no message again (push-sources.md) and shows nothing of a 503: a message that cannot be
    /// stored is told to its user with a 499. An app that retries (Health Auto Export) keeps the 503.
    @Test func aMessageThatCannotBeStoredIsToldToTheSensorLoggerUser() async throws {
        let dir = try TempDir()
        let handler = try Self.handler(dir)
        try await handler.store.writer.write { db in try db.execute(sql: "DROP TABLE received_device") }
        let lost = try await Self.send(handler, PushAppCase.named("sensor-logger").valid)
        #expect(lost.status == 499 && lost.contentType?.hasPrefix("text/plain") == true)
        #expect(lost.text.contains("could not store this message"), "\(lost.text)")
        let retried = try await Self.send(handler, PushAppCase.named("health-auto-export").valid)
        #expect(retried.status == 503 && retried.object?["error"] != nil, "\(retried.text)")
    }
}
