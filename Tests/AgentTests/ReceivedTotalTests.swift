import Foundation
import GRDB
import Messages
import SensorInput
import StepDetection
import TestSupport
import Testing
import WallTime

@testable import Agent
@testable import Store

/// A stream's running totals (Sensor Logger's pedometer) count their differences in time order, however the messages
/// arrive: out of order, twice, or a total before one already stored.
@Suite struct ReceivedTotalTests {
    let now: Int64 = 1_763_100_000_000_000_000
    let t0: Int64 = 1_763_000_000_000_000_000

    /// Pedometer totals at `t0 + seconds`, one payload.
    func totals(_ points: [(seconds: Int64, total: Int)], session: String = "s1") -> Payload {
        Payload(
            format: "sensor-logger",
            items: points.map {
                .runningTotal(
                    device: "Phone", stream: session, timeNs: t0 + $0.seconds * 1_000_000_000, total: $0.total)
            })
    }

    @Test func totalsCountTheirDifferencesInTimeOrderHoweverTheyArrive() throws {
        let points: [(seconds: Int64, total: Int)] = [(10, 4), (20, 15), (30, 27), (40, 27), (50, 41)]
        let orders: [[Int]] = [[0, 1, 2, 3, 4], [4, 3, 2, 1, 0], [0, 2, 4, 1, 3], [2, 0, 4, 3, 1]]
        for order in orders {
            let dir = try TempDir()
            let store = try StateStore(path: dir.path("state.sqlite"))
            var counted = 0
            for i in order { counted = try ReceivedCounting.push(totals([points[i]]), to: store, nowNs: now) }
            // Counting starts at the first total in time.
            #expect(counted == 41 - 4, "arrival order \(order)")
        }
    }

    /// Every order of `points`, each total in its own payload.
    func orders(_ count: Int) -> [[Int]] {
        guard count > 1 else { return [[0]] }
        return orders(count - 1).flatMap { order in
            (0...order.count).map { i in
                var o = order
                o.insert(count - 1, at: i)
                return o
            }
        }
    }

    /// What the step log file reader counts for the same totals, one line each in time order: the rule both share.
    func fileCount(_ points: [(seconds: Int64, total: Int)]) throws -> Int {
        let dir = try TempDir()
        let lines = points.map { "{\"ts\": \(t0 / 1_000_000_000 + $0.seconds), \"total\": \($0.total)}\n" }
        let path = try dir.write("steps.jsonl", lines.joined())
        var steps = 0
        _ = try AnyInput.read(path: path) { if case .reading(let r) = $0 { steps += r.steps } }
        return steps
    }

    /// input-formats.md: "clamp implausible jumps (> ~5 steps/s sustained) as glitches". A misread total (65535) pushed
    /// by a script is not counted, and the total after it counts from the one before it, as the file reader does; a
    /// total before a glitch that arrives later makes the glitch's successors glitches too. In every arrival order.
    @Test func aCounterGlitchIsNotCountedInAnyArrivalOrder() throws {
        let cases: [(points: [(seconds: Int64, total: Int)], counted: Int)] = [
            // 65535 is 65435 in 60 s; 200 is 100 after 100 in 120 s, 260 is 60 more.
            ([(0, 100), (60, 65535), (120, 200), (180, 260)], 160),
            // From 0, 5000 in 10 s is a glitch, and so are 5050 and 5100 after it (from 0 in 20 and 30 s).
            ([(0, 0), (10, 5000), (20, 5050), (30, 5100)], 0),
            // A reset is not a glitch: 40 after 3000 is 40 from 0; 900 in 100 s after it is, and 100 is 60 after 40.
            ([(0, 2900), (60, 3000), (120, 40), (220, 940), (320, 100)], 100 + 40 + 60),
        ]
        for (points, expected) in cases {
            #expect(try fileCount(points) == expected, "file reader, \(points)")
            for order in orders(points.count) {
                let dir = try TempDir()
                let store = try StateStore(path: dir.path("state.sqlite"))
                var counted = 0
                for i in order { counted = try ReceivedCounting.push(totals([points[i]]), to: store, nowNs: now) }
                #expect(counted == expected, "\(points) in arrival order \(order)")
            }
        }
    }

