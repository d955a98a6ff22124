import Foundation
import Testing

@testable import Ingestion

/// One push app as the conformance tests see it: a sample it sent (under fixtures/push/NAME/), a small valid body and
/// one whose only item cannot be read, and the answers its convention declares. `PushAppConformanceTests` fails
/// while an app of `PushApps.all` has no case here.
struct PushAppCase: Sendable, CustomTestStringConvertible {
    /// How an answer must look.
    enum Answer: Sendable, Equatable {
        /// A JSON object with this status (its `format` the app's where it names one).
        case json(Int)
        /// Plain text told to the app's user, with this status.
        case told(Int)
        /// A JSON array with this status (OwnTracks' messages for the phone).
        case array(Int)
    }

    let name: String
    /// A sample the app sent, relative to fixtures/push/, recognised without `?format=`.
    let sample: String
    let valid: String
    let malformed: String
    /// The answer to `malformed`: its one item left out.
    let leftOut: Answer
    /// The answer to `valid`, stored.
    let stored: Answer
    /// The answer to an empty body named as this app's (`?format=NAME`).
    let emptyBody: Answer

    var testDescription: String { name }

    static func named(_ name: String) -> PushAppCase { all.first { $0.name == name }! }

    static let all: [PushAppCase] = [
        PushAppCase(
            name: "health-auto-export", sample: "health-auto-export/step_count_minutes.json",
            valid:
                #"{"data": {"metrics": [{"name": "step_count", "units": "count", "data": [{"date": "2026-11-21 10:00:00 +0900", "qty": 12, "source": "phone"}]}]}}"#,
            malformed:
                #"{"data": {"metrics": [{"name": "step_count", "units": "count", "data": [{"date": "2026-11-21 10:00 +0900", "qty": 12}]}]}}"#,
            leftOut: .json(422), stored: .json(200), emptyBody: .json(400)),
        PushAppCase(
            name: "sensor-logger", sample: "sensor-logger/android_totalacceleration.json",
            valid:
                #"{"messageId": 1, "sessionId": "s1", "deviceId": "d1", "payload": [{"name": "totalacceleration", "time": 1795316400000000000, "values": {"x": 0.1, "y": 0.2, "z": 9.7}}]}"#,
            malformed:
                #"{"messageId": 1, "sessionId": "s1", "deviceId": "d1", "payload": [{"name": "totalacceleration", "time": 1795316400000000000, "values": {"x": "a", "y": 0.2, "z": 9.7}}]}"#,
            leftOut: .told(499), stored: .json(200), emptyBody: .told(499)),
        PushAppCase(
            name: "health-connect", sample: "health-connect/daily.json",
            valid:
                #"{"timestamp": "2026-11-21T03:15:00Z", "app_version": "1.4.0", "steps": [{"count": 12, "start_time": "2026-11-21T03:00:00Z", "end_time": "2026-11-21T03:15:00Z"}]}"#,
            malformed:
                #"{"timestamp": "2026-11-21T03:15:00Z", "app_version": "1.4.0", "steps": [{"count": -3, "start_time": "2026-11-21T03:00:00Z", "end_time": "2026-11-21T03:15:00Z"}]}"#,
            leftOut: .json(422), stored: .json(200), emptyBody: .json(400)),
        PushAppCase(
            name: "owntracks", sample: "owntracks/steps.json",
            valid: #"{"_type": "location", "lat": 35.68, "lon": 139.76, "tst": 1795316400}"#,
            malformed: #"{"_type": "steps", "steps": "many", "from": 1795273200, "to": 1795316400}"#,
            // It holds its queue until a 2xx: what it cannot fix is answered 200, as stored.
            leftOut: .array(200), stored: .array(200), emptyBody: .array(200)),
        PushAppCase(
            name: "steplog", sample: "steplog/push.jsonl",
            valid: #"{"ts": "2026-11-21T10:05:00Z", "steps": 12}"# + "\n",
            malformed: #"{"ts": "soon", "steps": 12}"# + "\n",
            leftOut: .json(422), stored: .json(200), emptyBody: .json(400)),
    ]
}
