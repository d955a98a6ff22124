import Foundation
import GRDB
import Messages
import SensorInput
import StepDetection
import TestSupport
import Testing

@testable import Agent

/// A stream's running totals (Sensor Logger's pedometer) count their differences in time order, however the messages
/// arrive: out of order, twice, or a total before one already stored.
@Suite struct ReceivedTotalTests {
    let now: Int64 = 1_763_100_000_000_000_000
    let t0: Int64 = 1_763_000_000_000_000_000

    /// Pedometer totals at `t0 + seconds`, one payload.
    func totals(_ points: [(seconds: Int64, total: Int)], session: String = "s1") -> Payload {
        Payload(
            app: .sensorLogger,
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

    @Test func aTotalSentAgainChangesNothing() throws {
        let dir = try TempDir()
        let store = try StateStore(path: dir.path("state.sqlite"))
        #expect(try ReceivedCounting.push(totals([(10, 4), (20, 15)]), to: store, nowNs: now) == 11)
        #expect(try ReceivedCounting.push(totals([(30, 27)]), to: store, nowNs: now) == 23)
        // The message with 20 s again, after 30 s was counted: a duplicate, not a reset nor a difference of 0.
        _ = try store.commit(totals([(20, 15)]), nowNs: now)
        let again = try store.commit(totals([(10, 4), (20, 15)]), nowNs: now)
        #expect(again.duplicates == 2 && again.readings == 0)
        #expect(try ReceivedCounting.push(totals([]), to: store, nowNs: now) == 23)
    }

    @Test func aDropIsAResetAndEachSessionCountsOnItsOwn() throws {
        let dir = try TempDir()
        let store = try StateStore(path: dir.path("state.sqlite"))
        // From 4: → 15 (+11), a reset to 3 (+3), → 9 (+6); another session from 100 (+30).
        _ = try store.commit(totals([(10, 4), (20, 15), (40, 9)]), nowNs: now)
        _ = try store.commit(totals([(5, 100), (15, 130)], session: "s2"), nowNs: now)
        #expect(try ReceivedCounting.push(totals([(30, 3)]), to: store, nowNs: now) == 11 + 3 + 6 + 30)
    }

    /// The steps between two totals are spread over the time between them, not put at the later one's time.
    @Test func aTotalsStepsFallBetweenItAndTheOneBefore() throws {
        let dir = try TempDir()
        let store = try StateStore(path: dir.path("state.sqlite"))
        _ = try ReceivedCounting.push(totals([(0, 0), (60, 60)]), to: store, nowNs: now)
        #expect(try store.steps(fromNs: t0, toNs: t0 + 30_000_000_000) == 30)
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
        let fetcher = Fetcher(configuration: config)
        let store = try StateStore(path: config.statePath)
        let t0: Int64 = 1_763_000_000_000_000_000
        func samples(_ range: Range<Int64>) -> Payload {
            Payload(
                app: .sensorLogger,
                items: range.map {
                    .sample(
                        device: "Phone", stream: "s1",
                        sample: AccelerationSample(timeNs: t0 + $0 * 10_000_000, x: 0, y: 9.8, z: 0.1))
                })
        }
        func streams() -> [String] { fetcher.sources(store).map(\.name).filter { $0.hasPrefix("receive/") } }
        _ = try store.commit(samples(0..<1000), nowNs: t0 + 10_000_000_000)
        #expect(streams() == ["receive/Phone/s1"])
        // Fed while it is heard, then closed by the first fetch after it went quiet: then no more.
        _ = await fetcher.fetch(now: Timestamps.date(nanoseconds: t0 + 12_000_000_000), trigger: [.manual])
        #expect(streams() == ["receive/Phone/s1"])
        _ = await fetcher.fetch(now: Timestamps.date(nanoseconds: t0 + 600_000_000_000), trigger: [.manual])
        #expect(streams().isEmpty)
        // A message for it later (here, late samples) makes it read again.
        _ = try store.commit(samples(1000..<1100), nowNs: t0 + 700_000_000_000)
        #expect(streams() == ["receive/Phone/s1"])
    }
}
