import Agent
import Analysis
import Clocks
import Foundation
import GRDB
import Messages
import Publishing
import Testing
import WallTime

@testable import Store

@Suite(.timeLimit(.minutes(1))) struct FetchTests {
    let t0 = Fixture.date("2026-11-21T10:00:00+09:00")

    @Test func firstFetchPostsTheWalkAndTheNextHasNoData() async throws {
        let dir = try TempDir()
        var config = try Fixture.config(dir: dir)
        let target = ScriptedPublisher()
        config.publishers = [target]
        let fetcher = Fetcher(configuration: config, clock: ContinuousClock())

        let first = await fetcher.fetch(now: Instant(t0.addingTimeInterval(600)), trigger: [.manual])
        #expect(first.result == .newData, "\(first.line)")
        let window = try #require(first.windows.first)
        #expect(window.text.hasPrefix("11/21 10:02:00 〜 11/21 10:10:00 の期間に iPhone 5s を持って "))
        #expect(window.text.hasSuffix(" 歩 歩きました。 Tweet By Background Fetch"))
        #expect(abs(window.steps - 109) <= 11)
        let received = await target.received
        #expect(received.map(\.text) == [window.text])
        #expect(received.first?.idempotencyKey == "steps-20261121T010200Z-20261121T011000Z")

        let second = await fetcher.fetch(now: Instant(t0.addingTimeInterval(1200)), trigger: [.manual])
        #expect(second.result == .noData)
        #expect(second.windows.isEmpty)
        #expect(await target.received.count == 1)

        let store = try StateStore(path: config.statePath)
        let history = try store.history()
        #expect(history.map(\.result) == [.noData, .newData])
        #expect(history.map(\.trigger) == [[.manual], [.manual]])
        #expect(history.last?.steps == window.steps)
        #expect(try store.outbox(status: .delivered).count == 1)
    }

    @Test func growingFileIsCountedOnceAcrossWindows() async throws {
        let dir = try TempDir()
        let lines = try String(contentsOfFile: Fixture.walk, encoding: .utf8).split(separator: "\n")
        let header = lines[0]
        let source = dir.path("live.csv")
        try Data("\(header)\n".utf8).write(to: URL(fileURLWithPath: source))
        var config = try Fixture.config(dir: dir, source: source, extra: "follow = true")
        let target = ScriptedPublisher()
        config.publishers = [target]
        let fetcher = Fetcher(configuration: config, clock: ContinuousClock())
        // Append the recording in five pieces (the last piece ends mid-line, finished later), fetching after each.
        let body = lines.dropFirst().joined(separator: "\n") + "\n"
        let bytes = Array(body.utf8)
        let cuts = [
            0, bytes.count / 5, 2 * bytes.count / 5 + 7, 3 * bytes.count / 5 + 3, 4 * bytes.count / 5, bytes.count,
        ]
        var total = 0
        for i in 1..<cuts.count {
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: source))
            try handle.seekToEnd()
            try handle.write(contentsOf: Data(bytes[cuts[i - 1]..<cuts[i]]))
            try handle.close()
            // Fetch times track the data: the 60 s recording starts at 10:02:00.
            let report = await fetcher.fetch(
                now: Instant(t0.addingTimeInterval(120 + Double(i) * 12)), trigger: [.manual])
            #expect(report.result != .failed, "\(report.line)")
            total += report.postedSteps
        }
        // Long after the walk: whatever was still pending is now settled.
        let last = await fetcher.fetch(now: Instant(t0.addingTimeInterval(900)), trigger: [.manual])
        total += last.postedSteps
        let whole = try RecordingCounter.count(path: Fixture.walk).steps
        #expect(total == whole)
        // Windows are contiguous: each starts where the previous ended.
        let posts = await target.received
        for (a, b) in zip(posts, posts.dropFirst()) { #expect(a.window.end == b.window.start) }
        let store = try StateStore(path: config.statePath)
        #expect(try store.steps(in: .sinceEpoch) == whole)
    }

    /// Samples that arrive after the window covering their time was posted: a fetch 70 s after the first half of a
    /// walk ends that window (the stream looked stopped), then the second half arrives. Its steps go into the next
    /// window, reported as late, instead of being stored and never posted.
    @Test func stepsArrivingAfterTheirWindowWasPostedGoIntoTheNextWindow() async throws {
        let dir = try TempDir()
        let lines = try String(contentsOfFile: Fixture.walk, encoding: .utf8).split(separator: "\n")
        let source = try dir.write("live.csv", lines[0..<1501].joined(separator: "\n") + "\n")  // 0-30 s
        var config = try Fixture.config(dir: dir, source: source, extra: "follow = true")
        let target = ScriptedPublisher()
        config.publishers = [target]
        let fetcher = Fetcher(configuration: config, clock: ContinuousClock())
        // The recording starts at 10:02:00; its first half ends at 10:02:30.
        let first = await fetcher.fetch(now: Instant(t0.addingTimeInterval(120 + 30 + 70)), trigger: [.manual])
        #expect(first.result == .newData && first.lateSteps == 0, "\(first.line)")
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: source))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data((lines[1501...].joined(separator: "\n") + "\n").utf8))
        try handle.close()
        // A dry run takes the fetch's own path on a copy of the state: it shows what the fetch will post, late steps
        // included, and leaves the state as it was.
        let dry = await fetcher.fetch(
            now: Instant(t0.addingTimeInterval(120 + 60 + 80)), trigger: [.manual], dryRun: true)
        let dryAgain = await fetcher.fetch(
            now: Instant(t0.addingTimeInterval(120 + 60 + 80)), trigger: [.manual], dryRun: true)
        #expect(dry.lateSteps > 0 && dry.windows == dryAgain.windows)
        let second = await fetcher.fetch(now: Instant(t0.addingTimeInterval(120 + 60 + 80)), trigger: [.manual])
        #expect(second.result == .newData, "\(second.line)")
        #expect(second.windows == dry.windows)
        let store = try StateStore(path: config.statePath)
        let stored = try store.steps(in: .sinceEpoch)
        // Every step of the second half was for time the first window had covered.
        let secondHalf = try store.steps(
            in: TimeWindow(start: Instant(t0.addingTimeInterval(150)), end: .distantFuture))
        #expect(secondHalf > 20 && second.lateSteps == secondHalf && second.windows.first?.lateSteps == secondHalf)
        #expect(first.postedSteps + second.postedSteps == stored)
        #expect(second.logLine(zone: config.composer.timeZone).contains("(\(secondHalf) late)"))
        let history = try store.history(limit: 1)
        #expect(history.first?.lateSteps == secondHalf)
        // Nothing is left over: a later fetch posts nothing.
        let third = await fetcher.fetch(now: Instant(t0.addingTimeInterval(1800)), trigger: [.manual])
        #expect(third.postedSteps == 0 && third.lateSteps == 0)
    }

    /// A text over a target's limit is found when its window closes: kept as failed with the reason, never sent
    /// (no request reaches the target), and said in the fetch's warnings; a target that takes it posts it.
    @Test func aTextOverATargetsLimitIsFoundWhenTheWindowCloses() async throws {
        let dir = try TempDir()
        let long = String(repeating: "歩", count: 150)  // 300 weighted characters on X's scale
        var config = try AgentConfiguration.parse(
            TestBudget.applied(
                to: """
                    [source]
                    path = "\(Fixture.walk)"
                    start = "2026-11-21T10:02:00+09:00"
                    [text]
                    time_zone = "Asia/Tokyo"
                    template = "{steps} \(long)"
                    [state]
                    path = "state.sqlite"
                    [[publish]]
                    kind = "webhook"
                    name = "x-sized"
                    url_env = "HOOK"
                    length_rule = "x"
                    """), file: dir.path("config.toml"), environment: ["HOOK": "http://127.0.0.1:9/never"])
        let taker = ScriptedPublisher()
        config.publishers.append(taker)
        let report = await Fetcher(configuration: config, clock: ContinuousClock()).fetch(
            now: Instant(Timestamps.parse("2026-11-21T10:10:00+09:00")!), trigger: [.manual])
        #expect(report.result == .newData, "\(report.line)")
        #expect(report.warnings.contains { $0.hasPrefix("x-sized would refuse the text of the window ending ") })
        #expect(report.deliveries.map(\.target) == [taker.name], "no attempt on the target that would refuse it")
        let store = try StateStore(path: config.statePath)
        let failed = try store.outbox(status: .failed)
        #expect(failed.map(\.target) == ["x-sized"])
        #expect(failed.first?.lastError?.hasPrefix("refused when the window closed: text too long for X") == true)
    }

    @Test func failedDeliveryStaysInTheOutboxAndGoesFirstNextTime() async throws {
        let dir = try TempDir()
        let endpoint = try RecordingEndpoint(script: [.status(503)])
        let url = try await endpoint.start()
        var config = try Fixture.config(dir: dir)
        config.publishers = [WebhookPublisher(name: "loopback", url: url, bodyTemplate: try WebhookBodyTemplate())]
        let fetcher = Fetcher(configuration: config, clock: ContinuousClock())

        let first = await fetcher.fetch(now: Instant(t0.addingTimeInterval(600)), trigger: [.manual])
        #expect(first.result == .failed)
        #expect(first.line.hasPrefix("Failed: loopback: HTTP 503"))
        #expect(first.windows.count == 1)
        let store = try StateStore(path: config.statePath)
        #expect(try store.outbox(status: .pending).map(\.attempts) == [1])

        let second = await fetcher.fetch(now: Instant(t0.addingTimeInterval(1200)), trigger: [.manual])
        #expect(second.result == .newData, "\(second.line)")
        #expect(second.windows.isEmpty)
        #expect(second.deliveries.map(\.outcome) == [.delivered])
        let posts = await endpoint.posts
        #expect(posts.map(\.text) == [first.windows[0].text])
        #expect(try store.outbox(status: .delivered).first?.remoteID == "1")
        await endpoint.stop()
    }

    @Test func lostResponseIsResentWithTheSameKeyAndNotDuplicated() async throws {
        let dir = try TempDir()
        let endpoint = try RecordingEndpoint(script: [.actThenFail])
        let url = try await endpoint.start()
        var config = try Fixture.config(dir: dir)
        config.publishers = [WebhookPublisher(name: "loopback", url: url, bodyTemplate: try WebhookBodyTemplate())]
        let fetcher = Fetcher(configuration: config, clock: ContinuousClock())
        #expect(await fetcher.fetch(now: Instant(t0.addingTimeInterval(600)), trigger: [.manual]).result == .failed)
        let retry = await fetcher.fetch(now: Instant(t0.addingTimeInterval(1200)), trigger: [.manual])
        #expect(retry.deliveries.map(\.outcome) == [.alreadyDelivered])
        #expect(retry.result == .newData)
        #expect(await endpoint.requests == 2)
        #expect(await endpoint.posts.count == 1)
        await endpoint.stop()
    }

    @Test func hungEndpointEndsTheFetchAtItsDeadline() async throws {
        let dir = try TempDir()
        let endpoint = try RecordingEndpoint(script: [.hang])
        let url = try await endpoint.start()
        var config = try Fixture.config(dir: dir, schedule: "deadline = \"1s\"")
        config.publishers = [WebhookPublisher(name: "loopback", url: url, bodyTemplate: try WebhookBodyTemplate())]
        // The budget runs on a test clock, moved past it once the request is in: a real hung socket, no real wait.
        let clock = TestClock<Duration>()
        let fetcher = Fetcher(configuration: config, clock: clock)
        async let fetched = fetcher.fetch(now: Instant(t0.addingTimeInterval(600)), trigger: [.manual])
        await endpoint.received()
        await clock.advance(by: .seconds(2))
        let report = await fetched
        #expect(report.result == .failed)
        // Either the fetch's budget ("deadline passed") or the request's own deadline ("no answer from loopback before
        // the deadline") ends it first, depending on which task runs first once the clock has moved: both are that
        // deadline.
        #expect(report.reason?.contains("deadline") == true, "\(report.line)")
        let store = try StateStore(path: config.statePath)
        #expect(try store.outbox(status: .pending).count == 1)
        #expect(try store.history().first?.result == .failed)
        await endpoint.stop()
    }

    @Test func permanentFailureIsReportedAndNotRetried() async throws {
        let dir = try TempDir()
        var config = try Fixture.config(dir: dir)
        let target = ScriptedPublisher(outcomes: [.permanent(reason: "HTTP 401: bad token")])
        config.publishers = [target]
        let fetcher = Fetcher(configuration: config, clock: ContinuousClock())
        let first = await fetcher.fetch(now: Instant(t0.addingTimeInterval(600)), trigger: [.manual])
        #expect(first.line == "Failed: test: HTTP 401: bad token")
        let second = await fetcher.fetch(now: Instant(t0.addingTimeInterval(1200)), trigger: [.manual])
        #expect(second.result == .noData)
        #expect(await target.received.count == 1)
        #expect(try StateStore(path: config.statePath).outbox(status: .failed).count == 1)
    }

    @Test func dryRunChangesNothing() async throws {
        let dir = try TempDir()
        var config = try Fixture.config(dir: dir)
        let target = ScriptedPublisher()
        config.publishers = [target]
        let fetcher = Fetcher(configuration: config, clock: ContinuousClock())
        let dry = await fetcher.fetch(now: Instant(t0.addingTimeInterval(600)), trigger: [.manual], dryRun: true)
        #expect(dry.result == .newData)
        #expect(dry.deliveries.map(\.outcome) == [.dryRun])
        #expect(!FileManager.default.fileExists(atPath: config.statePath))
        #expect(await target.received.isEmpty)

        // With a database: a dry run after a real fetch leaves every table as it was.
        _ = await fetcher.fetch(now: Instant(t0.addingTimeInterval(600)), trigger: [.manual])
        let before = try snapshot(config.statePath)
        let again = await fetcher.fetch(now: Instant(t0.addingTimeInterval(1200)), trigger: [.manual], dryRun: true)
        #expect(again.result == .noData)
        #expect(try StateStore(path: config.statePath).history().count == 1)
        #expect(try snapshot(config.statePath) == before)
    }

    @Test func dryRunNeedsNoCredentialsAndNamesTheTargets() async throws {
        let dir = try TempDir()
        let publish = """
            [[publish]]
            kind = "webhook"
            url_env = "MY_HOOK_URL"
            [[publish]]
            kind = "mastodon"
            name = "home"
            base_url = "https://m.example"
            token_file = "absent.token"
            """
        let config = try Fixture.config(dir: dir, publish: publish)
        #expect(config.publishingProblem?.hasPrefix("publish[0].url_env: environment variable MY_HOOK_URL") == true)
        #expect(config.targetsWithoutCredentials == ["webhook", "home"])
        let fetcher = Fetcher(configuration: config, clock: ContinuousClock())
        let dry = await fetcher.fetch(now: Instant(t0.addingTimeInterval(600)), trigger: [.manual], dryRun: true)
        #expect(dry.result == .newData, "\(dry.line)")
        #expect(dry.windows.first?.text.contains("の期間に iPhone 5s を持って ") == true)
        #expect(dry.deliveries.map(\.target) == ["webhook", "home"])
        #expect(dry.deliveries.map(\.outcome) == [.dryRun, .dryRun])
        #expect(dry.warnings.contains { $0.hasPrefix("missing credentials: publish[0].url_env: ") })
        // A real fetch still refuses.
        let real = await fetcher.fetch(now: Instant(t0.addingTimeInterval(600)), trigger: [.manual])
        #expect(real.result == .failed)
        #expect(real.failureKind == .configuration)
    }

    /// Every row of every table, as text.
    func snapshot(_ path: String) throws -> [String] {
        let q = try DatabaseQueue(path: path)
        return try q.read { db in
            var out: [String] = []
            for table in try String.fetchAll(
                db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
            {
                out += try Row.fetchAll(db, sql: "SELECT * FROM \(table)").map { "\(table): \($0)" }
            }
            return out
        }
    }

    @Test func lockedDatabaseFailsClearlyAndLosesNothing() async throws {
        let dir = try TempDir()
        // The fetch after the lock has a long budget, so that a loaded machine cannot fail it on time alone.
        var config = try Fixture.config(dir: dir, schedule: "deadline = \"30s\"")
        let target = ScriptedPublisher()
        config.publishers = [target]
        _ = try StateStore(path: config.statePath)  // create it
        var holderConfig = Configuration()
        holderConfig.allowsUnsafeTransactions = true  // keep the lock across accesses, as another process would
        let holder = try DatabaseQueue(path: config.statePath, configuration: holderConfig)
        try await holder.writeWithoutTransaction { db in try db.execute(sql: "BEGIN EXCLUSIVE") }
        // The locked fetch waits for the database for half its budget: 0.1 s.
        var impatient = config
        impatient.schedule.deadline = 0.2
        let locked = await Fetcher(configuration: impatient, clock: ContinuousClock()).fetch(
            now: Instant(t0.addingTimeInterval(600)), trigger: [.manual])
        #expect(locked.result == .failed)
        #expect(locked.reason?.contains("is locked") == true, "\(locked.line)")
        #expect(await target.received.isEmpty)
        try await holder.writeWithoutTransaction { db in try db.execute(sql: "ROLLBACK") }

        let after = await Fetcher(configuration: config, clock: ContinuousClock()).fetch(
            now: Instant(t0.addingTimeInterval(1200)), trigger: [.manual])
        #expect(after.result == .newData)
        // The window starts at the walk, so nothing was lost while the database was locked.
        #expect(after.windows.first?.text.hasPrefix("11/21 10:02:00 〜 11/21 10:20:00") == true)
        #expect(abs((after.windows.first?.steps ?? 0) - 109) <= 11)
    }

    @Test func corruptDatabaseFailsClearly() async throws {
        let dir = try TempDir()
        var config = try Fixture.config(dir: dir)
        config.publishers = [ScriptedPublisher()]
        try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: config.statePath))
        let report = await Fetcher(configuration: config, clock: ContinuousClock()).fetch(
            now: Instant(t0.addingTimeInterval(600)), trigger: [.manual])
        #expect(report.result == .failed)
        #expect(report.reason?.contains("corrupt or not a SQLite database") == true, "\(report.line)")
    }

    @Test func missingSourceFailsButStillDeliversPendingPosts() async throws {
        let dir = try TempDir()
        let copy = dir.path("walk.csv")
        try FileManager.default.copyItem(atPath: Fixture.walk, toPath: copy)
        var config = try Fixture.config(dir: dir, source: copy)
        let target = ScriptedPublisher(outcomes: [.retryable(reason: "HTTP 503", retryAfter: 60)])
        config.publishers = [target]
        let fetcher = Fetcher(configuration: config, clock: ContinuousClock())
        #expect(await fetcher.fetch(now: Instant(t0.addingTimeInterval(600)), trigger: [.manual]).result == .failed)
        try FileManager.default.removeItem(atPath: copy)
        let report = await fetcher.fetch(now: Instant(t0.addingTimeInterval(1200)), trigger: [.manual])
        #expect(report.result == .failed)
        #expect(report.reason?.hasPrefix("ingestion: line 2: source.path: \(copy): ") == true, "\(report.line)")
        #expect(report.deliveries.map(\.outcome) == [.delivered])
    }

    @Test func retryAfterIsHonoured() async throws {
        let dir = try TempDir()
        var config = try Fixture.config(dir: dir)
        let target = ScriptedPublisher(outcomes: [.retryable(reason: "HTTP 429", retryAfter: 900)])
        config.publishers = [target]
        let fetcher = Fetcher(configuration: config, clock: ContinuousClock())
        _ = await fetcher.fetch(now: Instant(t0.addingTimeInterval(600)), trigger: [.manual])
        let early = await fetcher.fetch(now: Instant(t0.addingTimeInterval(1200)), trigger: [.manual])
        #expect(early.result == .failed)
        #expect(early.deliveries.map(\.outcome) == [.deferred])
        #expect(await target.received.count == 1)
        let late = await fetcher.fetch(now: Instant(t0.addingTimeInterval(1600)), trigger: [.manual])
        #expect(late.result == .newData)
        #expect(await target.received.count == 2)
    }

    @Test func alignedHourWindowsAndPostZero() async throws {
        let dir = try TempDir()
        var config = try Fixture.config(dir: dir, schedule: "window = \"1h\"\npost_zero = true")
        let target = ScriptedPublisher()
        config.publishers = [target]
        let fetcher = Fetcher(configuration: config, clock: ContinuousClock())
        // 10:30: the 10:00-11:00 hour is not over yet.
        #expect(await fetcher.fetch(now: Instant(t0.addingTimeInterval(1800)), trigger: [.manual]).result == .noData)
        // 12:05: two whole hours are over: the walk's hour and an empty one (posted because post_zero).
        let report = await fetcher.fetch(now: Instant(t0.addingTimeInterval(7500)), trigger: [.manual])
        #expect(report.result == .newData)
        #expect(
            report.windows.map { $0.text.prefix(31) } == [
                "11/21 10:00:00 〜 11/21 11:00:00", "11/21 11:00:00 〜 11/21 12:00:00",
            ])
        #expect(report.windows.last?.steps == 0)
        #expect(abs((report.windows.first?.steps ?? 0) - 109) <= 11)
    }

    @Test func aFetchWaitsForTheStateWithinItsBudgetThenFailsBusy() async throws {
        let dir = try TempDir()
        // The slow fetch's budget is long: on a loaded machine a short one could end it before the second fetch
        // tries the lock. Stopping the endpoint ends it.
        var config = try Fixture.config(dir: dir, schedule: "deadline = \"60s\"")
        let endpoint = try RecordingEndpoint(script: [.hang])
        let url = try await endpoint.start()
        config.publishers = [WebhookPublisher(name: "loopback", url: url, bodyTemplate: try WebhookBodyTemplate())]
        let fetcher = Fetcher(configuration: config, clock: ContinuousClock())
        async let slow = fetcher.fetch(now: Instant(t0.addingTimeInterval(600)), trigger: [.manual])
        // Wait until the slow fetch is talking to the endpoint, then try a second one.
        await endpoint.received()
        // A one-shot fetch with a shorter budget waits for the lock, then gives up: Failed: busy (temporary).
        var impatient = config
        impatient.schedule.deadline = 0.3
        // Its polls for the lock pass the budget without real waiting.
        let impatientFetcher = Fetcher(configuration: impatient, clock: ImmediateClock())
        let second = await impatientFetcher.fetch(now: Instant(t0.addingTimeInterval(600)), trigger: [.manual])
        #expect(
            second.line.hasPrefix("Failed: busy: another fetch (pid \(getpid())) held the state database"),
            "\(second.line)")
        #expect(second.failureKind == .temporary)
        // Stopping the endpoint ends the slow fetch's request; its post stays in the outbox.
        await endpoint.stop()
        #expect(await slow.result == .failed)
        #expect(try StateStore(path: config.statePath).outbox(status: .pending).count == 1)
    }
}
