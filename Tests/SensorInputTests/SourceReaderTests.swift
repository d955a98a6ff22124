import Foundation
import SensorInput
import StepDetection
import TestSupport
import Testing
import WallTime

@Suite(.temporaryFolder) struct SourceReaderTests {
    func append(_ text: String, to path: String) throws {
        let h = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try h.seekToEnd()
        try h.write(contentsOf: Data(text.utf8))
        try h.close()
    }

    func times(_ items: [InputItem]) -> [Int64] {
        items.compactMap { if case .sample(let s) = $0 { return s.time.nanosecondsSinceEpoch } else { return nil } }
    }

    @Test func readsOnlyNewCompleteLinesAndNeverTwice() throws {
        let path = try temporaryFile(Array("t_ms,x,y,z\n0,0,0,9.8\n20,0,0,9.8\n40,0,0".utf8))
        var items: [InputItem] = []
        var (_, cursor) = try SourceReader.readNew(path: path, cursor: nil) { items.append($0) }
        #expect(times(items) == [0, 20_000_000])
        try append(",9.8\n60,0,0,9.8\n", to: path)
        items = []
        (_, cursor) = try SourceReader.readNew(path: path, cursor: cursor) { items.append($0) }
        #expect(times(items) == [40_000_000, 60_000_000])
        items = []
        (_, cursor) = try SourceReader.readNew(path: path, cursor: cursor) { items.append($0) }
        #expect(items.isEmpty)
        // Truncated and rewritten by its writer: read from the start again, header included.
        try Data("t_ms,x,y,z\n100,0,0,9.8\n".utf8).write(to: URL(fileURLWithPath: path))
        (_, cursor) = try SourceReader.readNew(path: path, cursor: cursor) { items.append($0) }
        #expect(times(items) == [100_000_000])
        #expect(cursor?.lineNumber == 2)
    }

    /// A log rotated by copy and truncate (logrotate's `copytruncate`) that has grown past the old position by the
    /// next read, its cursor saved as the agent saves it: read from its start, no line lost.
    @Test func aLogTruncatedThatGrewPastThePositionIsReadFromItsStart() throws {
        let line = { (m: Int) in #"{"ts": "2026-11-21T01:\#(m < 10 ? "0" : "")\#(m):30Z", "steps": 10}"# + "\n" }
        let path = try temporaryFile(Array((0..<5).map(line).joined().utf8))
        var steps = 0
        let count: (InputItem) -> Void = { if case .reading(let r) = $0 { steps += r.steps } }
        var (_, cursor) = try SourceReader.readNew(path: path, cursor: nil, count)
        #expect(steps == 50)
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: Data((10..<20).map(line).joined().utf8))
        try handle.close()
        let saved = try cursor.map { try JSONDecoder().decode(SourceCursor.self, from: JSONEncoder().encode($0)) }
        (_, cursor) = try SourceReader.readNew(path: path, cursor: saved, count)
        #expect(steps == 150, "the 10 lines written after the truncation, none skipped")
    }

