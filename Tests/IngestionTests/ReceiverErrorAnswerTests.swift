import Foundation
import HTTPTypes
import SensorInput
import TestSupport
import Testing

@testable import Ingestion
@testable import Store

/// Every refused request or item is told what is wrong and where: malformed bodies of each payload format, bodies
/// named by `?format=` that lack the format's shape, JSON cut short, a missing token, sent to the receiver's handler
/// in process. Sensor Logger's refusals come as a 499's text, the others as the JSON `error` (400 refused whole, 422
/// items left out).
@Suite struct ReceiverErrorAnswerTests {
    typealias T = AppConventionsTests

    /// A body (with `?format=` when given), and what its refusal must name: the field and what is wrong with it.
    static let cases: [(format: String?, body: String, names: [String])] = [
        // Health Auto Export
        (
            nil, hae(#"{"date": "2026-11-21 10:00:00 +0900", "qty": "many"}"#),
            ["data.metrics[0].data[0].qty", "string"]
        ),
        (nil, hae(#"{"qty": 3}"#), ["data.metrics[0].data[0].date", "missing"]),
        (
            nil, hae(#"{"date": "2026-11-21 10:00:00 +0900", "qty": 3, "source": 5}"#),
            ["data.metrics[0].data[0].source"]
        ),
        (
            nil, #"{"data": {"metrics": [{"name": "step_count", "units": "km", "data": []}]}}"#,
            ["data.metrics[0].units", "km"]
        ),
        (nil, #"{"data": {"metrics": {}}}"#, ["data.metrics", "expected an array"]),
        ("health-auto-export", #"{"data": []}"#, ["data", "expected an object", "array"]),
        ("health-auto-export", #"{"metrics": []}"#, ["data", "missing"]),
        // Sensor Logger
        (
            nil, sl(#"{"name": "totalacceleration", "time": "soon", "values": {"x": 1, "y": 2, "z": 3}}"#),
            ["payload[0].time"]
        ),
        (
            nil, sl(#"{"name": "totalacceleration", "time": 1795316400000000000, "values": {"x": 1, "y": 2}}"#),
            ["payload[0].values.z", "missing"]
        ),
        (
            nil, sl(#"{"name": "pedometer", "time": 1795316400000000000, "values": {"steps": -2}}"#),
            ["payload[0].values.steps", "-2"]
        ),
        (nil, sl("5"), ["payload[0]", "expected an object"]),
        (
            "sensor-logger", #"{"messageId": 1, "sessionId": "s1", "deviceId": "d1", "payload": 5}"#,
            ["payload", "expected an array"]
        ),
        ("sensor-logger", #"{"messageId": 1, "sessionId": "s1", "deviceId": "d1"}"#, ["payload", "missing"]),
        ("sensor-logger", #"{"payload": []}"#, ["deviceId", "missing"]),
        // Health Connect
        (
            nil, hc(#"{"count": "a", "start_time": "2026-11-21T03:00:00Z", "end_time": "2026-11-21T03:15:00Z"}"#),
            ["steps[0].count"]
        ),
        (
            nil, hc(#"{"count": 3, "start_time": "2026-11-21T03:00:00", "end_time": "2026-11-21T03:15:00Z"}"#),
            ["steps[0].start_time", "zone"]
        ),
        (
            nil, hc(#"{"count": 3, "start_time": "2026-11-21T03:00:00Z", "end_time": "2026-11-21T02:15:00Z"}"#),
            ["steps[0].end_time", "before start_time"]
        ),
        (nil, #"{"app_version": "1", "test": "yes", "steps": []}"#, ["test", "true or false"]),
        ("health-connect", #"{"steps": []}"#, ["app_version", "timestamp"]),
        // OwnTracks
        (nil, #"{"_type": "steps", "steps": 5, "to": 1795316400}"#, ["from", "missing"]),
        (nil, #"{"_type": "steps", "steps": -5, "from": 1795273200, "to": 1795316400}"#, ["steps", "-5"]),
        (nil, #"[{"_type": "location"}, {"_type": "steps", "steps": 5, "from": 1795273200}]"#, ["[1].to", "missing"]),
        ("owntracks", #"{"_type": 5}"#, ["_type", "expected a string"]),
        ("owntracks", #"{"type": "steps"}"#, ["_type", "missing"]),
        // The step log
        (
            nil, "{\"ts\": \"2026-11-21T10:05:00Z\", \"steps\": 1}\n{\"ts\": \"later\", \"steps\": 2}\n",
            ["line 2", "ts"]
        ),
        (nil, "{\"ts\": \"2026-11-21T10:05:00Z\"}\n", ["line 1", "steps", "total"]),
        ("steplog", #"{"x": 1}"#, ["line 1", "ts"]),
        (
            nil,
            "{\"ts\": \"2026-11-21T10:05:00Z\", \"steps\": 1}\n{\"ts\": \"2026-11-21T10:06:00Z\", \"steps\": 1, \"meta\": {\"a\": 1}}\n",
            ["line 2", "\"meta\" holds an object"]
        ),
        (
            nil, "{\"ts\": \"2026-11-21T10:05:00Z\", \"steps\": 1}\n{\"ts\": \"2026-11-21T10:06:00Z\", \"steps\": 1\n",
            ["line 2", "column"]
        ),
        // Any format
        (nil, #"{"data": {"metrics": [{"name": "step_count""#, ["not JSON", "line 1, column"]),
        ("health-connect", #"{"app_version": "1", "#, ["not JSON", "line 1, column"]),
        ("fitbit", "{}", ["unknown format 'fitbit'", "health-auto-export"]),
        (nil, "{}", ["not a payload of a known format", "?format=NAME"]),
    ]

    static func hae(_ point: String) -> String {
        #"{"data": {"metrics": [{"name": "step_count", "units": "count", "data": [\#(point)]}]}}"#
    }
    static func sl(_ reading: String) -> String {
        #"{"messageId": 1, "sessionId": "s1", "deviceId": "d1", "payload": [\#(reading)]}"#
    }
    static func hc(_ record: String) -> String {
        #"{"timestamp": "2026-11-21T03:15:00Z", "app_version": "1.4.0", "steps": [\#(record)]}"#
    }

    @Test func everyMalformedBodyIsToldWhatIsWrongAndWhere() async throws {
        let dir = try TempDir()
        let handler = try T.handler(dir)
        func stored() async throws -> Int {
            try await handler.store.writer.read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM received_reading") ?? -1
            }
        }
        var refusedWhole = 0
        for (format, body, names) in Self.cases {
            let before = try await stored()
            let answer = try await T.send(handler, body, format: format)
            let error: String
            if answer.status == 499 {
                error = answer.text
            } else if format == "owntracks" || body.contains("\"_type\"") {
                // OwnTracks holds its queue until a 2xx: answered 200, the refusal kept for `status`.
                #expect(answer.status == 200 && answer.array != nil, "\(body): \(answer.text)")
                let device = try handler.store.receivedDevices().first { $0.device == "owntracks" }
                error = try #require(device?.lastRefusalText, "\(body)")
                #expect(try await stored() == before, "\(body)")
            } else {
                #expect([400, 422].contains(answer.status), "\(body): \(answer.text)")
                error = try #require(answer.object?["error"] as? String, "\(body): \(answer.text)")
            }
            for name in names { #expect(error.contains(name), "\(body): \(error) should name \(name)") }
            // Refused whole (400, or Sensor Logger's "nothing of it was stored"): nothing of it is stored.
            if answer.status == 400 || error.contains("nothing of it was stored") {
                refusedWhole += 1
                #expect(try await stored() == before, "\(body)")
            }
        }
        #expect(refusedWhole >= 10, "bodies that cannot be read at all are among the cases")
    }

    /// A body refused whole names its format only when one was recognised (docs/json.md), never as `"format": ""`.
    @Test func aRefusalNamesTheFormatOnlyWhenOneWasRecognised() async throws {
        let dir = try TempDir()
        let handler = try T.handler(dir)
        let unknown = try await T.send(handler, #"{"data": {"metrics": [{"name": "step_count""#, format: nil)
        #expect(unknown.status == 400 && unknown.object?.keys.sorted() == ["error"], "\(unknown.text)")
        let named = try await T.send(handler, #"{"data": []}"#, format: "health-auto-export")
        #expect(named.status == 400 && named.object?["format"] as? String == "health-auto-export", "\(named.text)")
    }

    /// A request without the token is told where the token goes (without repeating any of it).
    @Test func aMissingTokenIsToldWhereTheTokenGoes() async throws {
        let dir = try TempDir()
        let handler = try T.handler(dir)
        for headers: HTTPFields in [
            [:], [.authorization: "Bearer wrong"], [.authorization: "Basic dGFybzp3cm9uZw=="],
        ] {
            let answer = try await T.send(handler, PushAppCase.named("health-connect").valid, headers: headers)
            #expect(answer.status == 401)
            let error = try #require(answer.object?["error"] as? String)
            for name in ["Authorization", "Bearer", "Basic", "/ingest/TOKEN"] {
                #expect(error.contains(name), "\(error)")
            }
            #expect(!error.contains(T.token) && !error.contains("wrong"))
        }
    }
}
