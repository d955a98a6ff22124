import Foundation
import Messages
import Publishing
import Store

// Store's window and chart (`ClosedWindow`, `OutboxImageRecord`) as Publishing posts them: Store sits below
// Publishing and knows neither `Post` nor `PostImage`.

extension ClosedWindow {
    /// A window closing now: its key follows from its time (`Post.idempotencyKey`).
    init(closingFrom startNs: Int64, to endNs: Int64, steps: Int, lateSteps: Int, text: String) {
        self.init(
            startNs: startNs, endNs: endNs, steps: steps, lateSteps: lateSteps, text: text,
            idempotencyKey: Post.idempotencyKey(
                windowStart: Timestamps.date(nanoseconds: startNs), windowEnd: Timestamps.date(nanoseconds: endNs)))
    }

    /// The post a target is sent, with the window's kept chart for a target that posts it.
    func post(image: PostImage? = nil) -> Post {
        Post(text: text, idempotencyKey: idempotencyKey, windowStart: start, windowEnd: end, image: image)
    }
}

extension OutboxImageRecord {
    /// The chart drawn for the window of `key`, kept at `createdNs`.
    init(key: String, image: PostImage, createdNs: Int64) {
        self.init(
            key: key, png: image.png, alt: image.alt, width: image.width, height: image.height, createdNs: createdNs)
    }

    var image: PostImage { PostImage(png: png, alt: alt, width: width, height: height) }
}

extension StateStore {
    /// The chart kept for the window of `idempotencyKey`; nil when none was drawn (no target wanted one then, or it
    /// could not be drawn).
    public func outboxImage(idempotencyKey: String) throws -> PostImage? {
        try outboxChart(idempotencyKey: idempotencyKey)?.image
    }
}

extension FetchHistoryRecord {
    /// The history row of the fetch `report` tells of, which began at `startedNs` and ended at `endedNs`.
    init(_ report: FetchReport, startedNs: Int64, endedNs: Int64) {
        self.init(
            startedNs: startedNs, endedNs: endedNs, trigger: report.trigger,
            windowStartNs: report.windowStart.map(Timestamps.nanoseconds),
            windowEndNs: report.windowEnd.map(Timestamps.nanoseconds), steps: report.steps, result: report.result,
            error: report.reason, lateSteps: report.lateSteps, warnings: report.warnings)
    }
}
