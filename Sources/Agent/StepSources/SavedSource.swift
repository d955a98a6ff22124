import Foundation
import Messages
import SensorInput
import StepDetection
import Store
import WallTime

/// Where a source's reading stopped, with its detector: its row in the state (`SourceCursorRecord`), its JSON columns
/// decoded one by one, so that a column written by another version (or edited) loses only itself.
struct SavedSource {
    var cursor: SourceCursor?
    var detector: StepDetector?
    var lastSample: Instant?
    /// The end of the latest step reading counted (step logs).
    var lastReadingEnd: Instant?
    /// For a source without a reading ledger: readings ending at or before this are not counted, set while it is
    /// read again from its start, until that reading reaches the end of the source. For one whose ledger is being
    /// read again (`ReadingLedger.Mode.rereading`): the end of the last reading counted before, kept while every
    /// reading read again came after it (a log truncated in place and written again, read in slices: it adds).
    var skipReadingsThrough: Instant?
    var firstData: Instant?
    /// Where its reading ledger stands (`ReadingLedger`); nil for a source that counted readings before the ledger
    /// was kept.
    var ledger: ReadingLedger.Mode? = .kept
    /// Where a source pulled from a phone's remote interface stopped (a file's position is `cursor`).
    var remotePosition: PhyphoxPosition?
    /// Malformed lines skipped that no fetch has reported yet.
    var skipped = SkippedLines()
    /// Parts of the saved row that could not be read (written by another version, or edited), each with what
    /// reading does instead; empty when all was read.
    var problems: [String] = []

    init() {}

    /// The saved position of `source` as its row holds it (nil: never read).
    init(_ row: SourceCursorRecord?, source: String) {
        guard let row else { return }
        lastSample = row.lastSample
        lastReadingEnd = row.lastReadingEnd
        skipReadingsThrough = row.skipReadingsThrough
        firstData = row.firstData
        var problems: [String] = []
        /// The saved JSON `text`, or nil with a problem that says what reading does instead.
        func decoded<T: Decodable>(_ type: T.Type, _ text: String?, _ what: String, _ instead: String) -> T? {
            guard let text else { return nil }
            do {
                return try JSONDecoder().decode(type, from: Data(text.utf8))
            } catch {
                problems.append(
                    "the saved \(what) of \(source) cannot be read (\(describeDecodingError(error))): \(instead)")
                return nil
            }
        }
        cursor = decoded(
            SourceCursor.self, row.cursor, "reading position",
            "reading starts over at its beginning and skips the samples and step readings up to the last ones counted")
        detector = decoded(
            StepDetector.self, row.detector, "step detector",
            "detection starts afresh, and steps of a walk in progress may be missed")
        skipped =
            decoded(
                SkippedLines.self, row.skippedLines, "skipped lines not yet reported",
                "lines skipped before this fetch go unreported") ?? SkippedLines()
        remotePosition = decoded(
            PhyphoxPosition.self, row.remotePosition, "position on the phone",
            "the phone's buffers are read from their start, and samples up to the last one counted are skipped")
        self.problems = problems
    }

    /// The row that saves this position for `source` (what `init(_:source:)` reads back).
    func record(source: String, now: Instant) throws -> SourceCursorRecord {
        let encoder = JSONEncoder()
        func text(_ value: (some Encodable)?) throws -> String? {
            try value.map { String(decoding: try encoder.encode($0), as: UTF8.self) }
        }
        return SourceCursorRecord(
            source: source, cursor: try text(cursor), detector: try text(detector), lastSample: lastSample,
            lastReadingEnd: lastReadingEnd, skipReadingsThrough: skipReadingsThrough, firstData: firstData,
            skippedLines: skipped.isEmpty ? nil : try text(skipped), remotePosition: try text(remotePosition),
            updated: now)
    }
}

extension StateStore {
    /// The saved position of `source`.
    func savedSource(_ source: String) throws -> SavedSource {
        try read { tx in try SavedSource(tx, source: source) }
    }

    func savedSource(_ source: String) async throws -> SavedSource {
        try await read { tx in try SavedSource(tx, source: source) }
    }
}

extension SavedSource {
    /// The saved position of `source` with its ledger's mode: a source that never counted a reading keeps a ledger
    /// from its first.
    init(_ tx: StateTransaction, source: String) throws {
        let row = try tx.sourceCursor(source)
        self.init(row, source: source)
        let mode = try tx.readingLedgerMode(source)
        ledger = row?.lastReadingEnd == nil ? mode ?? .kept : mode
    }
}
