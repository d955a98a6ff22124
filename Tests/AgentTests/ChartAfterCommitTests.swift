import Foundation
import Messages
import Publishing
import Store
import Synchronization
import Testing
import WallTime

@testable import Agent
@testable import Analysis

/// A window's chart is drawn after the commit that closes its window, so that no write waits for the drawing (issue
/// #46), and the posts stay exactly once: never sent without their chart, never without their window's.
@Suite(.timeLimit(.minutes(1))) struct ChartAfterCommitTests {
    let t0 = Fixture.date("2026-11-21T10:00:00+09:00")

    /// A state with a 30-minute step log and one target that posts the chart.
    func chartConfig(_ dir: TempDir, target: ScriptedPublisher) throws -> AgentConfiguration {
        var config = try Fixture.config(dir: dir, source: try dir.write("fit.json", MinuteReadings.googleFit(0..<30)))
        config.composer = try MessageComposer(template: try Template(Template.english), timeZone: "Asia/Tokyo")
        config.publishers = [target]
        return config
    }

    /// What closing reads for the chart of `window`, read again from the committed state: the old code drew this
    /// very activity inside the closing transaction.
    func committedActivity(_ fetcher: Fetcher, _ window: ClosedWindow) throws -> WindowActivity? {
        try StateStore(path: fetcher.configuration.statePath).read { tx in
            try fetcher.composeWindow(tx, window.span, steps: window.steps).chart
        }
    }

    @Test func theChartIsDrawnWhileAnotherConnectionCanWrite() async throws {
        let dir = try TempDir()
        let target = ScriptedPublisher(name: "pictures", image: ImageOption(chart: true))
        let config = try chartConfig(dir, target: target)
        let writes = Mutex<[Bool]>([])
        var fetcher = Fetcher(configuration: config, clock: ContinuousClock())
        fetcher.renderChart = { activity, composer, options throws(RasterizeError) in
            // A push's commit, on a connection of its own that does not wait: refused while the fetch holds the
            // write transaction.
            let other = try? StateStore(path: config.statePath, busyTimeout: 0)
            let wrote = (try? other?.write { tx in try tx.setPostedUntilIfUnset(.epoch) }) != nil
            writes.withLock { $0.append(wrote) }
            return try WindowChart.image(activity, composer: composer, options: options)
        }
        let report = await fetcher.fetch(now: Instant(t0.addingTimeInterval(2400)), trigger: [.manual])
        #expect(report.result == .newData, "\(report.line)")
        #expect(writes.withLock { $0 } == [true], "the renderer ran inside the write transaction")
        let posted = await target.received
        let image = try #require(posted.first?.image, "posted without its chart")
        #expect(posted.count == 1)
        #expect(report.windows.first?.imageAlt == image.alt)
    }

    @Test func thePostedChartIsTheOneTheClosingTransactionWouldHaveDrawn() async throws {
        let dir = try TempDir()
        let target = ScriptedPublisher(name: "pictures", image: ImageOption(chart: true))
        let config = try chartConfig(dir, target: target)
        let fetcher = Fetcher(configuration: config, clock: ContinuousClock())
        let report = await fetcher.fetch(now: Instant(t0.addingTimeInterval(2400)), trigger: [.manual])
        let window = try #require(report.windows.first, "\(report.line)")
        let activity = try #require(try committedActivity(fetcher, window))
        let expected = try WindowChart.image(activity, composer: config.composer, options: config.chart)
        let image = try #require(await target.received.first?.image)
        #expect(image.png == expected.png && image.alt == expected.alt)
        #expect(try StateStore(path: config.statePath).chartRequests().isEmpty)
    }

    /// A fetch that dies after its commit, before drawing, leaves the request: its post is held back from the chart
    /// target, and the next fetch draws the chart and posts it once.
    @Test func aRequestLeftByADeadFetchIsDrawnBeforeItsPostGoesOut() async throws {
        let dir = try TempDir()
        let target = ScriptedPublisher(name: "pictures", image: ImageOption(chart: true))
        let config = try chartConfig(dir, target: target)
        let fetcher = Fetcher(configuration: config, clock: ContinuousClock())
        let store = try StateStore(path: config.statePath)
        let budget = Deadline(in: .seconds(600), clock: ContinuousClock())
        let now = t0.addingTimeInterval(2400)
        var died = FetchReport(result: .noData, trigger: [.manual], now: Instant(now), dryRun: false)
        try await fetcher.ingestAndClose(
            store: store, now: Instant(now), budget: budget, report: &died)
        let window = try #require(died.windows.first)
        #expect(try store.chartRequests().map(\.key) == [window.idempotencyKey])
        #expect(try store.outboxImage(idempotencyKey: window.idempotencyKey) == nil)

        var failures: [(kind: FailureKind, reason: String)] = []
        _ = await fetcher.deliverPending(
            store: store, now: Instant(now), budget: budget, report: &died, failures: &failures)
        #expect(died.deliveries.map(\.outcome) == [.deferred])
        #expect(died.deliveries.first?.reason == "reading the window's chart: it is not drawn yet")
        #expect(await target.received.isEmpty, "sent without its chart")

        let next = await fetcher.fetch(now: Instant(now.addingTimeInterval(60)), trigger: [.manual])
        #expect(next.deliveries.map(\.outcome) == [.delivered], "\(next.line)")
        let posted = await target.received
        let activity = try #require(try committedActivity(fetcher, window))
        let expected = try WindowChart.image(activity, composer: config.composer, options: config.chart)
        #expect(posted.map(\.idempotencyKey) == [window.idempotencyKey] && posted.first?.image == expected)
        #expect(try store.chartRequests().isEmpty)
    }

    /// A chart that cannot be drawn is said, and its window's posts go out as text, as before.
    @Test func aChartThatCannotBeDrawnLeavesTheTextToGoOut() async throws {
        let dir = try TempDir()
        let target = ScriptedPublisher(name: "pictures", image: ImageOption(chart: true))
        let config = try chartConfig(dir, target: target)
        var fetcher = Fetcher(configuration: config, clock: ContinuousClock())
        fetcher.renderChart = { _, _, _ throws(RasterizeError) in throw RasterizeError(reason: "no fonts") }
        let report = await fetcher.fetch(now: Instant(t0.addingTimeInterval(2400)), trigger: [.manual])
        #expect(report.warnings.contains("cannot draw the chart: no fonts; the window's posts go out without it"))
        #expect(report.deliveries.map(\.outcome) == [.delivered], "\(report.line)")
        let posted = await target.received
        #expect(posted.count == 1 && posted.first?.image == nil)
        #expect(report.windows.first?.imageAlt == nil)
        #expect(try StateStore(path: config.statePath).chartRequests().isEmpty)
    }
}