    @Test func aTotalSentAgainChangesNothing() throws {
        let dir = try TempDir()
        let store = try StateStore(path: dir.path("state.sqlite"))
        #expect(try ReceivedCounting.push(totals([(10, 4), (20, 15)]), to: store, nowNs: now) == 11)
        #expect(try ReceivedCounting.push(totals([(30, 27)]), to: store, nowNs: now) == 23)
        // The message with 20 s again, after 30 s was counted: a duplicate, not a reset nor a difference of 0.
        _ = try store.commit(totals([(20, 15)]), now: Instant(nanosecondsSinceEpoch: now))
        let again = try store.commit(totals([(10, 4), (20, 15)]), now: Instant(nanosecondsSinceEpoch: now))
        #expect(again.duplicates == 2 && again.readings == 0)
        #expect(try ReceivedCounting.push(totals([]), to: store, nowNs: now) == 23)
    }

    @Test func aDropIsAResetAndEachSessionCountsOnItsOwn() throws {
        let dir = try TempDir()
        let store = try StateStore(path: dir.path("state.sqlite"))
        // From 4: → 15 (+11), a reset to 3 (+3), → 9 (+6); another session from 100 (+30).
        _ = try store.commit(totals([(10, 4), (20, 15), (40, 9)]), now: Instant(nanosecondsSinceEpoch: now))
        _ = try store.commit(totals([(5, 100), (15, 130)], session: "s2"), now: Instant(nanosecondsSinceEpoch: now))
        #expect(try ReceivedCounting.push(totals([(30, 3)]), to: store, nowNs: now) == 11 + 3 + 6 + 30)
    }

    /// The steps between two totals are spread over the time between them, not put at the later one's time.
    @Test func aTotalsStepsFallBetweenItAndTheOneBefore() throws {
        let dir = try TempDir()
        let store = try StateStore(path: dir.path("state.sqlite"))
        _ = try ReceivedCounting.push(totals([(0, 0), (60, 60)]), to: store, nowNs: now)
        #expect(try store.steps(in: TimeWindow(fromNs: t0, toNs: t0 + 30_000_000_000)) == 30)
    }
}

/// A sample stream (a Sensor Logger session) is read by every fetch while it has work, and left alone once its walk is
/// closed, so a fetch's work does not grow with every session ever recorded.
@Suite struct ActiveStreamTests {
    @Test func aStreamIsReadUntilItsWalkIsClosedAndAgainWhenItIsHeard() async throws {
        let dir = try TempDir()
        var config = try AgentConfiguration.parse(
            TestBudget.applied(
                to: """
                    [receive]
                    listen = "127.0.0.1:8788"
                    token_env = "RECEIVE_TOKEN"
                    [text]
                    time_zone = "Asia/Tokyo"
                    [state]
                    path = "state.sqlite"
                    """), file: dir.path("config.toml"), environment: ["RECEIVE_TOKEN": "t"])
        config.publishers = [ScriptedPublisher()]
        let fetcher = Fetcher(configuration: config, clock: ContinuousClock())
        let store = try StateStore(path: config.statePath)
        let t0: Int64 = 1_763_000_000_000_000_000
        func samples(_ range: Range<Int64>) -> Payload {
            Payload(
                format: "sensor-logger",
                items: range.map {
                    .sample(
                        device: "Phone", stream: "s1",
                        sample: AccelerationSample(
                            time: Instant(nanosecondsSinceEpoch: t0 + $0 * 10_000_000), x: 0, y: 9.8, z: 0.1))
                })
        }
        func streams() -> [String] { fetcher.sources(store).map(\.name).filter { $0.hasPrefix("receive/") } }
        _ = try store.commit(samples(0..<1000), now: Instant(nanosecondsSinceEpoch: t0 + 10_000_000_000))
        #expect(streams() == ["receive/Phone/s1"])
        // Fed while it is heard, then closed by the first fetch after it went quiet: then no more.
        _ = await fetcher.fetch(now: Instant(Timestamps.date(nanoseconds: t0 + 12_000_000_000)), trigger: [.manual])
        #expect(streams() == ["receive/Phone/s1"])
        _ = await fetcher.fetch(now: Instant(Timestamps.date(nanoseconds: t0 + 600_000_000_000)), trigger: [.manual])
        #expect(streams().isEmpty)
        // A message for it later (here, late samples) makes it read again.
        _ = try store.commit(samples(1000..<1100), now: Instant(nanosecondsSinceEpoch: t0 + 700_000_000_000))
        #expect(streams() == ["receive/Phone/s1"])
    }
}
