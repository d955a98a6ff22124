import Foundation
import TestSupport
import Testing
import WallTime

@testable import Ingestion
@testable import SensorInput

/// The payload registry, Health Connect, OwnTracks, the pushed step log, and bodies that are not payloads at all.
@Suite struct PayloadTests {
    typealias T = PayloadTesting
    let fixtures = [
        "health-auto-export/step_count_minutes.json", "health-auto-export/step_count_12h.json",
        "health-auto-export/step_count_hourly_aggregated.json", "sensor-logger/android_totalacceleration.json",
        "sensor-logger/ios_accelerometer_gravity.json", "sensor-logger/ios_uncalibrated_g.json",
        "sensor-logger/test.json",
        "health-connect/daily.json", "health-connect/raw_with_metadata.json", "health-connect/test.json",
        "owntracks/steps.json", "owntracks/steps_unsupported.json", "owntracks/location.json", "steplog/push.jsonl",
    ]

    @Test func everyFixtureIsRecognisedAsItsFormat() throws {
        #expect(
            PushApps.names == ["health-auto-export", "sensor-logger", "health-connect", "owntracks", "steplog"])
        for fixture in fixtures {
            let expected = String(fixture.split(separator: "/")[0])
            #expect(try T.parseFixture(fixture).format == expected, "\(fixture)")
            #expect(try T.parseFixture(fixture, format: expected.uppercased()).format == expected, "\(fixture)")
        }
        #expect(PushApps.named("Sensor-Logger")?.name == "sensor-logger")
        #expect(PushApps.named("gpx") == nil)
    }

    @Test func aBodyOfNoKnownFormatSaysWhichWereTried() throws {
        let tried = "tried health-auto-export, sensor-logger, health-connect, owntracks, steplog"
        #expect(
            T.error("{\"hello\":1}")?.description
                == "not a payload of a known format (\(tried)); pass ?format=NAME to be told why")
        #expect(T.error("")?.description == "empty body (\(tried))")
        #expect(T.error(" \n")?.description == "empty body (\(tried))")
        #expect(
            T.error("{\"data\":{\"metrics\":[]}")?.description
                == "not JSON: document cut short at byte 22 (line 1, column 23) (\(tried))")
        #expect(
            T.error("{\"a\":\n NaN}")?.description
                == "not JSON: unexpected character at byte 7 (line 2, column 2) (\(tried))")
        #expect(
            T.error(Data([0x7F, 0x45, 0x4C, 0x46, 0x02, 0x01]))?.message.hasPrefix(
                "not JSON: unexpected character at byte 0") == true)
        #expect(
            T.error("{}", format: "gpx")?.description
                == "unknown format 'gpx'; known: health-auto-export, sensor-logger, health-connect, owntracks, steplog")
        let forced = T.error("{\"data\":{\"metrics\":[]}}", format: "owntracks")
        #expect(forced?.format == "owntracks")
        #expect(forced?.description == "_type: missing", "read as the named format, the first wrong field is named")
        #expect(
            T.error("{\"a\":", format: "sensor-logger")?.message
                == "not JSON: document cut short at byte 5 (line 1, column 6)")
        let deep = String(repeating: "[", count: 100_000)
        #expect(T.error(deep)?.message.contains("nested too deeply") == true)
    }

    @Test func truncatedAndDamagedBodiesAreRefusedNeverCrash() throws {
        var random = SeededRandom(seed: 34)
        for fixture in fixtures {
            let body = [UInt8](try T.fixture(fixture))
            for cut in stride(from: 0, to: body.count - 1, by: max(1, body.count / 97)) {
                let truncated = Data(body[..<cut])
                if let payload = try? PushApps.parse(body: truncated) {
                    // Only a step log cut at a line end is still whole lines.
                    #expect(payload.format == "steplog", "\(fixture) cut at \(cut)")
                }
            }
            for _ in 0..<200 {
                var damaged = body
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    damaged[Int.random(in: 0..<damaged.count, using: &random)] = UInt8.random(
                        in: 0...255, using: &random)
                }
                _ = try? PushApps.parse(body: Data(damaged))
                _ = try? PushApps.parse(body: Data(damaged), format: String(fixture.split(separator: "/")[0]))
            }
        }
    }

    @Test func healthConnectRecordsReplaceOnTheirStart() throws {
        let payload = try T.parseFixture("health-connect/daily.json")
        let items = T.replacing(payload)
        #expect(items.map(\.device) == ["health-connect", "health-connect"])
        #expect(items.map(\.key) == ["steps 1795100400000000000", "steps 1795186800000000000"])
        #expect(
            items[1].reading
                == StepReading(
                    start: Instant(nanosecondsSinceEpoch: 1_795_186_800_000_000_000),
                    end: Instant(nanosecondsSinceEpoch: 1_795_230_840_000_000_000), steps: 5230))
        #expect(items[1].micro == 5_230_000_000)
        #expect(payload.ignored == ["heart_rate (2 records)"])
        // Today's record sent again later with a larger count: the same key.
        let later = try T.parse(
            "{\"timestamp\":\"2026-11-21T05:00:00Z\",\"app_version\":\"1.4.0\",\"steps\":[{\"count\":6100,\"start_time\":\"2026-11-21T00:00:00+09:00\",\"end_time\":\"2026-11-21T13:59:00+09:00\"}]}"
        )
        #expect(T.replacing(later).map(\.key) == [items[1].key])
        let raw = T.replacing(try T.parseFixture("health-connect/raw_with_metadata.json"))
        #expect(raw.map(\.device) == ["com.google.android.apps.fitness (Google Pixel Watch)"])
    }

    /// The app writes times with Kotlin's `Instant.toString()`: no fraction, or 3, 6 or 9 digits of one; any zone
    /// RFC 3339 allows is read, and a resend in another form is the same record.
    @Test func healthConnectTimesKeepEveryFractionDigit() throws {
        func record(_ start: String, _ end: String) -> String {
            #"{"timestamp":"2026-11-21T03:15:00.123456789Z","app_version":"1.4.0","steps":[{"count":7,"#
                + #""start_time":"\#(start)","end_time":"\#(end)"}]}"#
        }
        let base: Int64 = 1_795_222_800_000_000_000  // 2026-11-21T01:00:00Z
        let forms: [(String, String, Int64, Int64)] = [
            ("2026-11-21T01:00:00Z", "2026-11-21T01:05:00Z", 0, 300_000_000_000),
            ("2026-11-21T01:00:00.120Z", "2026-11-21T01:05:00.5Z", 120_000_000, 300_500_000_000),
            ("2026-11-21T01:00:00.123456Z", "2026-11-21T10:05:00.000001+09:00", 123_456_000, 300_000_001_000),
            ("2026-11-21T01:00:00.123456789Z", "2026-11-20T20:05:00.987654321-05:00", 123_456_789, 300_987_654_321),
        ]
        for (start, end, startOffset, endOffset) in forms {
            let items = T.replacing(try T.parse(record(start, end)))
            #expect(items.count == 1)
            #expect(
                items.first?.reading
                    == StepReading(
                        start: Instant(nanosecondsSinceEpoch: base + startOffset),
                        end: Instant(nanosecondsSinceEpoch: base + endOffset), steps: 7))
            #expect(items.first?.key == "steps \(base + startOffset)")
        }
        #expect(T.error(record("2026-11-21T01:00:00", "2026-11-21T01:05:00Z"))?.path == "steps[0].start_time")
    }

    @Test func healthConnectTestIsCheckedThenStoresNothing() throws {
        let payload = try T.parseFixture("health-connect/test.json")
        #expect(payload.isTest && payload.items.isEmpty)
        #expect(payload.ignored == ["test message: 1 step record not stored"])
        let head = "{\"app_version\":\"1\",\"steps\":["
        let cases: [(String, String)] = [
            ("{\"app_version\":\"1\",\"test\":\"yes\"}", "test"),
            (
                head + "{\"count\":-1,\"start_time\":\"2026-11-21T00:00:00Z\",\"end_time\":\"2026-11-21T01:00:00Z\"}]}",
                "steps[0].count"
            ),
            (
                head
                    + "{\"count\":1.5,\"start_time\":\"2026-11-21T00:00:00Z\",\"end_time\":\"2026-11-21T01:00:00Z\"}]}",
                "steps[0].count"
            ),
            (
                head + "{\"count\":1,\"start_time\":\"2026-11-21T00:00:00\",\"end_time\":\"2026-11-21T01:00:00Z\"}]}",
                "steps[0].start_time"
            ),
            (
                head + "{\"count\":1,\"start_time\":\"2026-11-21T02:00:00Z\",\"end_time\":\"2026-11-21T01:00:00Z\"}]}",
                "steps[0].end_time"
            ),
            (head + "{\"count\":1,\"start_time\":\"2026-11-21T00:00:00Z\"}]}", "steps[0].end_time"),
            ("{\"app_version\":\"1\",\"steps\":{}}", "steps"),
        ]
        for (text, path) in cases {
            #expect(T.error(text)?.path == path, "\(text)")
            #expect(T.error(text)?.format == "health-connect", "\(text)")
        }
        #expect(T.error(cases[3].0)?.message == "\"2026-11-21T00:00:00\" is not a time (expected RFC 3339 with a zone)")
    }

    @Test func ownTracksStepsReplaceOnTheirStartAndTheRestIsIgnored() throws {
        let steps = try T.parseFixture("owntracks/steps.json")
        #expect(
            steps.items == [
                .replacing(
                    device: "owntracks", key: "steps from 1763650800",
                    reading: StepReading(
                        startNs: 1_763_650_800_000_000_000, endNs: 1_763_700_000_000_000_000, steps: 4321),
                    microsteps: 4_321_000_000)
            ])
        let unsupported = try T.parseFixture("owntracks/steps_unsupported.json")
        #expect(unsupported.items.isEmpty && unsupported.ignored == ["steps report: not supported by the phone (-1)"])
        #expect(try T.parseFixture("owntracks/location.json").ignored == ["location (1 message)"])
        let list = try T.parse(
            "[{\"_type\":\"location\",\"tst\":1},{\"_type\":\"steps\",\"steps\":3,\"from\":10,\"to\":20}]")
        #expect(list.items.count == 1 && list.ignored == ["location (1 message)"])
        let cases: [(String, String)] = [
            ("{\"_type\":\"steps\",\"steps\":3,\"from\":20,\"to\":10}", "to"),
            ("{\"_type\":\"steps\",\"steps\":1.5,\"from\":10,\"to\":20}", "steps"),
            ("{\"_type\":\"steps\",\"steps\":-2,\"from\":10,\"to\":20}", "steps"),
            ("{\"_type\":\"steps\",\"steps\":3,\"to\":20}", "from"),
            ("{\"_type\":\"steps\",\"steps\":3,\"from\":10,\"to\":99999999999}", "to"),
            ("{\"_type\":\"steps\",\"steps\":3,\"from\":10,\"to\":20,\"tst\":\"x\"}", "tst"),
            ("[{\"_type\":\"location\"},{\"_type\":7}]", "[1]._type"),
        ]
        for (text, path) in cases { #expect(T.error(text)?.path == path, "\(text)") }
    }

    @Test func aPushedStepLogIsReadByTheFileFormatsLineReader() throws {
        let payload = try T.parseFixture("steplog/push.jsonl")
        let minute: Int64 = 60_000_000_000
        let t0: Int64 = 1_795_222_800_000_000_000  // 2026-11-21T01:00:00Z
        #expect(
            payload.items == [
                .replacing(
                    device: "pedometer.py", key: "seq at \(t0)",
                    reading: StepReading(
                        start: Instant(nanosecondsSinceEpoch: t0), end: Instant(nanosecondsSinceEpoch: t0), steps: 0),
                    microsteps: 0),
                .replacing(
                    device: "pedometer.py", key: "seq at \(t0 + minute)",
                    reading: StepReading(
                        start: Instant(nanosecondsSinceEpoch: t0), end: Instant(nanosecondsSinceEpoch: t0 + minute),
                        steps: 96),
                    microsteps: 96_000_000),
                .replacing(
                    device: "pedometer.py", key: "seq at \(t0 + 2 * minute)",
                    reading: StepReading(
                        start: Instant(nanosecondsSinceEpoch: t0 + minute),
                        end: Instant(nanosecondsSinceEpoch: t0 + 2 * minute), steps: 101),
                    microsteps: 101_000_000),
                .adding(
                    device: "steplog",
                    reading: StepReading(
                        start: Instant(nanosecondsSinceEpoch: t0 + 150 * 1_000_000_000),
                        end: Instant(nanosecondsSinceEpoch: t0 + 150 * 1_000_000_000), steps: 12)),
                .runningTotal(device: "iio:device0", stream: "b7", timeNs: t0, total: 12000),
                .runningTotal(device: "iio:device0", stream: "b7", timeNs: t0 + minute, total: 12090),
            ])
        let crlf =
            "\u{FEFF}{\"ts\":\"2026-11-21T01:00:00Z\",\"steps\":3}\r\n\r\n{\"ts\":\"2026-11-21T01:01:00Z\",\"steps\":4}\r\n"
        #expect(try T.parse(crlf).items.count == 2)
        let bad = "{\"ts\":\"2026-11-21T01:00:00Z\",\"steps\":3}\n\n{\"ts\":\"yesterday\",\"steps\":4}\n"
        #expect(T.error(bad)?.description == "line 3: \"ts\" is missing or not an RFC 3339 time with a zone")
        #expect(
            T.error("{\"ts\":\"2026-11-21T01:00:00Z\",\"steps\":-4}")?.description
                == "line 1: \"steps\" is not a non-negative integer")
        #expect(
            T.error("{\"x\":1}", format: "steplog")?.description
                == "line 1: \"ts\" is missing or not an RFC 3339 time with a zone")
    }

    /// In every format one bad item (a record, a message, a line) is left out and named with its field and device, and
    /// the items around it are kept, in their order; the payload's own fields still refuse it whole.
    @Test func eachFormatLeavesOutTheBadItemAndKeepsTheRest() throws {
        let record = { (count: String, start: String) in
            #"{"count": \#(count), "start_time": "2026-11-21T0\#(start):00:00Z", "end_time": "2026-11-21T0\#(start):15:00Z", "metadata": {"data_origin": "com.fit"}}"#
        }
        let hc = try T.parse(
            #"{"timestamp": "2026-11-21T05:00:00Z", "app_version": "1", "steps": [\#(record("10", "1")), \#(record("-3", "2")), \#(record("30", "3"))]}"#
        )
        #expect(T.replacing(hc).map(\.reading.steps) == [10, 30])
        #expect(hc.refused.map(\.path) == ["steps[1].count"] && hc.refused.first?.device == "com.fit")
        #expect(hc.refused.first?.format == "health-connect")

        let ownTracks = try T.parse(
            #"[{"_type": "steps", "steps": 5, "from": 1795273200, "to": 1795276800}, {"_type": "steps", "steps": 5, "from": 1795276800}, {"_type": "location"}]"#
        )
        #expect(T.replacing(ownTracks).map(\.reading.steps) == [5] && ownTracks.ignored == ["location (1 message)"])
        #expect(ownTracks.refused.map(\.description) == ["[1].to: missing"])
        let lone = try T.parse(#"{"_type": "steps", "steps": "many", "from": 1795273200, "to": 1795276800}"#)
        #expect(lone.items.isEmpty && lone.refused.map(\.path) == ["steps"] && lone.isStepsReport)

        let lines = try T.parse(
            "{\"ts\":\"2026-11-21T01:00:00Z\",\"steps\":3}\n{\"ts\":\"soon\",\"steps\":4}\n"
                + "{\"ts\":\"2026-11-21T01:02:00Z\",\"steps\":5}\n")
        #expect(lines.items.count == 2 && lines.refused.map(\.path) == ["line 2"])
        guard case .adding(_, let third)? = lines.items.last else {
            Issue.record("\(lines.items)")
            return
        }
        #expect(third.startNs == third.endNs - 120_000_000_000, "spans from the line before the one left out")

        // A body of bad items keeps the first refusals and counts them all.
        let many = (0..<50).map { _ in #"{"ts":"soon","steps":1}"# }.joined(separator: "\n")
        let refused = try T.parse(#"{"ts":"2026-11-21T01:00:00Z","steps":3}"# + "\n" + many)
        #expect(refused.items.count == 1 && refused.refusedCount == 50 && refused.refused.count == Payload.refusedKept)
        #expect(refused.refusalSummary(naming: 2).hasSuffix("and 48 more"), "\(refused.refusalSummary(naming: 2))")
        #expect(refused.refusalSummary(naming: 1).hasPrefix("line 2: \"ts\""))

        // The payload's own fields refuse it whole.
        #expect(throws: PayloadError.self) { try T.parse(#"{"app_version": "1", "test": "yes", "steps": []}"#) }
        #expect(throws: PayloadError.self) { try T.parse(#"{"sessionId": "s", "payload": []}"#) }
    }
}
