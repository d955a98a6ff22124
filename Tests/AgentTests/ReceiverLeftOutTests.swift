import Foundation
import GRDB
import Logging
import SensorInput
import Synchronization
import TestSupport
import Testing
import WallTime

@testable import Agent
@testable import Ingestion
@testable import Store

/// A payload with one bad item, through the real receiver on a loopback port: the valid items are stored and posted
/// once, the answer names the bad field by the app's convention (a 422 with JSON; Sensor Logger's 499 text), a resend
/// changes nothing, and the log says what was left out once per payload. A payload bad as a whole stores nothing.
@Suite(.timeLimit(.minutes(1))) struct ReceiverLeftOutTests {
    /// `body` to the receiver's handler in process, as its route hands it on once the token is checked.
    static func send(_ handler: IngestHandler, _ body: String) async throws -> HTTPAnswer {
        let bytes = Array(body.utf8)
        return try await handler.answer(
            IngestRequest(headerFields: [:]) { limit in bytes.count <= limit ? bytes : nil })
    }

    let receiver = ReceiverTests()
    var token: String { receiver.token }

    /// The real Health Auto Export capture `metrics.json` (fixtures/push/health-auto-export/captured) with its `active_energy` metric made
    /// a `step_count` one, and its second point's date broken.
    static func realCaptureWithABrokenPoint() throws -> Data {
        let path = SharedData.fixture("push/health-auto-export/captured/metrics.json")
        var text = try String(contentsOfFile: path, encoding: .utf8)
        for (from, to) in [
            ("\"active_energy\"", "\"step_count\""), ("\"kJ\"", "\"count\""),
            ("0.76856774374845116", "41.5"), ("0.377848256251549", "37"),
            ("2021-12-24 00:05:00 +0800", "2021-12-24 00:05 +0800"),
        ] {
            #expect(text.contains(from), "metrics.json has changed: no \(from)")
            text = text.replacingOccurrences(of: from, with: to)
        }
        return Data(text.utf8)
    }

    func rows(_ store: StateStore, _ table: String) throws -> Int {
        try store.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table)") ?? -1 }
    }

    @Test func aRealCaptureWithOneBrokenPointStoresTheOtherAndNamesTheField() async throws {
        let dir = try TempDir()
        let r = try await receiver.start(dir: dir)
        let body = try Self.realCaptureWithABrokenPoint()
        let first = try await receiver.post(r.port, body, token: token)
        #expect(first.status == 422, "\(first.answer)")
        #expect(first.answer["stored"] as? Int == 1 && first.answer["readings"] as? Int == 1, "\(first.answer)")
        #expect(first.answer["refused_count"] as? Int == 1)
        let refused = try #require(first.answer["refused"] as? [[String: String]])
        #expect(refused.map { $0["field"] } == ["data.metrics[0].data[1].date"], "\(refused)")
        #expect(refused.first?["reason"]?.contains("is not a date") == true, "\(refused)")
        #expect(refused.first?["device"] == "health-auto-export", "a point without a source is the app's device")
        let error = try #require(first.answer["error"] as? String)
        #expect(error.contains("data.metrics[0].data[1].date") && error.contains("left out 1"), "\(error)")
        #expect(first.answer["ignored"] as? [String] == ["metric basal_body_temperature (0 points)"])
        // The phone sends it again: the same answer, and the stored point is a duplicate.
        let again = try await receiver.post(r.port, body, token: token)
        #expect(again.status == 422 && again.answer["readings"] as? Int == 0, "\(again.answer)")
        #expect(again.answer["duplicates"] as? Int == 1 && again.answer["refused"] as? [[String: String]] == refused)
        #expect(try rows(r.store, "received_reading") == 1)
        await r.stop()
    }

    /// Twenty minutes with minute 3 broken: the other nineteen are posted exactly once, even though the phone sends
    /// the same payload again before and after the fetch; the point, once fixed, is posted as late steps.
    @Test func theValidPointsArePostedOnceAndAResendChangesNothing() async throws {
        let dir = try TempDir()
        let r = try await receiver.start(dir: dir)
        let t0 = ReceiverTests.t0
        let good = String(decoding: ReceiverTests.healthAutoExport(0..<20), as: UTF8.self)
        let broken = Data(good.replacingOccurrences(of: "10:03:00 +0900", with: "10:03 +0900").utf8)
        let first = try await receiver.post(r.port, broken, token: token)
        #expect(first.status == 422 && first.answer["readings"] as? Int == 19, "\(first.answer)")
        let refused = try #require(first.answer["refused"] as? [[String: String]])
        #expect(refused.map { $0["field"] } == ["data.metrics[0].data[3].date"])
        #expect(refused.first?["device"] == "Taro's iPhone")
        let resend = try await receiver.post(r.port, broken, token: token)
        #expect(resend.status == 422 && resend.answer["readings"] as? Int == 0, "\(resend.answer)")
        #expect(resend.answer["duplicates"] as? Int == 19)

        let all = (0..<20).reduce(0) { $0 + 40 + $1 }
        let fetch = await r.fetcher.fetch(now: Instant(t0.addingTimeInterval(20 * 60)), trigger: [.manual])
        #expect(fetch.result == .newData && fetch.postedSteps == all - 43, "\(fetch.line)")
        _ = try await receiver.post(r.port, broken, token: token)
        let nothing = await r.fetcher.fetch(now: Instant(t0.addingTimeInterval(21 * 60)), trigger: [.manual])
        #expect(nothing.postedSteps == 0, "\(nothing.line)")
        #expect(await r.target.received.count == 1, "posted once")

        let fixed = try await receiver.post(r.port, Data(good.utf8), token: token)
        #expect(fixed.status == 200 && fixed.answer["readings"] as? Int == 1, "\(fixed.answer)")
        let late = await r.fetcher.fetch(now: Instant(t0.addingTimeInterval(22 * 60)), trigger: [.manual])
        #expect(late.postedSteps == 43 && late.lateSteps == 43, "\(late.line)")
        #expect(try r.store.steps(in: .sinceEpoch) == all)
        await r.stop()
    }

    /// Sensor Logger shows only a 499's text: a message with one bad reading stores the others and tells its user
    /// which; sent again, it stores nothing more. A message without its device is refused whole, as before.
    @Test func aSensorLoggerMessageWithOneBadReadingStoresTheOthersAndTellsTheUser() async throws {
        let dir = try TempDir()
        let r = try await receiver.start(dir: dir)
        let fixture = try String(
            contentsOf: SharedData.packageRoot.appendingPathComponent(
                "fixtures/push/sensor-logger/android_totalacceleration.json"), encoding: .utf8)
        let items = try PushApps.parse(body: Data(fixture.utf8)).items
        let samples = items.filter { if case .sample = $0 { true } else { false } }.count
        #expect(samples > 10 && samples < items.count, "acceleration and a pedometer")
        let broken = fixture.replacingOccurrences(of: #""x":-4.38977"#, with: #""x":"-4.38977""#)
        #expect(broken != fixture)
        let answer = try await receiver.send(r.port, Data(broken.utf8), path: "/ingest/\(token)", token: nil)
        let text = String(decoding: answer.body, as: UTF8.self)
        #expect(answer.status == 499 && answer.contentType?.hasPrefix("text/plain") == true, "\(text)")
        #expect(text.contains("payload[0].values.x") && text.contains("stored \(items.count - 1) items"), "\(text)")
        #expect(!text.contains("0a9b8c7d"), "the device id means nothing to the user: \(text)")
        #expect(try rows(r.store, "received_sample") == samples - 1)
        let again = try await receiver.send(r.port, Data(broken.utf8), path: "/ingest/\(token)", token: nil)
        #expect(again.status == 499 && again.body == answer.body)
        #expect(try rows(r.store, "received_sample") == samples - 1)

        let whole = broken.replacingOccurrences(of: #""deviceId":"#, with: #""device":"#)
        let refused = try await receiver.send(r.port, Data(whole.utf8), path: "/ingest/\(token)", token: nil)
        let refusal = String(decoding: refused.body, as: UTF8.self)
        #expect(refused.status == 499 && refusal.contains("nothing of it was stored: deviceId"), "\(refusal)")
        #expect(try rows(r.store, "received_sample") == samples - 1)
        await r.stop()
    }

    /// Health Connect and the step log: one bad record or line is left out with a 422 naming it, and the rest is
    /// stored; OwnTracks, which holds its queue until a 2xx, gets its 200 with the message left out. A test send with
    /// a bad record is told so and stores nothing.
    @Test func theOtherAppsGetA422NamingTheItemAndTheRestIsStored() async throws {
        let dir = try TempDir()
        let r = try await receiver.start(dir: dir)
        let daily = try String(
            contentsOf: SharedData.packageRoot.appendingPathComponent("fixtures/push/health-connect/daily.json"),
            encoding: .utf8)
        let cases: [(body: String, field: String, stored: Int)] = [
            (daily.replacingOccurrences(of: "\"count\": 9120", with: "\"count\": -9120"), "steps[0].count", 1),
            (
                #"[{"_type": "steps", "steps": 5, "from": 1795273200, "to": 1795276800}, {"_type": "steps", "steps": 7, "from": 1795276800}]"#,
                "[1].to", 1
            ),
            (
                "{\"ts\":\"2026-11-21T01:00:00Z\",\"steps\":3,\"seq\":1}\n{\"ts\":\"soon\",\"steps\":4,\"seq\":2}\n"
                    + "{\"ts\":\"2026-11-21T01:02:00Z\",\"steps\":5,\"seq\":3}\n",
                "line 2", 2
            ),
        ]
        var stored = 0
        for (body, field, kept) in cases {
            for _ in 0..<2 {
                if field == "[1].to" {
                    let answer = try await receiver.send(r.port, Data(body.utf8), token: token)
                    #expect(answer.status == 200, "OwnTracks blocks its queue on anything else")
                    #expect(try JSONSerialization.jsonObject(with: answer.body) as? [Any] != nil)
                    continue
                }
                let answer = try await receiver.post(r.port, Data(body.utf8), token: token)
                #expect(answer.status == 422, "\(answer.answer)")
                #expect(answer.answer["stored"] as? Int == kept, "\(answer.answer)")
                let refused = answer.answer["refused"] as? [[String: String]]
                #expect(refused?.map { $0["field"] } == [field], "\(answer.answer)")
                #expect((answer.answer["error"] as? String)?.contains(field) == true)
            }
            stored += kept
            #expect(try rows(r.store, "received_reading") == stored, "sent twice, stored once: \(field)")
        }
        // The step log's bad line fixed and sent again: it is added, and the lines with a `seq` are not added twice.
        let fixed = try await receiver.post(
            r.port,
            Data(
                cases[2].body.replacingOccurrences(
                    of: "\"soon\"", with: "\"2026-11-21T01:01:00Z\""
                ).utf8), token: token)
        #expect(fixed.status == 200 && fixed.answer["readings"] as? Int == 2, "line 2 new, line 3 spans from it")
        let steps = try await r.store.writer.read { db in
            try Int64.fetchOne(db, sql: "SELECT SUM(microsteps) FROM received_reading WHERE device = 'steplog'")
        }
        #expect(steps == 12_000_000)
        stored += 1
        // Without a `seq`: the line after the bad one is the same line when the body comes again fixed, not a new one.
        let unsequenced =
            "{\"ts\":\"2026-11-21T02:00:00Z\",\"steps\":3}\n{\"ts\":\"soon\",\"steps\":4}\n"
            + "{\"ts\":\"2026-11-21T02:02:00Z\",\"steps\":5}\n"
        let before = try await receiver.post(r.port, Data(unsequenced.utf8), token: token)
        #expect(before.status == 422 && before.answer["readings"] as? Int == 2, "\(before.answer)")
        let after = try await receiver.post(
            r.port, Data(unsequenced.replacingOccurrences(of: "\"soon\"", with: "\"2026-11-21T02:01:00Z\"").utf8),
            token: token)
        #expect(after.status == 200 && after.answer["readings"] as? Int == 2, "line 2 new, line 3 replaced")
        let total = try await r.store.writer.read { db in
            try Int64.fetchOne(db, sql: "SELECT SUM(microsteps) FROM received_reading WHERE device = 'steplog'")
        }
        #expect(total == 24_000_000, "3 + 4 + 5 of each body, none twice")
        stored += 3
        let test = daily.replacingOccurrences(of: "\"app_version\"", with: "\"test\": true, \"app_version\"")
            .replacingOccurrences(of: "\"2026-11-20T15:00:00Z\",\n      \"end_time\"", with: "\"soon\", \"end_time\"")
        let answer = try await receiver.post(r.port, Data(test.utf8), token: token)
        #expect(answer.status == 422 && answer.answer["test"] as? Bool == true, "\(answer.answer)")
        #expect(answer.answer["stored"] as? Int == 0)
        #expect((answer.answer["refused"] as? [[String: String]])?.first?["field"] == "steps[1].start_time")
        #expect(try rows(r.store, "received_reading") == stored)
        await r.stop()
    }

    /// OwnTracks waits for a 2xx before it sends its next message (owntracks/ios#663): a message left out, or a body
    /// that cannot be read at all, is answered 200 with no command, logged and shown by `status` and
    /// `devices --received` as the device's last refusal; a wrong token is still a 401, which the user can fix.
    @Test func ownTracksIsAnswered200ForWhatItCannotFixAndTheRefusalIsListed() async throws {
        let dir = try TempDir()
        let r = try await receiver.start(dir: dir)
        let headers = ["X-Limit-U": "taro", "X-Limit-D": "iphone"]
        let bad = Data(#"{"_type": "steps", "steps": "many", "from": 1795273200, "to": 1795316400}"#.utf8)
        let answer = try await receiver.send(r.port, bad, path: "/ingest/\(token)", token: nil, headers: headers)
        #expect(answer.status == 200)
        #expect((try JSONSerialization.jsonObject(with: answer.body) as? [Any])?.isEmpty == true, "no command: no loop")
        let listed = try #require(try r.store.receivedDevices().first { $0.device == "owntracks" })
        #expect(listed.readings == 0 && listed.dataUntil == nil, "created by the refusal alone")
        let line = listed.line(zone: TimeZone(identifier: "Asia/Tokyo")!)
        #expect(line.contains("; last refusal ") && line.contains("left out 1 that cannot be read: steps:"), "\(line)")

        let garbage = Data("{\"_type\": \"steps\", ".utf8)
        let whole = try await receiver.send(r.port, garbage, path: "/ingest/\(token)", token: nil, headers: headers)
        #expect(whole.status == 200 && String(decoding: whole.body, as: UTF8.self) == "[]")
        let after = try #require(try r.store.receivedDevices().first { $0.device == "owntracks" })
        #expect(after.lastRefusalText?.hasPrefix("refused whole: ") == true, "\(after)")
        #expect(try rows(r.store, "received_reading") == 0)

        let wrong = try await receiver.send(r.port, bad, path: "/ingest/wrong", token: nil, headers: headers)
        #expect(wrong.status == 401)
        await r.stop()
    }

    /// A device's payload with a point left out is listed with when and what; one whose every point was left out is
    /// listed too (its row created by the refusal), with no data and without holding windows back.
    @Test func theLastRefusalIsListedPerDeviceEvenWhenNothingWasStored() async throws {
        let dir = try TempDir()
        let clock = ManualClock(ReceiverTests.t0.addingTimeInterval(600))
        let r = try await receiver.start(dir: dir, clock: clock.wall)
        let one = String(decoding: ReceiverTests.healthAutoExport(0..<3), as: UTF8.self)
            .replacingOccurrences(of: "10:01:00 +0900", with: "10:01 +0900")
        #expect(try await receiver.post(r.port, Data(one.utf8), token: token).status == 422)
        let none = String(
            decoding: ReceiverTests.healthAutoExport(0..<2, source: "Watch", qty: { _ in "-1" }), as: UTF8.self)
        #expect(try await receiver.post(r.port, Data(none.utf8), token: token).status == 422)
        let devices = try r.store.receivedDevices()
        let phone = try #require(devices.first { $0.device == "Taro's iPhone" })
        #expect(phone.readings == 2 && phone.lastRefusal == ReceiverTests.t0.addingTimeInterval(600))
        #expect(
            phone.lastRefusalText?.hasPrefix("left out 1 that cannot be read: data.metrics[0].data[1].date") == true)
        let watch = try #require(devices.first { $0.device == "Watch" })
        #expect(watch.readings == 0 && watch.dataUntil == nil)
        #expect(watch.lastRefusalText?.hasPrefix("left out 2 that cannot be read: data.metrics[0].data[0].qty") == true)
        #expect(watch.lastRefusalText?.hasSuffix(", and 1 more") == true, "\(watch)")
        await r.stop()
    }

    /// The log says what was left out once per payload, at warning level, with the device and the field; a payload
    /// read whole says nothing of the kind.
    @Test func theLogNamesTheDeviceAndFieldOncePerPayload() async throws {
        let dir = try TempDir()
        let lines = RecordedLog()
        let handler = IngestHandler(
            maxBody: 1 << 20, store: try StateStore(path: dir.path("state.sqlite")),
            logger: Logger(label: "test") { _ in RecordedLog.Handler(log: lines) }, clock: .system)
        var good = String(decoding: ReceiverTests.healthAutoExport(0..<5), as: UTF8.self)
        let answer = try await Self.send(handler, good)
        #expect(answer.status.code == 200)
        #expect(lines.warnings.isEmpty)
        good = good.replacingOccurrences(of: #""qty": 41"#, with: #""qty": "41""#)
            .replacingOccurrences(of: #""qty": 43"#, with: #""qty": -43"#)
        _ = try await Self.send(handler, good)
        let warnings = lines.warnings
        #expect(warnings.count == 1, "\(warnings)")
        let line = try #require(warnings.first)
        for part in [
            "health-auto-export", "stored 3 items, left out 2", "Taro's iPhone: data.metrics[0].data[1].qty",
            "Taro's iPhone: data.metrics[0].data[3].qty",
        ] {
            #expect(line.contains(part), "\(line) should name \(part)")
        }
    }
}

/// The warnings logged through its `Handler`.
final class RecordedLog: Sendable {
    private let kept = Mutex<[String]>([])
    var warnings: [String] { kept.withLock { $0 } }

    struct Handler: LogHandler {
        let log: RecordedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            if event.level == .warning { log.kept.withLock { $0.append("\(event.message)") } }
        }
    }
}
