import SensorInput

/// Malformed lines of a source that ingestion skipped and no fetch has reported yet: how many, and the first few
/// described (`file:line: what`). Kept with the source's saved position, so that lines skipped by a walk-trigger read
/// or by an earlier slice of a backlog are reported by the fetch that closes the window, once.
struct SkippedLines: Codable, Sendable, Equatable {
    var count = 0
    var described: [String] = []

    var isEmpty: Bool { count == 0 }

    /// Adds what one read skipped, describing at most as many lines in all as one read does.
    mutating func add(_ summary: ReadSummary) {
        count += summary.skippedLines
        let room = max(0, ReadOptions().maxReportedIssues - described.count)
        described += summary.issues.prefix(room).map(\.description)
    }

    /// The fetch's warnings about them, in `count`'s words.
    func warnings(file: String) -> [String] {
        ReadSummary.skippedLineNotes(file: file, skipped: count, described: described)
    }
}
