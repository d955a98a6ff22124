import Agent
import Analysis
import Foundation
import Ingestion
import Testing
import WallTime

@Suite(.timeLimit(.minutes(1))) struct WalkTriggerTests {
    let t0 = Fixture.date("2026-11-21T10:00:00+09:00")

    /// The walk, shifted by `offsetMs`, as CSV rows.
    func walkRows(offsetMs: Double) throws -> String {
        let lines = try String(contentsOfFile: Fixture.walk, encoding: .utf8).split(separator: "\n").dropFirst()
        return lines.map { line -> String in
            let fields = line.split(separator: ",")
            let t = (Double(fields[0]) ?? 0) + offsetMs
            return ([String(format: "%.3f", t)] + fields.dropFirst().map(String.init)).joined(separator: ",")
        }.joined(separator: "\n") + "\n"
    }

    @Test func eachEndedWalkAnswersOnce() async throws {
        let dir = try TempDir()
        let live = try dir.write("live.csv", "t_ms,x,y,z\n" + (try walkRows(offsetMs: 0)))
        var config = try Fixture.config(dir: dir, source: live, extra: "follow = true", schedule: "on_walk_end = true")
        config.publishers = [ScriptedPublisher()]
        let fetcher = Fetcher(configuration: config, clock: ContinuousClock())
        // The walk is still going on as far as the data says: nothing ended yet... or only pauses inside it.
        let before = try fetcher.ingestForWalks(now: Instant(t0.addingTimeInterval(200))).get()
        // A second walk five minutes later: the gap ends the first walk.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: live))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(try walkRows(offsetMs: 300_000).utf8))
        try handle.close()
        let after = try fetcher.ingestForWalks(now: Instant(t0.addingTimeInterval(500))).get()
        #expect(after >= 1)
        #expect(try fetcher.ingestForWalks(now: Instant(t0.addingTimeInterval(510))).get() == 0)
        // The walks' steps were stored by these reads and are posted by the next fetch.
        let report = await fetcher.fetch(now: Instant(t0.addingTimeInterval(600)), trigger: [.walk])
        #expect(report.result == .newData)
        let whole = try RecordingCounter.count(path: live, options: .init(start: nil)).steps
        #expect(report.windows.first?.steps == whole, "bouts before: \(before)")
    }

    @Test func schedulerFetchesWhenAWalkEndsAndDebouncesReads() async throws {
        let dir = try TempDir()
        let config = try AgentConfiguration.parse(
            "[source]\npath = \"w.csv\"\nfollow = true\n[schedule]\ninterval = \"1h\"\njitter = \"0s\"\non_walk_end = true\n[state]\npath = \"s.sqlite\"\n",
            file: dir.path("c.toml"), environment: [:])
        let clock = ManualClock(t0)
        let recorder = FetchRecorder()
        let walks = WalkScript([1, 0, 0])
        let scheduler = AgentScheduler(
            configuration: config, clock: clock.wall, random: { 0 }, walkDebounce: 5,
            fetch: { await recorder.fetch($0, $1) },
            ingestForWalks: { _ in .success(await walks.next()) })
        let task = Task { await scheduler.run() }
        await scheduler.waitUntilIdle()
        await scheduler.sourceChanged()
        await scheduler.waitUntilIdle(fetches: 1)
        #expect(await recorder.calls.map(\.trigger) == ["walk"])
        // More data within the debounce period is read only when it has passed, and no walk ended: no fetch.
        await clock.advance(by: 1)
        await scheduler.sourceChanged()
        await scheduler.waitUntilIdle(fetches: 1)
        #expect(await walks.calls == 1)
        #expect(await scheduler.sleepingUntil == t0.addingTimeInterval(5))
        await clock.advance(by: 4)
        await walks.waitForCalls(2)
        await scheduler.waitUntilIdle(fetches: 1)
        #expect(await recorder.calls.count == 1)
        await scheduler.shutdown()
        await task.value
    }

    @Test func watcherSeesWritesToTheSource() async throws {
        let dir = try TempDir()
        let path = try dir.write("live.csv", "t_ms,x,y,z\n")
        let (stream, continuation) = AsyncStream<Void>.makeStream()
        let watcher = try SourceWatcher(path: path) { continuation.yield() }
        defer { watcher.stop() }
        _ = try dir.write("other.csv", "unrelated\n")
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("0,0,0,9.8\n".utf8))
        try handle.close()
        // Bounded: if no event came, the stream ends and the test fails instead of hanging.
        let timeout = Task {
            try await Task.sleep(for: patience)
            continuation.finish()
        }
        var iterator = stream.makeAsyncIterator()
        let first: Void? = await iterator.next()
        timeout.cancel()
        #expect(first != nil)
    }
}

/// Walk counts to hand out, one per read.
actor WalkScript {
    var values: [Int]
    private(set) var calls = 0
    private var waiters: [(calls: Int, continuation: CheckedContinuation<Void, Never>)] = []
    init(_ values: [Int]) { self.values = values }
    func next() -> Int {
        calls += 1
        waiters.removeAll { w in
            guard calls >= w.calls else { return false }
            w.continuation.resume()
            return true
        }
        return values.isEmpty ? 0 : values.removeFirst()
    }
    /// Resumes once the scheduler has read for walks `count` times.
    func waitForCalls(_ count: Int) async {
        if calls >= count { return }
        await withCheckedContinuation { waiters.append((count, $0)) }
    }
}
