import Analysis
import Foundation
import Messages
import Publishing
import Store
import WallTime

/// How a window's chart is drawn: `WindowChart.image` in production; a test's renderer can see whether a write waits.
typealias ChartRenderer =
    @Sendable (WindowActivity, MessageComposer, WindowChartOptions) throws(RasterizeError) -> PostImage

extension Fetcher {
    /// Draws the charts that closing asked for, after its commit, so that no write (a phone's push) waits for the
    /// drawing; each is kept with the outbox in a short transaction of its own, and every retry posts those bytes. A
    /// request left by a fetch that died after its commit is drawn here too, before any of its posts is delivered. A
    /// chart that cannot be drawn is a warning, and its window's posts go out as text.
    func drawRequestedCharts(store: StateStore, now: Instant, report: inout FetchReport) {
        let requests: [ChartRequestRecord]
        do { requests = try store.chartRequests() } catch {
            report.warnings.append(
                "reading the charts to draw: " + StateStore.describe(error, path: configuration.statePath))
            return
        }
        for request in requests {
            var chart: OutboxImageRecord?
            do {
                let image = try drawChart(request.inputs)
                chart = OutboxImageRecord(key: request.key, image: image, created: now)
            } catch {
                report.warnings.append("\(error); the window's posts go out without it")
            }
            do { try store.keepRequestedChart(key: request.key, chart: chart) } catch {
                report.warnings.append(
                    "keeping the window's chart (drawn again by the next fetch; its posts to chart targets wait): "
                        + StateStore.describe(error, path: configuration.statePath))
                continue
            }
            if let chart, let i = report.windows.firstIndex(where: { $0.idempotencyKey == request.key }) {
                report.windows[i].imageAlt = chart.alt
            }
        }
    }

    /// The chart of a request's inputs, in the configured style and language.
    func drawChart(_ inputs: Data) throws -> PostImage {
        let activity: WindowActivity
        do { activity = try JSONDecoder().decode(WindowActivity.self, from: inputs) } catch {
            throw ChartRequestError(reason: "the window's chart could not be read back (\(error))")
        }
        return try renderChart(activity, configuration.composer, configuration.chart)
    }
}

/// A chart request whose inputs cannot be read back (a damaged state): its window's posts go out as text.
struct ChartRequestError: Error, CustomStringConvertible {
    var reason: String
    var description: String { reason }
}
