import Analysis
import Clocks
import Foundation
import GRDB
import Logging
import Messages
import SensorInput
import TestSupport
import Testing
import WallTime

@testable import Agent
@testable import Ingestion
@testable import Store

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The receiver on a loopback port, driven with URLSession: what phones push is committed before the answer, a fetch
/// posts exactly what was received, once, and a refused request stores nothing.
@Suite(.timeLimit(.minutes(1))) struct ReceiverTests {
    let token = "s3cret-token"

    /// A running receiver with its state in `dir`, and a fetcher reading what it received.
    struct Running {
        let receiver: ReceiverService
        let serving: Task<Void, any Error>
        let port: UInt16
        let store: StateStore
        let fetcher: Fetcher
        let target: ScriptedPublisher

        func stop() async {
            serving.cancel()
            await receiver.stop()
        }
    }

    func start(
        dir: TempDir, maxBody: Int = 8 << 20, prefer: String? = nil, deadline: TimeInterval? = nil,
        clock: WallClock = .system
    ) async throws -> Running {
        var config = try AgentConfiguration.parse(
            TestBudget.applied(
                to: (prefer.map { "[source]\nprefer = \"\($0)\"\n" } ?? "")
                    + """
                    [receive]
                    listen = "127.0.0.1:8788"
                    token_env = "RECEIVE_TOKEN"
                    max_body = \(maxBody)
                    [schedule]
                    interval = "30m"
                    settle = "15m"
                    [text]
                    time_zone = "Asia/Tokyo"
                    [state]
                    path = "state.sqlite"
                    """), file: dir.path("config.toml"), environment: ["RECEIVE_TOKEN": token])
        let target = ScriptedPublisher()
        config.publishers = [target]
        if let deadline { config.schedule.deadline = deadline }
        var receive = try #require(config.receive)
        receive.port = 0
        let store = try StateStore(path: config.statePath)
        let receiver = ReceiverService(receive: receive, store: store, logger: Logger(label: "test"), clock: clock)
        let serving = Task { try await receiver.run() }
        try await receiver.waitUntilListening()
        let port = try #require(await receiver.port())
        return Running(
            receiver: receiver, serving: serving, port: port, store: store,
            fetcher: Fetcher(configuration: config, clock: ContinuousClock()),
            target: target)
    }

    /// POSTs `body`; the status and the answer's JSON object.
    func post(
        _ port: UInt16, _ body: Data, path: String = "/ingest", token: String?, method: String = "POST",
        headers: [String: String] = [:]
    ) async throws -> (status: Int, answer: [String: Any]) {
        let reply = try await send(port, body, path: path, token: token, method: method, headers: headers)
        let answer = (try? JSONSerialization.jsonObject(with: reply.body)) as? [String: Any] ?? [:]
        return (reply.status, answer)
    }

    /// POSTs `body`; the status, the answer's body and its `Content-Type`.
    func send(
        _ port: UInt16, _ body: Data, path: String = "/ingest", token: String?, method: String = "POST",
        headers: [String: String] = [:]
    ) async throws -> (status: Int, body: Data, contentType: String?) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if method == "POST" { request.httpBody = body }
        // The completion-handler form with an idle timeout: a lost answer fails the test instead of hanging it.
        request.timeoutInterval = patienceInSeconds
        let (data, response): (Data, URLResponse) = try await withCheckedThrowingContinuation { done in
            URLSession.shared.dataTask(with: request) { data, response, error in
                if let data, let response {
                    done.resume(returning: (data, response))
                } else {
                    done.resume(throwing: error ?? URLError(.badServerResponse))
                }
            }.resume()
        }
        let http = response as? HTTPURLResponse
        return (http?.statusCode ?? 0, data, http?.value(forHTTPHeaderField: "Content-Type"))
    }

    /// Health Auto Export's step_count: one point a minute from 10:00 (+09:00), `qty(m)` steps in minute m.
    static func healthAutoExport(
        _ minutes: Range<Int>, source: String = "Taro's iPhone", qty: (Int) -> String = { "\(40 + $0)" }
    ) -> Data {
        let points = minutes.map { m in
            #"{"date": "2026-11-21 10:\#(m < 10 ? "0" : "")\#(m):00 +0900", "qty": \#(qty(m)), "source": "\#(source)"}"#
        }
        return Data(
            #"{"data": {"metrics": [{"name": "step_count", "units": "count", "data": [\#(points.joined(separator: ","))]}, {"name": "heart_rate", "units": "count/min", "data": []}]}}"#
                .utf8)
    }

    static let t0 = Timestamps.parse("2026-11-21T10:00:00+09:00")!

    func receivedRows(_ store: StateStore) throws -> Int {
        try store.writer.read { db in try ReceivedReadingRecord.fetchCount(db) }
    }

    @Test func resentPointsReplaceAndAFetchPostsWhatWasReceivedOnce() async throws {
        let dir = try TempDir()
        let r = try await start(dir: dir)
        let first = try await post(r.port, Self.healthAutoExport(0..<20), token: token)
        #expect(first.status == 200, "\(first.answer)")
        #expect(first.answer["format"] as? String == "health-auto-export")
        #expect(first.answer["readings"] as? Int == 20 && first.answer["duplicates"] as? Int == 0)
        #expect(first.answer["device"] as? String == "Taro's iPhone")
        #expect((first.answer["ignored"] as? [String])?.isEmpty == false)
        // The app sends yesterday and today again: the same points are duplicates, and nothing is added.
        let again = try await post(r.port, Self.healthAutoExport(0..<20), token: token)
        #expect(again.answer["readings"] as? Int == 0 && again.answer["duplicates"] as? Int == 20)

        let fetch = await r.fetcher.fetch(now: Instant(Self.t0.addingTimeInterval(20 * 60)), trigger: [.manual])
        #expect(fetch.result == .newData, "\(fetch.line)")
        #expect(fetch.postedSteps == (0..<20).reduce(0) { $0 + 40 + $1 })
        #expect(fetch.windows.first?.span.start.date == Self.t0)

        // Minute 19 grows (it was still running) and minute 20 arrives: only the difference and the new minute.
        let grown = try await post(
            r.port, Self.healthAutoExport(19..<21, qty: { $0 == 19 ? "100" : "70" }), token: token)
        #expect(grown.answer["readings"] as? Int == 2)
        let next = await r.fetcher.fetch(now: Instant(Self.t0.addingTimeInterval(21 * 60)), trigger: [.manual])
        #expect(next.postedSteps == (100 - 59) + 70, "\(next.line)")
        #expect(next.lateSteps == 100 - 59, "minute 19 was posted already: its growth is late")
        let nothing = await r.fetcher.fetch(now: Instant(Self.t0.addingTimeInterval(40 * 60)), trigger: [.manual])
        #expect(nothing.postedSteps == 0 && nothing.result == .noData, "\(nothing.line)")
        await r.stop()
    }

    /// More readings than one slice recounts (four days of minutes, with fractional counts): the fetch goes on slice
    /// after slice within its budget, and posts the exact rounded total once.
    /// A payload with no step data names no device: the answer leaves `device` out (as every absent value in the
    /// JSON answers is), rather than an empty name, and says what it ignored.
    @Test func aPayloadWithoutStepDataNamesNoDevice() async throws {
        let dir = try TempDir()
        let r = try await start(dir: dir)
        let body = Data(
            #"{"data": {"metrics": [{"name": "heart_rate", "units": "count/min", "data": [{"date": "2026-11-21 10:00:00 +0900", "qty": 61, "source": "Taro's Watch"}]}]}}"#
                .utf8)
        let answer = try await post(r.port, body, token: token)
        #expect(answer.status == 200, "\(answer.answer)")
        #expect(answer.answer["readings"] as? Int == 0 && answer.answer["samples"] as? Int == 0, "\(answer.answer)")
        #expect(answer.answer["ignored"] as? [String] == ["metric heart_rate (1 point)"], "\(answer.answer)")
        #expect(answer.answer.keys.contains("device") == false, "\(answer.answer)")
        // Nor when its only step data is left out: the refused item names its device, the stored part none.
        let refused = try await post(r.port, Self.healthAutoExport(0..<1, qty: { _ in "\"lots\"" }), token: token)
        #expect(refused.status == 422 && refused.answer["stored"] as? Int == 0, "\(refused.answer)")
        #expect(refused.answer.keys.contains("device") == false, "\(refused.answer)")
        #expect(try receivedRows(r.store) == 0)
        await r.stop()
    }

    @Test func aBacklogOfManySlicesIsCountedExactlyOnce() async throws {
        let dir = try TempDir()
        let r = try await start(dir: dir)
        let minutes = 4 * 1440
        #expect(minutes > ReceivedStepSource.readingsPerSlice)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "Asia/Tokyo")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss Z"
        let start = Self.t0.addingTimeInterval(-4 * 86_400)
        let points = (0..<minutes).map { m in
            #"{"date": "\#(formatter.string(from: start.addingTimeInterval(Double(m) * 60)))", "qty": \#(m % 7).5}"#
        }
        let body =
            #"{"data": {"metrics": [{"name": "step_count", "units": "count", "data": [\#(points.joined(separator: ","))]}]}}"#
        let answer = try await post(r.port, Data(body.utf8), token: token)
        #expect(answer.status == 200 && answer.answer["readings"] as? Int == minutes, "\(answer.answer)")
        let fetch = await r.fetcher.fetch(now: Instant(Self.t0), trigger: [.manual])
        let exact = (0..<minutes).reduce(0.0) { $0 + Double($1 % 7) + 0.5 }
        #expect(fetch.postedSteps == Int(exact.rounded()), "\(fetch.line)")
        #expect(!fetch.backlog)
        let again = await r.fetcher.fetch(now: Instant(Self.t0.addingTimeInterval(3600)), trigger: [.manual])
        #expect(again.postedSteps == 0)
        await r.stop()
    }

    /// A fetch whose budget runs out inside a backlog closes its window where the uncounted readings start, so the
    /// rest is posted by the next fetch in its own time, not as late steps (nor held back until the phone goes quiet).
    @Test func aBudgetSpentInsideABacklogClosesTheWindowWhereTheUncountedReadingsStart() async throws {
        let dir = try TempDir()
        let r = try await start(dir: dir, deadline: 0.000_001)  // spent before the first slice ends
        let days = 4
        let start = Self.t0.addingTimeInterval(-Double(days) * 86_400)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss Z"
        let points = (0..<(days * 1440)).map { m in
            #"{"date": "\#(formatter.string(from: start.addingTimeInterval(Double(m) * 60)))", "qty": \#(m % 9 + 1)}"#
        }
        let body =
            #"{"data": {"metrics": [{"name": "step_count", "units": "count", "data": [\#(points.joined(separator: ","))]}]}}"#
        #expect(try await post(r.port, Data(body.utf8), token: token).status == 200)
        let first = await r.fetcher.fetch(now: Instant(Self.t0), trigger: [.manual])
        #expect(first.backlog, "\(first.line)")
        let firstEnd = try #require(first.windows.last).span.end.date
        let slice = ReceivedStepSource.readingsPerSlice
        #expect(firstEnd == start.addingTimeInterval(Double(slice) * 60), "closed where the uncounted readings start")
        #expect(first.postedSteps == (0..<slice).reduce(0) { $0 + $1 % 9 + 1 })
        let second = await r.fetcher.fetch(now: Instant(Self.t0.addingTimeInterval(60)), trigger: [.manual])
        #expect(!second.backlog && second.lateSteps == 0, "\(second.line)")
        #expect(first.postedSteps + second.postedSteps == (0..<(days * 1440)).reduce(0) { $0 + $1 % 9 + 1 })
        await r.stop()
    }

    /// History sent long after its time (four days of minutes, two months old, over several budget-bound fetches) is
    /// stored a row a minute, not a row a second, and posted exactly once, in its own time.
    @Test func historyMonthsOldIsStoredAMinuteARowAndPostedOnce() async throws {
        let dir = try TempDir()
        let r = try await start(dir: dir, deadline: 0.000_001)  // a slice per fetch
        let minutes = 4 * 1440
        #expect(minutes > ReceivedStepSource.readingsPerSlice)
        let start = Self.t0.addingTimeInterval(-60 * 86_400)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss Z"
        let points = (0..<minutes).map { m in
            #"{"date": "\#(formatter.string(from: start.addingTimeInterval(Double(m) * 60)))", "qty": \#(m % 50 + 10)}"#
        }
        let body =
            #"{"data": {"metrics": [{"name": "step_count", "units": "count", "data": [\#(points.joined(separator: ","))]}]}}"#
        #expect(try await post(r.port, Data(body.utf8), token: token).status == 200)
        var posted = 0
        var fetches = 0
        var late = 0
        while fetches < 20 {
            let report = await r.fetcher.fetch(
                now: Instant(Self.t0.addingTimeInterval(Double(fetches))), trigger: [.manual])
            fetches += 1
            posted += report.postedSteps
            late += report.lateSteps
            if !report.backlog { break }
        }
        #expect(fetches > 1, "read in slices")
        #expect(posted == (0..<minutes).reduce(0) { $0 + $1 % 50 + 10 } && late == 0)
        let (rows, offMinute) = try await r.store.writer.read { db in
            (
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM steps")!,
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM steps WHERE second % 60 != 0")!
            )
        }
        #expect(rows == minutes && offMinute == 0, "\(rows) rows, \(offMinute) not on a minute")
        await r.stop()
    }

    @Test func aResendThatLowersPostedTimeLowersNothingPostedAndSaysSo() async throws {
        let dir = try TempDir()
        let r = try await start(dir: dir)
        _ = try await post(r.port, Self.healthAutoExport(0..<10), token: token)
        let fetch = await r.fetcher.fetch(now: Instant(Self.t0.addingTimeInterval(10 * 60)), trigger: [.manual])
        #expect(fetch.postedSteps == (0..<10).reduce(0) { $0 + 40 + $1 })
        _ = try await post(r.port, Self.healthAutoExport(5..<6, qty: { _ in "10" }), token: token)
        let after = await r.fetcher.fetch(now: Instant(Self.t0.addingTimeInterval(11 * 60)), trigger: [.manual])
        #expect(after.postedSteps == 0)
        #expect(after.warnings.contains { $0.contains("lowered 35 steps") }, "\(after.warnings)")
        await r.stop()
    }

    /// An iPhone and a Watch count the same walk: in each minute one of them counts, the one with more steps, even
    /// when the Watch's minutes arrive after the iPhone's were posted.
    @Test func overlappingDevicesCountOncePerMinuteTheOneWithMoreSteps() async throws {
        let dir = try TempDir()
        let r = try await start(dir: dir)
        let phone = { (m: Int) in 40 + m }
        let watch = { (m: Int) in m % 2 == 0 ? 52 : 30 }
        _ = try await post(r.port, Self.healthAutoExport(0..<20, qty: { "\(phone($0))" }), token: token)
        let first = await r.fetcher.fetch(now: Instant(Self.t0.addingTimeInterval(20 * 60)), trigger: [.manual])
        #expect(first.postedSteps == (0..<20).map(phone).reduce(0, +), "\(first.line)")
        // The Watch syncs later, for the same minutes and the next ten.
        let answer = try await post(
            r.port, Self.healthAutoExport(0..<30, source: "Taro's Apple Watch", qty: { "\(watch($0))" }), token: token)
        #expect(answer.status == 200, "\(answer.answer)")
        let second = await r.fetcher.fetch(now: Instant(Self.t0.addingTimeInterval(30 * 60)), trigger: [.manual])
        let perMinute = (0..<20).map { max(phone($0), watch($0)) }.reduce(0, +) + (20..<30).map(watch).reduce(0, +)
        let lateGain = (0..<20).map { max(phone($0), watch($0)) - phone($0) }.reduce(0, +)
        #expect(lateGain > 0)
        #expect(second.lateSteps == lateGain, "\(second.line)")
        #expect(first.postedSteps + second.postedSteps == perMinute, "\(second.line)")
        #expect(try r.store.steps(in: .sinceEpoch) == perMinute)
        await r.stop()
    }

    /// With `source.prefer`, the preferred device counts wherever it has steps, and the other fills its gaps; a
    /// preferred device that counts less than what was posted lowers nothing posted, and the fetch says so.
    @Test func thePreferredDeviceCountsWhereItHasStepsAndTheOtherFillsTheGaps() async throws {
        let dir = try TempDir()
        let r = try await start(dir: dir, prefer: "watch")
        let phone = { (m: Int) in 60 + m }
        let watch = { (m: Int) in 50 }
        _ = try await post(r.port, Self.healthAutoExport(0..<10, qty: { "\(phone($0))" }), token: token)
        let first = await r.fetcher.fetch(now: Instant(Self.t0.addingTimeInterval(10 * 60)), trigger: [.manual])
        #expect(first.postedSteps == (0..<10).map(phone).reduce(0, +))
        // The Watch was taken off for minutes 3-5, and covers 10-19 too; the phone also has 10-19.
        let watchMinutes = (0..<20).filter { !(3...5).contains($0) }
        for m in watchMinutes {
            _ = try await post(
                r.port, Self.healthAutoExport(m..<(m + 1), source: "Taro's Apple Watch", qty: { "\(watch($0))" }),
                token: token)
        }
        _ = try await post(r.port, Self.healthAutoExport(10..<20, qty: { "\(phone($0))" }), token: token)
        let second = await r.fetcher.fetch(now: Instant(Self.t0.addingTimeInterval(20 * 60)), trigger: [.manual])
        let lowered = watchMinutes.filter { $0 < 10 }.map { phone($0) - watch($0) }.reduce(0, +)
        #expect(second.warnings.contains { $0.contains("lowered \(lowered) steps") }, "\(second.warnings)")
        #expect(second.postedSteps == (10..<20).map(watch).reduce(0, +), "\(second.line)")
        let counted = (0..<20).map { watchMinutes.contains($0) ? watch($0) : phone($0) }.reduce(0, +)
        #expect(try r.store.steps(in: .sinceEpoch) == counted)
        await r.stop()
    }

    @Test func fractionalAggregatedCountsAreSummedThenRounded() async throws {
        let dir = try TempDir()
        let r = try await start(dir: dir)
        // Ten minutes of 1.4 steps: 14 in all, though each rounds to 1.
        let answer = try await post(r.port, Self.healthAutoExport(0..<10, qty: { _ in "1.4" }), token: token)
        #expect(answer.status == 200, "\(answer.answer)")
        let fetch = await r.fetcher.fetch(now: Instant(Self.t0.addingTimeInterval(10 * 60)), trigger: [.manual])
        #expect(fetch.postedSteps == 14, "\(fetch.line)")
        await r.stop()
    }

    @Test func theTokenIsRequiredInTheHeaderOrThePathAndNeverRepeated() async throws {
        let dir = try TempDir()
        let r = try await start(dir: dir)
        let body = Self.healthAutoExport(0..<3)
        let none = try await post(r.port, body, token: nil)
        let wrong = try await post(r.port, body, token: "s3cret-tokeN")
        let short = try await post(r.port, body, token: "s3cret")
        #expect(none.status == 401 && wrong.status == 401 && short.status == 401)
        for answer in [none, wrong, short] {
            let text = String(describing: answer.answer)
            #expect(!text.contains("s3cret"), "\(text)")
        }
        #expect(try receivedRows(r.store) == 0)
        // Sensor Logger can set only a URL: the token in the path is the same request.
        let inPath = try await post(r.port, body, path: "/ingest/\(token)", token: nil)
        #expect(inPath.status == 200, "\(inPath.answer)")
        #expect(try await post(r.port, body, path: "/ingest/wrong", token: nil).status == 401)
        #expect(try receivedRows(r.store) == 3)
        await r.stop()
    }

    @Test func refusedRequestsStoreNothingAndSayWhy() async throws {
        let dir = try TempDir()
        let r = try await start(dir: dir, maxBody: 4096)
        // A payload that cannot be read as a whole (a point that cannot be read is left out instead:
        // ReceiverLeftOutTests).
        let metrics = try await post(r.port, Data(#"{"data": {"metrics": {}}}"#.utf8), token: token)
        #expect(metrics.status == 400)
        let error = try #require(metrics.answer["error"] as? String)
        #expect(error.contains("data.metrics: expected an array"), "\(error)")
        let garbage = try await post(r.port, Data("{\"hello\": 1}".utf8), token: token)
        #expect(garbage.status == 400 && (garbage.answer["error"] as? String)?.isEmpty == false)
        let truncated = try await post(r.port, Self.healthAutoExport(0..<3).dropLast(7), token: token)
        #expect(truncated.status == 400)
        let unknown = try await post(r.port, Self.healthAutoExport(0..<3), path: "/ingest?format=fitbit", token: token)
        #expect(unknown.status == 400 && (unknown.answer["error"] as? String)?.contains("unknown format") == true)
        let large = try await post(r.port, Self.healthAutoExport(0..<60), token: token)
        #expect(large.status == 413)
        #expect(try await post(r.port, Data(), token: token, method: "GET").status == 405)
        #expect(try await post(r.port, Data(), path: "/other", token: token).status == 404)
        #expect(try receivedRows(r.store) == 0)
        await r.stop()
    }

    @Test func aGzipBodyIsInflatedWithinTheLimit() async throws {
        let dir = try TempDir()
        let r = try await start(dir: dir, maxBody: 8192)
        let plain = Self.healthAutoExport(0..<30)
        let gzip = try await Self.gzip(plain)
        #expect(gzip.count < 8192 && plain.count < 8192)
        let answer = try await post(r.port, gzip, token: token, headers: ["Content-Encoding": "gzip"])
        #expect(answer.status == 200, "\(answer.answer)")
        #expect(answer.answer["readings"] as? Int == 30)
        // Small as sent, too large inflated.
        let bomb = try await Self.gzip(Self.healthAutoExport(0..<59) + Data(repeating: 0x20, count: 20_000))
        #expect(bomb.count < 8192)
        #expect(try await post(r.port, bomb, token: token, headers: ["Content-Encoding": "gzip"]).status == 413)
        let damaged = gzip.prefix(gzip.count / 2)
        #expect(try await post(r.port, damaged, token: token, headers: ["Content-Encoding": "gzip"]).status == 400)
        await r.stop()
    }

    @Test func aTestMessageIsAnsweredAndStoresNothing() async throws {
        let dir = try TempDir()
        let r = try await start(dir: dir)
        let test = Data(
            #"{"timestamp": "2026-11-21T03:15:00Z", "app_version": "1.4.0", "test": true, "steps": []}"#.utf8)
        let answer = try await post(r.port, test, token: token)
        #expect(answer.status == 200 && answer.answer["test"] as? Bool == true, "\(answer.answer)")
        #expect(try receivedRows(r.store) == 0)
        await r.stop()
    }

    /// Health Auto Export sends its CSV export as `multipart/form-data` (push-sources.md): refused with 415, naming
    /// the header and the setting to change, never read as malformed JSON; nothing stored.
    @Test func aMultipartCSVExportIsRefusedNamingTheContentType() async throws {
        let dir = try TempDir()
        let r = try await start(dir: dir)
        let csv =
            "--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"HealthAutoExport.csv\"\r\n"
            + "Content-Type: text/csv\r\n\r\nDate/Time,Step Count (count)\r\n2026-11-21 10:00:00,123\r\n--XyZ--\r\n"
        let answer = try await post(
            r.port, Data(csv.utf8), token: token, headers: ["Content-Type": "multipart/form-data; boundary=XyZ"])
        #expect(answer.status == 415, "\(answer.answer)")
        let error = try #require(answer.answer["error"] as? String)
        #expect(error.contains("Content-Type") && error.contains("multipart/form-data") && error.contains("JSON"))
        #expect(try receivedRows(r.store) == 0)
        await r.stop()
    }

    /// Sensor Logger shows the text of a 499 answer to the user, once per recording, and nothing of any other
    /// refusal (PUSHING.md, push-sources.md): a Sensor Logger message whose reading cannot be read is answered 499
    /// with the field in plain text. Other formats keep 400 with JSON.
    @Test func aRefusedSensorLoggerMessageIsToldToTheUserWith499() async throws {
        let dir = try TempDir()
        let r = try await start(dir: dir)
        let bad = Data(
            #"{"messageId": 3, "sessionId": "s1", "deviceId": "d1", "payload": [{"name": "totalacceleration", "time": 1698501145514000000, "values": {"x": "a", "y": 9.8, "z": 0.2}}]}"#
                .utf8)
        let refused = try await send(r.port, bad, path: "/ingest/\(token)", token: nil)
        #expect(refused.status == 499)
        #expect(refused.contentType?.hasPrefix("text/plain") == true, "\(refused.contentType ?? "none")")
        let text = String(decoding: refused.body, as: UTF8.self)
        #expect(text.contains("payload[0].values.x") && text.contains("stored 0 items"), "\(text)")
        #expect(try receivedRows(r.store) == 0)
        #expect(try await post(r.port, Data(#"{"data": {"metrics": 5}}"#.utf8), token: token).status == 400)
        await r.stop()
    }

    /// OwnTracks POSTs a zero-length body when a friend is deleted, and its HTTP booklet says to ignore such bodies;
    /// the app waits for a 2xx before it sends the next message of its queue. An empty body from OwnTracks (its
    /// `User-Agent`, its `X-Limit-U`/`X-Limit-D` headers, or `?format=owntracks`) is answered 200 and stores
    /// nothing; an empty body from anything else stays a 400 saying it is empty.
    @Test func anEmptyBodyFromOwnTracksIsAnsweredAndStoresNothing() async throws {
        let dir = try TempDir()
        let r = try await start(dir: dir)
        let fromOwnTracks: [(path: String, headers: [String: String])] = [
            ("/ingest/\(token)", ["User-Agent": "OwnTracks/17.2.3 CFNetwork/1494.0.7 Darwin/23.4.0"]),
            ("/ingest/\(token)", ["X-Limit-U": "taro", "X-Limit-D": "iphone"]),
            ("/ingest/\(token)?format=owntracks", [:]),
        ]
        for (path, headers) in fromOwnTracks {
            let answer = try await send(r.port, Data(), path: path, token: nil, headers: headers)
            #expect(answer.status == 200, "\(headers): \(String(decoding: answer.body, as: UTF8.self))")
            #expect(try JSONSerialization.jsonObject(with: answer.body) is [Any], "OwnTracks reads an array")
        }
        let other = try await post(r.port, Data(), token: token)
        #expect(other.status == 400 && (other.answer["error"] as? String)?.contains("empty body") == true)
        #expect(try receivedRows(r.store) == 0)
        await r.stop()
    }

    /// OwnTracks sends its steps only when asked by a `reportSteps` command (push-sources.md), and in HTTP mode a
    /// command reaches the phone only in the answer to a POST: a JSON array of messages (OwnTracks' HTTP booklet).
    /// A location (or any message without steps) is answered with `[{"_type": "cmd", "action": "reportSteps"}]`, so
    /// the phone reports today's total; the steps report itself is answered `[]`, so nothing loops.
    @Test func ownTracksIsAskedForItsStepsInTheAnswerToALocation() async throws {
        let dir = try TempDir()
        let r = try await start(dir: dir)
        let headers = ["X-Limit-U": "taro", "X-Limit-D": "iphone"]
        let location = Data(#"{"_type": "location", "lat": 35.68, "lon": 139.76, "tst": 1795316400, "tid": "tr"}"#.utf8)
        let asked = try await send(r.port, location, path: "/ingest/\(token)", token: nil, headers: headers)
        #expect(asked.status == 200)
        let commands = try #require(try JSONSerialization.jsonObject(with: asked.body) as? [[String: Any]])
        #expect(commands.count == 1)
        #expect(commands.first?["_type"] as? String == "cmd" && commands.first?["action"] as? String == "reportSteps")
        let steps = Data(
            #"{"_type": "steps", "tst": 1795316400, "steps": 4321, "from": 1795273200, "to": 1795316400}"#.utf8)
        let reported = try await send(r.port, steps, path: "/ingest/\(token)", token: nil, headers: headers)
        #expect(reported.status == 200)
        #expect(try JSONSerialization.jsonObject(with: reported.body) as? [Any] != nil)
        #expect((try JSONSerialization.jsonObject(with: reported.body) as? [Any])?.isEmpty == true)
        #expect(try receivedRows(r.store) == 1)
        // A phone without a pedometer reports -1: still the answer to the command, so it is not asked again.
        let unsupported = Data(#"{"_type": "steps", "steps": -1, "from": 1795273200, "to": 1795316400}"#.utf8)
        let none = try await send(r.port, unsupported, path: "/ingest/\(token)", token: nil, headers: headers)
        #expect(none.status == 200)
        #expect((try JSONSerialization.jsonObject(with: none.body) as? [Any])?.isEmpty == true)
        await r.stop()
    }

    /// OwnTracks authenticates to an HTTP endpoint with Basic authentication (its user and password settings; its
    /// HTTP booklet): the token is taken as the password, whatever the user name. A wrong password is a 401.
    @Test func theTokenIsTakenAsABasicPassword() async throws {
        let dir = try TempDir()
        let r = try await start(dir: dir)
        func basic(_ user: String, _ password: String) -> [String: String] {
            ["Authorization": "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()]
        }
        let location = Data(#"{"_type": "location", "lat": 35.68, "lon": 139.76, "tst": 1795316400}"#.utf8)
        #expect(try await send(r.port, location, token: nil, headers: basic("taro", token)).status == 200)
        #expect(try await send(r.port, location, token: nil, headers: basic("taro", "wrong")).status == 401)
        #expect(try await send(r.port, location, token: nil, headers: basic(token, "")).status == 401)
        await r.stop()
    }

    /// On iOS, Sensor Logger's `accelerometer` is acceleration without gravity, which comes as its own sensor
    /// (push-sources.md, UNITS.md): a recording with Accelerometer but without Gravity can count no step. The user
    /// is told so with a 499 (shown once per recording) instead of a 200 they never see; with gravity it is a 200.
    @Test func sensorLoggerWithoutGravityTellsTheUserWith499() async throws {
        let dir = try TempDir()
        let r = try await start(dir: dir)
        func message(_ sensors: [String]) -> Data {
            let readings = (0..<5).flatMap { i in
                sensors.map { name in
                    #"{"name": "\#(name)", "time": \#(1_795_316_400_000_000_000 + i * 10_000_000), "values": {"x": 0.1, "y": 0.2, "z": 9.7}}"#
                }
            }
            return Data(
                #"{"messageId": 1, "sessionId": "s1", "deviceId": "d1", "payload": [\#(readings.joined(separator: ","))]}"#
                    .utf8)
        }
        let alone = try await send(r.port, message(["accelerometer"]), path: "/ingest/\(token)", token: nil)
        #expect(alone.status == 499)
        let text = String(decoding: alone.body, as: UTF8.self)
        #expect(text.contains("Gravity"), "\(text)")
        let paired = try await send(
            r.port, message(["accelerometer", "gravity"]), path: "/ingest/\(token)", token: nil)
        #expect(paired.status == 200, "\(String(decoding: paired.body, as: UTF8.self))")
        await r.stop()
    }

    /// The real Health Auto Export captures in `fixtures/push/health-auto-export/captured` (metrics, workouts, sleep in three layouts) are
    /// answered 200 with what they hold listed as ignored, and store nothing: none holds `step_count`.
    @Test func theRealHealthAutoExportCapturesAreAnsweredAndListed() async throws {
        let dir = try TempDir()
        let r = try await start(dir: dir)
        let expected = [
            "metrics": ["metric active_energy (2 points)", "metric basal_body_temperature (0 points)"],
            "workouts": ["1 workout"],
            "aggregated_sleep_analysis": ["metric sleep_analysis (1 point)"],
            "aggregated_sleep_analysis_HAE-6.6.2": ["metric sleep_analysis (1 point)"],
            "non-aggregated_sleep_analysis": ["metric sleep_analysis (1 point)"],
        ]
        for (name, ignored) in expected.sorted(by: { $0.key < $1.key }) {
            let path = SharedData.fixture("push/health-auto-export/captured/\(name).json")
            let answer = try await post(r.port, try Data(contentsOf: URL(fileURLWithPath: path)), token: token)
            #expect(answer.status == 200, "\(name): \(answer.answer)")
            #expect(answer.answer["format"] as? String == "health-auto-export", "\(name)")
            #expect(answer.answer["ignored"] as? [String] == ignored, "\(name): \(answer.answer)")
        }
        #expect(try receivedRows(r.store) == 0)
        await r.stop()
    }

    /// The committed 60 s walk replayed as Sensor Logger would push it: 1 s messages of `totalacceleration`
    /// (Android), each mixed with gyroscope readings and shuffled, one message sent twice and two sent in swapped
    /// order. The stream counts what `count` counts on the file.
    @Test func aRecordingReplayedAsSensorLoggerMessagesCountsAsTheFileDoes() async throws {
        let dir = try TempDir()
        let t0 = Self.t0
        let r = try await start(dir: dir, clock: WallClock(ImmediateClock(), startingAt: t0.addingTimeInterval(61)))
        let lines = try String(contentsOfFile: Fixture.walk, encoding: .utf8).split(separator: "\n").dropFirst()
        var random = SeededRandom(seed: 11)
        var messages: [[String]] = []
        for line in lines {
            let f = line.split(separator: ",")
            let ns = Timestamps.nanoseconds(t0) + Int64((Double(f[0])! * 1e6).rounded())
            let second = Int((ns - Timestamps.nanoseconds(t0)) / 1_000_000_000)
            while messages.count <= second { messages.append([]) }
            messages[second].append(
                #"{"name":"totalacceleration","time":\#(ns),"values":{"x":\#(f[1]),"y":\#(f[2]),"z":\#(f[3])},"accuracy":3}"#
            )
            messages[second].append(#"{"name":"gyroscope","time":\#(ns + 7),"values":{"x":0.01,"y":0.02,"z":0.03}}"#)
        }
        var order = Array(messages.indices)
        order.swapAt(10, 11)
        order.insert(20, at: 25)
        for (n, i) in order.enumerated() {
            let body =
                #"{"messageId":\#(n),"sessionId":"session-1","deviceId":"pixel","payload":[\#(messages[i].shuffled(using: &random).joined(separator: ","))]}"#
            let answer = try await post(r.port, Data(body.utf8), token: token)
            #expect(answer.status == 200, "\(answer.answer)")
        }
        let fetch = await r.fetcher.fetch(now: Instant(t0.addingTimeInterval(61 + 31)), trigger: [.manual])
        let counted = try RecordingCounter.count(path: Fixture.walk).steps
        let stored = try r.store.steps(in: .sinceEpoch)
        #expect(counted > 100)
        #expect(abs(stored - counted) <= counted / 100, "stored \(stored), count \(counted)")
        // The window waits for the device up to its last sample; once it has been quiet for `settle`, the rest goes.
        let later = await r.fetcher.fetch(now: Instant(t0.addingTimeInterval(61 + 16 * 60)), trigger: [.manual])
        #expect(fetch.postedSteps + later.postedSteps == stored, "\(fetch.line) / \(later.line)")
        let left = try await r.store.writer.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM received_sample")
        }
        #expect(left == 0, "every sample fed is removed")
        await r.stop()
    }

    /// Two days of minute points from an iPhone and a Watch, sent five times as Health Auto Export would: each send
    /// covers yesterday and today up to its time (resends), the minute still running grows at the next send, the
    /// Watch syncs to the phone late, the phone's setting switches to 12-hour dates, and one send also carries a
    /// morning aggregated (one pipe-joined source, fractional counts). Fetches run between sends.
    /// What is posted in all equals the per-minute rule over the final points exactly, and nothing is posted twice.
    @Test func twoDevicesSentFiveTimesPostThePerMinuteRuleExactly() async throws {
        let dir = try TempDir()
        let day0 = Timestamps.parse("2026-11-20T00:00:00+09:00")!
        var random = SeededRandom(seed: 34)
        let minutes = 2 * 1440
        // The final count of each minute; walks in about one minute in eight, and the Watch off at night.
        var phone = [Int](repeating: 0, count: minutes)
        var watch = [Int](repeating: 0, count: minutes)
        for m in 0..<minutes where random.next() % 8 == 0 {
            phone[m] = Int(random.next() % 120) + 1
            let hour = (m % 1440) / 60
            if (7..<23).contains(hour) { watch[m] = max(0, phone[m] + Int(random.next() % 21) - 10) }
        }
        // The aggregated source's whole steps a minute (it sends them plus 0.4): its microsteps summed, then rounded.
        let aggregatedMinutes = (6 * 60)..<(9 * 60)
        let aggregated = (0..<minutes).map { aggregatedMinutes.contains($0) ? max(phone[$0], watch[$0]) : 0 }
        var aggregatedCounted = [Int](repeating: 0, count: minutes)
        var micro: Int64 = 0
        for m in aggregatedMinutes where aggregated[m] > 0 {
            let before = ReceivedRecount.rounded(micro)
            micro += Int64(aggregated[m]) * 1_000_000 + 400_000
            aggregatedCounted[m] = ReceivedRecount.rounded(micro) - before
        }
        let clock = TestClock<Duration>()
        let wall = WallClock(clock, startingAt: day0)
        let r = try await start(dir: dir, clock: wall)
        // Send k at these minutes; the Watch's data reaches the phone an hour late.
        let sends = [9 * 60, 15 * 60, 23 * 60 + 30, 1440 + 8 * 60, minutes]
        var posted = 0
        for (k, sendMinute) in sends.enumerated() {
            await clock.advance(to: .init(offset: .seconds(sendMinute * 60)))
            let twelveHour = k >= 3
            for (source, counts, lag) in [("Taro's iPhone", phone, 0), ("Taro's Apple Watch", watch, 60)] {
                let through = max(0, sendMinute - lag)
                let from = max(0, (through / 1440 - 1) * 1440)  // yesterday and today
                var points: [String] = []
                for m in from..<through where counts[m] > 0 {
                    // The minute still running when the app sends has counted only part of its steps.
                    let qty = m == through - 1 ? counts[m] / 2 : counts[m]
                    if qty == 0 { continue }
                    let date = Self.haeDate(day0.addingTimeInterval(Double(m) * 60), twelveHour: twelveHour)
                    points.append(#"{"date": "\#(date)", "qty": \#(qty), "source": "\#(source)"}"#)
                }
                let body =
                    #"{"data": {"metrics": [{"name": "step_count", "units": "count", "data": [\#(points.joined(separator: ","))]}]}}"#
                let answer = try await post(r.port, Data(body.utf8), token: token)
                #expect(answer.status == 200, "send \(k) \(source): \(answer.answer)")
            }
            if k == 2 {
                // The app's "aggregate" setting, turned on for one send: the morning of day 0 again, as one pipe-joined
                // source with fractional counts. It is one more device, which wins the minutes where it has more.
                let points = aggregatedMinutes.filter { aggregated[$0] > 0 }.map { m in
                    let date = Self.haeDate(day0.addingTimeInterval(Double(m) * 60), twelveHour: false)
                    return
                        #"{"date": "\#(date)", "qty": \#(aggregated[m]).4, "source": "Taro's iPhone|Taro's Apple Watch"}"#
                }
                let body =
                    #"{"data": {"metrics": [{"name": "step_count", "units": "count", "data": [\#(points.joined(separator: ","))]}]}}"#
                let answer = try await post(r.port, Data(body.utf8), token: token)
                #expect(answer.status == 200, "aggregated: \(answer.answer)")
            }
            let fetch = await r.fetcher.fetch(
                now: Instant(day0.addingTimeInterval(Double(sendMinute) * 60 + 30)), trigger: [.manual])
            #expect(fetch.result != .failed, "\(fetch.line)")
            posted += fetch.postedSteps
        }
        // The last minute of each device grows to its final count: one more send of that minute.
        for (source, counts) in [("Taro's iPhone", phone), ("Taro's Apple Watch", watch)] where counts[minutes - 1] > 0
        {
            let date = Self.haeDate(day0.addingTimeInterval(Double(minutes - 1) * 60), twelveHour: true)
            let body =
                #"{"data": {"metrics": [{"name": "step_count", "units": "count", "data": [{"date": "\#(date)", "qty": \#(counts[minutes - 1]), "source": "\#(source)"}]}]}}"#
            _ = try await post(r.port, Data(body.utf8), token: token)
        }
        await clock.advance(to: .init(offset: .seconds(minutes * 60 + 3600)))
        let last = await r.fetcher.fetch(now: Instant(wall.now()), trigger: [.manual])
        posted += last.postedSteps
        let rule = (0..<minutes).map { max(phone[$0], watch[$0], aggregatedCounted[$0]) }.reduce(0, +)
        let sum = (0..<minutes).map { phone[$0] + watch[$0] + aggregatedCounted[$0] }.reduce(0, +)
        let withoutAggregated = (0..<minutes).map { max(phone[$0], watch[$0]) }.reduce(0, +)
        #expect(rule > 1000 && sum > rule && rule > withoutAggregated, "\(withoutAggregated) < \(rule) < \(sum)")
        #expect(posted == rule, "posted \(posted), per-minute rule \(rule), sum of both \(sum)")
        #expect(try r.store.steps(in: .sinceEpoch) == rule)
        await r.stop()
    }

    /// Health Auto Export's date: 24-hour `2026-11-20 13:05:00 +0900`, or 12-hour `2026-11-20 1:05:00 PM +0900`
    /// with the narrow no-break space iOS 17 puts before PM.
    static func haeDate(_ date: Date, twelveHour: Bool) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "Asia/Tokyo")
        formatter.dateFormat = twelveHour ? "yyyy-MM-dd h:mm:ss\u{202F}a Z" : "yyyy-MM-dd HH:mm:ss Z"
        return formatter.string(from: date)
    }

    /// A phone that pushes its pedometer's running totals beside its accelerometer is counted once: in each minute
    /// either what its pedometer counted or what the detector found in its acceleration.
    @Test func aPhonesPedometerAndAccelerometerAreNotAddedTogether() async throws {
        let dir = try TempDir()
        let t0 = Self.t0
        let r = try await start(dir: dir, clock: WallClock(ImmediateClock(), startingAt: t0.addingTimeInterval(61)))
        let lines = try String(contentsOfFile: Fixture.walk, encoding: .utf8).split(separator: "\n").dropFirst()
        var messages: [[String]] = []
        for line in lines {
            let f = line.split(separator: ",")
            let ns = Timestamps.nanoseconds(t0) + Int64((Double(f[0])! * 1e6).rounded())
            let second = Int((ns - Timestamps.nanoseconds(t0)) / 1_000_000_000)
            while messages.count <= second {
                // The phone's pedometer: 1.5 steps a second, as a running total at the start of each second.
                let total = messages.count * 3 / 2
                let at = Timestamps.nanoseconds(t0) + Int64(messages.count) * 1_000_000_000
                messages.append([#"{"name":"pedometer","time":\#(at),"values":{"steps":\#(total)}}"#])
            }
            messages[second].append(
                #"{"name":"totalacceleration","time":\#(ns),"values":{"x":\#(f[1]),"y":\#(f[2]),"z":\#(f[3])}}"#)
        }
        for (n, message) in messages.enumerated() {
            let body =
                #"{"messageId":\#(n),"sessionId":"s","deviceId":"pixel","payload":[\#(message.joined(separator: ","))]}"#
            let answer = try await post(r.port, Data(body.utf8), token: token)
            #expect(answer.status == 200, "\(answer.answer)")
        }
        _ = await r.fetcher.fetch(now: Instant(t0.addingTimeInterval(61 + 16 * 60)), trigger: [.manual])
        let detected = try RecordingCounter.count(path: Fixture.walk).steps
        let pedometer = (messages.count - 1) * 3 / 2
        let stored = try r.store.steps(in: .sinceEpoch)
        #expect(detected > 100 && pedometer > 50)
        #expect(stored >= max(detected, pedometer) - detected / 100, "stored \(stored)")
        #expect(stored < detected + pedometer / 2, "stored \(stored): detected \(detected), pedometer \(pedometer)")
        await r.stop()
    }

    /// A phone that pushes readings sends all it has up to the moment it sends: heard again without a newer step, it
    /// does not hold the window back (Health Auto Export sends no point for a minute without steps).
    @Test func aPhoneHeardWithoutNewStepsDoesNotHoldTheWindowBack() async throws {
        let dir = try TempDir()
        let t0 = Self.t0
        let r = try await start(
            dir: dir, clock: WallClock(ImmediateClock(), startingAt: t0.addingTimeInterval(25 * 60)))
        _ = try await post(r.port, Self.healthAutoExport(0..<10), token: token)
        let fetch = await r.fetcher.fetch(now: Instant(t0.addingTimeInterval(30 * 60)), trigger: [.manual])
        #expect(fetch.postedSteps == (0..<10).reduce(0) { $0 + 40 + $1 }, "\(fetch.line)")
        #expect(
            fetch.windows.last?.span.end.date == t0.addingTimeInterval(25 * 60),
            "closed at the push, not the last point")
        await r.stop()
    }

    /// `gzip -c`, from Debian's gzip, waited for on a thread of its own (`offThePool`).
    static func gzip(_ data: Data) async throws -> Data {
        try await offThePool { try gzipBlocking(data) }
    }

    private static func gzipBlocking(_ data: Data) throws -> Data {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/bin/gzip")
        process.arguments = ["-c"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(data)
        try input.fileHandleForWriting.close()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return out
    }
}