    /// An export downloaded again and renamed over the one read to its end: the same bytes are known by their size
    /// and hash, and nothing is read (it was read whole again, every reading delivered and reconciled). A copy with
    /// one value changed (the same size) starts over.
    @Test func aCopyOfTheSameBytesRenamedOverTheFileIsNotReadAgain() throws {
        let line = { (m: Int, steps: Int) in #"{"ts": "2026-11-21T01:0\#(m):30Z", "steps": \#(steps)}"# + "\n" }
        let text = (0..<5).map { line($0, 10) }.joined()
        let path = try temporaryFile(Array(text.utf8), name: "steps.jsonl")
        var readings = 0
        let count: (InputItem) -> Void = { if case .reading = $0 { readings += 1 } }
        let first = try SourceReader.readNew(path: path, cursor: nil, count)
        let saved = try first.cursor.map { try JSONDecoder().decode(SourceCursor.self, from: JSONEncoder().encode($0)) }
        var kept = 0
        let replace = { (text: String) in
            // The file read stays linked elsewhere, so that the copy cannot get its inode.
            kept += 1
            let elsewhere = URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent("old-\(kept)")
            #expect(link(path, elsewhere.path) == 0)
            let copy = try temporaryFile(Array(text.utf8), name: "steps.jsonl.part")
            #expect(rename(copy, path) == 0)
        }
        try replace(text)
        readings = 0
        let again = try SourceReader.readNew(path: path, cursor: saved, count)
        #expect(readings == 0)
        #expect(!again.summary.startedOver)
        #expect(again.cursor?.offset == first.cursor?.offset)
        try append(line(6, 10), to: path)  // and it goes on growing
        _ = try SourceReader.readNew(path: path, cursor: again.cursor, count)
        #expect(readings == 1)
        try replace(text.replacingOccurrences(of: "\"steps\": 10}\n", with: "\"steps\": 11}\n"))
        readings = 0
        let changed = try SourceReader.readNew(path: path, cursor: saved, count)
        #expect(changed.summary.startedOver)
        #expect(readings == 5)
    }
}

@Suite(.temporaryFolder) struct FollowModeTests {
    func append(_ text: String, to path: String) throws {
        let h = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try h.seekToEnd()
        try h.write(contentsOf: Data(text.utf8))
        try h.close()
    }

    func readNew(_ path: String, _ cursor: SourceCursor?, options: ReadOptions = ReadOptions()) throws
        -> ([InputItem], SourceCursor?, ReadSummary)
    {
        var items: [InputItem] = []
        var options = options
        options.timeZone = options.timeZone ?? TimeZone(identifier: "UTC")  // not the machine's zone
        // Through JSON, as the agent stores it in SQLite between fetches.
        let stored = try cursor.map { try JSONDecoder().decode(SourceCursor.self, from: JSONEncoder().encode($0)) }
        let (summary, next) = try SourceReader.readNew(path: path, options: options, cursor: stored) {
            items.append($0)
        }
        return (items, next, summary)
    }

    func steps(_ items: [InputItem]) -> [Int] {
        items.compactMap { if case .reading(let r) = $0 { return r.steps } else { return nil } }
    }

    @Test func stepLogGrowsLineByLineWithCounterState() throws {
        let path = try temporaryFile(
            Array(
                "{\"ts\":\"2026-11-21T10:00:00Z\",\"total\":100,\"src\":\"a\"}\n{\"ts\":\"2026-11-21T10:01:00Z\",\"tot"
                    .utf8),
            name: "steps.jsonl")
        var (items, cursor, summary) = try readNew(path, nil)
        #expect(summary.format == "steplog")
        #expect(steps(items) == [0])  // baseline; the half-written line is left for later
        try append("al\":130,\"src\":\"a\"}\n", to: path)
        (items, cursor, _) = try readNew(path, cursor)
        #expect(steps(items) == [30])  // the saved counter state gives the delta
        (items, cursor, _) = try readNew(path, cursor)
        #expect(items.isEmpty)
        try append("{\"ts\":\"2026-11-21T10:02:00Z\",\"total\":5,\"src\":\"a\"}\n", to: path)
        (items, cursor, _) = try readNew(path, cursor)
        #expect(steps(items) == [5])  // counter dropped: a reset, never negative
        #expect(cursor?.lineNumber == 3)
        #expect(cursor?.format == "steplog")
    }

    @Test func rotationToANewFileStartsOver() throws {
        let path = try temporaryFile(Array("{\"ts\":\"2026-11-21T10:00:00Z\",\"steps\":3}\n".utf8), name: "steps.jsonl")
        var (items, cursor, _) = try readNew(path, nil)
        #expect(steps(items) == [3])
        // logrotate: rename away, a new file (new inode) at the same path, even longer than the old one.
        try FileManager.default.moveItem(atPath: path, toPath: path + ".1")
        try Data("{\"ts\":\"2026-11-21T11:00:00Z\",\"steps\":7}\n{\"ts\":\"2026-11-21T11:01:00Z\",\"steps\":8}\n".utf8)
            .write(to: URL(fileURLWithPath: path))
        (items, cursor, _) = try readNew(path, cursor)
        #expect(steps(items) == [7, 8])
        #expect(cursor?.lineNumber == 2)
    }

