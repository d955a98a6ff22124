import Clocks
import Foundation
import GRDB
import HTTPTypes
import Logging
import SensorInput
import TestSupport
import Testing
import WallTime

@testable import Agent
@testable import Store

/// The table of app answer conventions, through the receiver's handler in process: each app's convention reaches
/// that app and no other (a 499 only for Sensor Logger, a JSON array only for OwnTracks, an empty body answered 200
/// only for OwnTracks), and every other app keeps the plain JSON answers: 400 for a body refused whole, 422 naming the
/// items left out.
@Suite struct AppConventionsTests {
    static let token = "s3cret-token"

    /// One valid body of each app's payload format, and one whose only item cannot be read.
    static let bodies: [PayloadApp: (valid: String, malformed: String)] = [
        .healthAutoExport: (
            #"{"data": {"metrics": [{"name": "step_count", "units": "count", "data": [{"date": "2026-11-21 10:00:00 +0900", "qty": 12, "source": "phone"}]}]}}"#,
            #"{"data": {"metrics": [{"name": "step_count", "units": "count", "data": [{"date": "2026-11-21 10:00 +0900", "qty": 12}]}]}}"#
        ),
        .sensorLogger: (
            #"{"messageId": 1, "sessionId": "s1", "deviceId": "d1", "payload": [{"name": "totalacceleration", "time": 1795316400000000000, "values": {"x": 0.1, "y": 0.2, "z": 9.7}}]}"#,
            #"{"messageId": 1, "sessionId": "s1", "deviceId": "d1", "payload": [{"name": "totalacceleration", "time": 1795316400000000000, "values": {"x": "a", "y": 0.2, "z": 9.7}}]}"#
        ),
        .healthConnect: (
            #"{"timestamp": "2026-11-21T03:15:00Z", "app_version": "1.4.0", "steps": [{"count": 12, "start_time": "2026-11-21T03:00:00Z", "end_time": "2026-11-21T03:15:00Z"}]}"#,
            #"{"timestamp": "2026-11-21T03:15:00Z", "app_version": "1.4.0", "steps": [{"count": -3, "start_time": "2026-11-21T03:00:00Z", "end_time": "2026-11-21T03:15:00Z"}]}"#
        ),
        .ownTracks: (
            #"{"_type": "location", "lat": 35.68, "lon": 139.76, "tst": 1795316400}"#,
            #"{"_type": "steps", "steps": "many", "from": 1795273200, "to": 1795316400}"#
        ),
        .stepLog: (#"{"ts": "2026-11-21T10:05:00Z", "steps": 12}"# + "\n", #"{"ts": "soon", "steps": 12}"# + "\n"),
    ]

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

    @Test(arguments: PayloadApp.allCases)
    func eachAppGetsItsOwnConventionAndNoOther(_ app: PayloadApp) async throws {
        let dir = try TempDir()
        let handler = try Self.handler(dir)
        let (valid, malformed) = try #require(Self.bodies[app])

        // Its one item cannot be read: left out, and the app told so by its convention.
        let refused = try await Self.send(handler, malformed)
        if app == .sensorLogger {
            #expect(refused.status == 499 && refused.contentType?.hasPrefix("text/plain") == true)
            #expect(
                refused.text.hasPrefix(
                    "steptweet, of this message: stored 0 items, left out 1 that cannot be read: payload[0]"),
                "\(refused.text)")
        } else if app == .ownTracks {
            // It holds its queue until a 2xx: what it cannot fix is answered 200, as stored.
            #expect(refused.status == 200 && refused.array != nil, "\(refused.text)")
        } else {
            #expect(refused.status == 422, "\(app): \(refused.text)")
            #expect(refused.contentType == "application/json")
            #expect(refused.object?["format"] as? String == app.rawValue, "\(app): \(refused.text)")
            #expect(refused.object?["refused_count"] as? Int == 1, "\(app): \(refused.text)")
            #expect((refused.object?["refused"] as? [[String: String]])?.first?["field"] != nil, "\(refused.text)")
        }

        let stored = try await Self.send(handler, valid)
        #expect(stored.status == 200, "\(app): \(stored.text)")
        #expect(stored.contentType == "application/json")
        if app == .ownTracks {
            #expect(stored.array?.count == 1, "OwnTracks reads an array: \(stored.text)")
        } else {
            #expect(stored.object?["format"] as? String == app.rawValue, "\(app): \(stored.text)")
        }

        // Only OwnTracks sends an empty body and waits for a 2xx; any other app's empty body is refused, as that
        // app is told of a refusal.
        let empty = try await Self.send(handler, "", format: app.rawValue)
        if app == .ownTracks {
            #expect(empty.status == 200 && empty.array != nil, "\(empty.text)")
        } else if app == .sensorLogger {
            #expect(empty.status == 499 && empty.text.contains("nothing of it was stored"), "\(empty.text)")
        } else {
            #expect(empty.status == 400 && empty.object?["error"] != nil, "\(app): \(empty.text)")
        }
    }

    /// Sensor Logger sends no message again (push-sources.md) and shows nothing of a 503: a message that cannot be
    /// stored is told to its user with a 499. An app that retries (Health Auto Export) keeps the 503.
    @Test func aMessageThatCannotBeStoredIsToldToTheSensorLoggerUser() async throws {
        let dir = try TempDir()
        let handler = try Self.handler(dir)
        try await handler.store.writer.write { db in try db.execute(sql: "DROP TABLE received_device") }
        let lost = try await Self.send(handler, Self.bodies[.sensorLogger]!.valid)
        #expect(lost.status == 499 && lost.contentType?.hasPrefix("text/plain") == true)
        #expect(lost.text.contains("could not store this message"), "\(lost.text)")
        let retried = try await Self.send(handler, Self.bodies[.healthAutoExport]!.valid)
        #expect(retried.status == 503 && retried.object?["error"] != nil, "\(retried.text)")
    }
}
