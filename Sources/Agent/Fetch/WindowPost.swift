import Foundation
import Messages
import Publishing
import Store
import WallTime

// Store's window and chart (`ClosedWindow`, `OutboxImageRecord`) as Publishing posts them: Store sits below
// Publishing and knows neither `Post` nor `PostImage`.

extension ClosedWindow {
    /// A window closing now: its key follows from its time (`Post.idempotencyKey`).
    init(closing span: TimeWindow, steps: Int, lateSteps: Int, text: String) {
        self.init(
            span: span, steps: steps, lateSteps: lateSteps, text: text, idempotencyKey: Post.idempotencyKey(for: span))
    }

    /// The post a target is sent, with the window's kept chart for a target that posts it.
    func post(image: PostImage? = nil) -> Post {
        Post(text: text, idempotencyKey: idempotencyKey, window: span, image: image)
    }
}

extension OutboxImageRecord {
    /// The chart drawn for the window of `key`, kept at `created`.
    init(key: String, image: PostImage, created: Instant) {
        self.init(key: key, png: image.png, alt: image.alt, width: image.width, height: image.height, created: created)
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
    /// The history row of the fetch `report` tells of, which began at `started` and ended at `ended`.
    init(_ report: FetchReport, started: Instant, ended: Instant) {
        self.init(
            started: started, ended: ended, trigger: report.trigger, window: report.window, steps: report.steps,
            result: report.result,
            error: report.reason, lateSteps: report.lateSteps, warnings: report.warnings)
    }
}