    @Test func rotationFinishesTheRenamedFileFirst() throws {
        let path = try temporaryFile(Array("t_ns,x,y,z\n1000000000,0,0,9.8\n".utf8), name: "accel.csv")
        var (items, cursor, summary) = try readNew(
            path, nil, options: ReadOptions(start: Instant(nanosecondsSinceEpoch: 0)))
        #expect(items.count == 1)
        // The writer adds two lines (one half-written), then the file is rotated away and a new one started.
        try append("2000000000,0,0,9.8\n3000000000,0,0,9.8\n4000000000,0,", to: path)
        try FileManager.default.moveItem(atPath: path, toPath: path + ".1")
        try Data("t_ns,x,y,z\n".utf8).write(to: URL(fileURLWithPath: path))
        (items, cursor, summary) = try readNew(
            path, cursor, options: ReadOptions(start: Instant(nanosecondsSinceEpoch: 0)))
        #expect(sampleTimes(items) == [2_000_000_000, 3_000_000_000])  // the rest of the old file, whole lines only
        #expect(summary.samples == 2)
        #expect(cursor?.offset == 11)  // now in the new file, after its header
        try append("5000000000,0,0,9.8\n", to: path)
        (items, cursor, _) = try readNew(path, cursor, options: ReadOptions(start: Instant(nanosecondsSinceEpoch: 0)))
        #expect(sampleTimes(items) == [5_000_000_000])
        // Rotation to an empty file: the old rest is read, and the new file will be read from its start.
        try append("6000000000,0,0,9.8\n", to: path)
        try FileManager.default.moveItem(atPath: path, toPath: path + "-20261122")
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        (items, cursor, _) = try readNew(path, cursor, options: ReadOptions(start: Instant(nanosecondsSinceEpoch: 0)))
        #expect(sampleTimes(items) == [6_000_000_000])
        #expect(cursor?.offset == 0)
        try append("t_ns,x,y,z\n7000000000,0,0,9.8\n", to: path)
        (items, cursor, _) = try readNew(path, cursor, options: ReadOptions(start: Instant(nanosecondsSinceEpoch: 0)))
        #expect(sampleTimes(items) == [7_000_000_000])
    }

    @Test func rotationToAFileWithAHalfWrittenHeaderDeliversTheOldRestOnce() throws {
        let path = try temporaryFile(Array("t_ms,x,y,z\n1700000000000,0,0,9.8\n".utf8), name: "live.csv")
        var (items, cursor, _) = try readNew(path, nil)
        #expect(sampleTimes(items).count == 1)
        try append("1700000000040,0,0,9.8\n", to: path)
        try FileManager.default.moveItem(atPath: path, toPath: path + ".1")
        try Data("t_ms,x".utf8).write(to: URL(fileURLWithPath: path))  // the writer is still writing the header
        (items, cursor, _) = try readNew(path, cursor)
        #expect(sampleTimes(items) == [1_700_000_000_040_000_000])
        (items, cursor, _) = try readNew(path, cursor)
        #expect(items.isEmpty)  // not the old rest again
        try append(",y,z\n1700000000060,0,0,9.8\n", to: path)
        (items, cursor, _) = try readNew(path, cursor)
        #expect(sampleTimes(items) == [1_700_000_000_060_000_000])
    }

    @Test func errorsNameTheFileNotItsDescriptor() throws {
        let path = try temporaryFile(Array("t_ms,x,y,z\n0,0,0,9.8\n20,zero,0,9.8\n".utf8), name: "named.csv")
        let (_, _, summary) = try readNew(path, nil, options: ReadOptions(start: Instant(nanosecondsSinceEpoch: 0)))
        #expect(summary.issues.map(\.file) == [path])
        #expect(throws: InputError(file: path, line: 3, message: summary.issues.first?.message ?? "")) {
            _ = try SourceReader.readNew(path: path, options: ReadOptions(strict: true, start: .epoch), cursor: nil) {
                _ in
            }
        }
    }

