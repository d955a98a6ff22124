import Foundation
import SensorInput
import StepDetection
import TestSupport
import Testing

/// A UTF-8 byte-order mark (Excel's "CSV UTF-8", Windows tools) is stripped, and its three bytes count as read: the
/// offset a read returns is where the next one starts (the chunks after a generic CSV's first 256 rows, follow
/// mode's next fetch). Counted short, the next read began inside the last line read, took its tail for a line
/// (`expected 4 fields, found 1`, fatal with `--strict`) and numbered every later line one too high.
@Suite(.temporaryFolder) struct ByteOrderMarkTests {
    static let bom: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// `t_ms,x,y,z` rows 20 ms apart from `first`, at rest.
    static func rows(_ range: Range<Int>) -> String {
        range.map { "\($0 * 20),0.12,-0.30,9.79\n" }.joined()
    }

    @Test func theOffsetAfterTheLastLineIsTheFileSize() throws {
        let text = Array("t_ms,x,y,z\n\(Self.rows(0..<3))".utf8)
        let path = try temporaryFile(Self.bom + text)
        let end = try LineReader.forEachLine(path: path) { _, _, _ in true }
        #expect(end == Int64(Self.bom.count + text.count))
    }

    @Test(arguments: [1 << 17, 97])
    func aBadLineAfterTheHeadIsNamedWithItsOwnNumber(chunkBytes: Int) throws {
        // 400 rows: the first 256 are read line by line (the units), the rest in byte ranges from the offset after.
        var lines = "t_ms,x,y,z\n\(Self.rows(0..<400))".split(separator: "\n").map(String.init)
        lines[349] = "6960,abc,0,9.8"  // line 350
        let path = try temporaryFile(Self.bom + Array((lines.joined(separator: "\n") + "\n").utf8))
        var options = ReadOptions()
        options.chunkBytes = chunkBytes
        let summary = try AccelerationInput.read(path: path, options: options) { _ in }
        #expect(summary.samples == 399)
        #expect(summary.skippedLines == 1)
        #expect(summary.issues.map(\.line) == [350])
    }

    @Test func aCleanFileReadsStrictly() throws {
        let path = try temporaryFile(Self.bom + Array("t_ms,x,y,z\r\n\(Self.rows(0..<400))".utf8))
        var options = ReadOptions()
        options.strict = true
        let summary = try AccelerationInput.read(path: path, options: options) { _ in }
        #expect(summary.samples == 400)
        #expect(summary.skippedLines == 0)
    }

    @Test func followingAFileWithAMarkReadsOnlyNewLines() throws {
        let path = try temporaryFile(Self.bom + Array("t_ms,x,y,z\n\(Self.rows(0..<10))".utf8))
        var (summary, cursor) = try SourceReader.readNew(path: path, cursor: nil) { _ in }
        #expect(summary.samples == 10)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(Self.rows(10..<15).utf8))
        try handle.close()
        (summary, cursor) = try SourceReader.readNew(path: path, cursor: cursor) { _ in }
        #expect(summary.samples == 5)
        #expect(summary.skippedLines == 0, "\(summary.issues)")
        #expect(cursor?.offset == Int64(try Data(contentsOf: URL(fileURLWithPath: path)).count))
    }
}
