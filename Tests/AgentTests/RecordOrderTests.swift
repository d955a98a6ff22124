import Agent
import Analysis
import Foundation
import SensorInput
import Store
import TestSupport
import Testing
import WallTime

/// An export of a phone's and a watch's step records in any order (grouped by source, shuffled, in time order), read
/// by the agent in slices (`Fetcher.sliceBytes`; here a few dozen records a slice, the export spanning four days),
/// stores what `count` counts reading it whole: the overlap rule over every record of the file.
@Suite(.timeLimit(.minutes(1))) struct RecordOrderTests {
    let now = Instant(Fixture.date("2026-11-21T10:00:00+09:00"))

    enum Order: String, CaseIterable, CustomTestStringConvertible {
        case grouped, shuffled, time
        var testDescription: String { rawValue }
    }

    enum Format: String, CaseIterable, CustomTestStringConvertible {
        case appleHealth, samsungHealth
        var testDescription: String { rawValue }
        var file: String { self == .appleHealth ? "export.xml" : "steps.csv" }
    }

    /// A walk every 100 minutes from 2026-11-15 00:00 UTC: the phone's record over its 50 s, the watch's over the same
    /// (even walks) or 10 s later (odd walks, overlapping), with a few steps more or fewer than the phone's.
    static func records(walks: Int = 60, changed: Bool = false) -> [(source: String, start: Int, end: Int, steps: Int)]
    {
        let first = 1_794_700_800  // 2026-11-15T00:00:00Z
        var phone: [(String, Int, Int, Int)] = []
        var watch: [(String, Int, Int, Int)] = []
        for i in 0..<walks {
            let start = first + i * 6000
            let steps = 20 + (i * 37) % 90 + (changed && i % 7 == 0 ? 11 : 0)
            phone.append(("iPhone", start, start + 50, steps))
            let shift = i % 2 * 10
            watch.append(("Apple Watch", start + shift, start + shift + 50, steps + i % 5 - 2))
        }
        return phone + watch
    }

    /// `records` in `order` (a fixed shuffle).
    static func ordered<T>(_ records: [T], _ order: Order) -> [T] {
        switch order {
        case .grouped: return records
        case .time:
            let half = records.count / 2
            return (0..<half).flatMap { [records[$0], records[half + $0]] }
        case .shuffled:
            var generator = SeededRandom(seed: 40)
            return records.shuffled(using: &generator)
        }
    }

    static func text(_ records: [(source: String, start: Int, end: Int, steps: Int)], _ format: Format) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        let date = { (s: Int) in formatter.string(from: Date(timeIntervalSince1970: TimeInterval(s))) }
        switch format {
        case .appleHealth:
            return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"en_GB\">\n"
                + records.map { r in
                    " <Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"\(r.source)\" unit=\"count\" "
                        + "startDate=\"\(date(r.start)) +0000\" endDate=\"\(date(r.end)) +0000\" value=\"\(r.steps)\"/>\n"
                }.joined() + "</HealthData>\n"
        case .samsungHealth:
            let p = "com.samsung.health.step_count."
            return "com.samsung.shealth.tracker.pedometer_step_count,6313005,13\n"
                + "\(p)start_time,\(p)end_time,\(p)time_offset,\(p)count,\(p)deviceuuid\n"
                + records.map { r in "\(date(r.start)).000,\(date(r.end)).000,UTC+0900,\(r.steps),\(r.source)\n" }
                .joined()
        }
    }

    /// Writes the export beside its path and renames it over it (how a download lands); returns what `count` counts.
    func write(_ dir: TempDir, _ format: Format, _ order: Order, changed: Bool = false) throws -> Int {
        let records = Self.ordered(Self.records(changed: changed), order)
        let beside = try dir.write(format.file + ".part", Self.text(records, format))
        #expect(rename(beside, dir.path(format.file)) == 0)
        let whole = try RecordingCounter.count(path: dir.path(format.file)).steps
        #expect(whole > 3000 && whole < records.reduce(0) { $0 + $1.steps } * 2 / 3, "phone and watch counted once")
        return whole
    }

    /// A fetcher of the export in `dir`, in slices of 4 KB (about 20 records); with `slicePerFetch`, one slice a
    /// fetch, each from the state alone (a fresh fetcher: an agent killed between slices and started again).
    func fetcher(_ dir: TempDir, _ format: Format, slicePerFetch: Bool = false, file: String? = nil) throws -> Fetcher {
        var config = try Fixture.config(dir: dir, source: dir.path(file ?? format.file))
        if slicePerFetch { config.schedule.deadline = 0.000_001 }
        config.publishers = [ScriptedPublisher()]
        var fetcher = Fetcher(configuration: config, clock: ContinuousClock())
        fetcher.sliceBytes = 4096
        return fetcher
    }

    /// Fetches until no backlog is left (a fresh fetcher each time when `slicePerFetch`); returns the fetches' warnings
    /// and how many there were.
    func fetchAll(_ dir: TempDir, _ format: Format, slicePerFetch: Bool = false, at: Instant) async throws
        -> (warnings: [String], fetches: Int)
    {
        var warnings: [String] = []
        for fetches in 1...100 {
            let report = try await fetcher(dir, format, slicePerFetch: slicePerFetch).fetch(now: at, trigger: [.manual])
            warnings += report.warnings
            if !report.backlog { return (warnings, fetches) }
        }
        Issue.record("no end of the backlog")
        return (warnings, 100)
    }

    func stored(_ dir: TempDir) throws -> Int {
        let days = TimeWindow(
            start: Instant(Fixture.date("2026-11-14T00:00:00Z")), end: Instant(Fixture.date("2026-11-22T00:00:00Z")))
        return try StateStore(path: dir.path("state.sqlite")).steps(in: days)
    }

    func outOfOrder(_ warnings: [String]) -> Bool { warnings.contains { $0.contains("not in time order") } }

    @Test(arguments: Format.allCases, Order.allCases)
    func aSlicedReadInAnyOrderStoresWhatOneReadCounts(format: Format, order: Order) async throws {
        let dir = try TempDir()
        let whole = try write(dir, format, order)
        let (warnings, _) = try await fetchAll(dir, format, at: now)
        let agent = try stored(dir)
        #expect(agent == whole, "stored \(agent), count \(whole): \(warnings)")
        // In time order every slice delivers what it read (no second pass): the cost of slices as before.
        #expect(outOfOrder(warnings) == (order != .time), "\(warnings)")
        // The read that finds the disorder says how far back a record starts, even when it is not the fetch's last.
        let found = warnings.filter { $0.contains("one starts") && $0.contains("h before the end of those") }
        #expect(found.count == (order != .time ? 1 : 0), "\(warnings)")
    }

    /// Killed between any two slices: the next start goes on from the state alone and stores what one read counts.
    @Test(arguments: Format.allCases, Order.allCases)
    func aSlicePerFetchFromTheStateAloneStoresWhatOneReadCounts(format: Format, order: Order) async throws {
        let dir = try TempDir()
        let whole = try write(dir, format, order)
        let (warnings, fetches) = try await fetchAll(dir, format, slicePerFetch: true, at: now)
        #expect(fetches >= 2, "a 4 KB slice a fetch: killed between slices at least once")
        let agent = try stored(dir)
        #expect(agent == whole, "stored \(agent), count \(whole): \(warnings)")
    }

    /// A newer export (values changed, the same order) renamed over the one read, while that one was still being read
    /// in slices and after it was read: each time what the newer one counts; the same export again adds nothing.
    @Test(arguments: Format.allCases, [Order.grouped, .shuffled])
    func aNewerExportOverItStoresWhatItCounts(format: Format, order: Order) async throws {
        let dir = try TempDir()
        _ = try write(dir, format, order)
        _ = try await fetchAll(dir, format, at: now)
        let newer = try write(dir, format, order, changed: true)
        _ = try await fetchAll(dir, format, slicePerFetch: true, at: now + .seconds(600))
        #expect(try stored(dir) == newer)
        _ = try write(dir, format, order)  // the first again, over the newer one, after one slice of it
        let first = try await fetcher(dir, format, slicePerFetch: true).fetch(
            now: now + .seconds(1200), trigger: [.manual])
        #expect(first.backlog)
        _ = try write(dir, format, order, changed: true)
        _ = try await fetchAll(dir, format, slicePerFetch: true, at: now + .seconds(1800))
        #expect(try stored(dir) == newer)
        _ = try write(dir, format, order, changed: true)
        _ = try await fetchAll(dir, format, at: now + .seconds(2400))
        #expect(try stored(dir) == newer)
    }
}