    @Test func headerlessAndHeaderedFormatsKeepTheirState() throws {
        // Oxford (no header): the anchor to --start holds across reads.
        let start: Int64 = 1_700_000_000_000_000_000
        let oxford = try temporaryFile(
            Array("1000000000,3,0,0,9.8\r\n1005000000,3,0,0,9.8\r\n".utf8), name: "accelerometer.csv")
        var (items, cursor, _) = try readNew(
            oxford, nil, options: ReadOptions(start: Instant(nanosecondsSinceEpoch: start)))
        #expect(items.count == 2)
        try append("1010000000,3,0,0,9.8\r\n", to: oxford)
        (items, cursor, _) = try readNew(
            oxford, cursor, options: ReadOptions(start: Instant(nanosecondsSinceEpoch: start)))
        #expect(
            items == [
                .sample(
                    AccelerationSample(time: Instant(nanosecondsSinceEpoch: start + 10_000_000), x: 0, y: 0, z: 9.8))
            ])
        // ActiGraph epoch: the 10-line header read once; later rows keep their epoch index.
        let header =
            (try String(contentsOfFile: formatFixture("actigraph/ActiGraph13.csv"), encoding: .utf8))
            .split(separator: "\n", omittingEmptySubsequences: false).prefix(12).joined(separator: "\n") + "\n"
        let epoch = try temporaryFile(Array(header.utf8), name: "epochs.csv")
        var readings: [StepReading] = []
        (items, cursor, _) = try readNew(epoch, nil)
        #expect(items.count == 2)
        try append("1,2,3,17\n", to: epoch)
        (items, cursor, _) = try readNew(epoch, cursor)
        readings = items.compactMap { if case .reading(let r) = $0 { return r } else { return nil } }
        #expect(
            readings == [
                StepReading(
                    start: Instant(nanosecondsSinceEpoch: TimeParsing.parseISO8601("2013-08-26T09:00:30Z")!),
                    end: Instant(nanosecondsSinceEpoch: TimeParsing.parseISO8601("2013-08-26T09:00:45Z")!), steps: 17)
            ])
    }

    @Test func emptyOrHalfWrittenFirstLineWaits() throws {
        let path = try temporaryFile([], name: "growing.csv")
        var (items, cursor, _) = try readNew(path, nil)
        #expect(items.isEmpty && cursor == nil)
        try append("t_ms,x,y", to: path)
        (items, cursor, _) = try readNew(path, cursor)
        #expect(items.isEmpty && cursor == nil)
        try append(",z\n0,0,0,9.8\n", to: path)
        (items, cursor, _) = try readNew(path, cursor)
        #expect(items.count == 1)
        #expect(cursor?.format == "generic-csv")
    }

    /// A gathering saved before one of its fields existed (here: only `records`, as a state from a build that knew
    /// no more would hold it) still decodes, the missing fields at their defaults: a cursor that fails to decode would
    /// lose the export's place and what was gathered.
    @Test func aGatheringSavedWithFewerFieldsStillDecodes() throws {
        let older = try JSONDecoder().decode(SourceCursor.Gathering.self, from: Data(#"{"records": 12}"#.utf8))
        #expect(older.records == 12 && !older.complete && older.settledParts == 0)
        var settling = SourceCursor.Gathering()
        settling.settledParts = 3
        let again = try JSONDecoder().decode(SourceCursor.Gathering.self, from: JSONEncoder().encode(settling))
        #expect(again == settling)
    }
}

private func sampleTimes(_ items: [InputItem]) -> [Int64] {
    items.compactMap { if case .sample(let s) = $0 { return s.time.nanosecondsSinceEpoch } else { return nil } }
}
