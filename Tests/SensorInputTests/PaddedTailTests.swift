import Foundation
import StepDetection
import TestSupport
import Testing

@testable import SensorInput

/// A recording whose end is one long line without a newline: a data logger's file preallocated and padded with NUL
/// bytes, cut off by a crash or a full card. Every byte range of a large CSV after the head read on through the end
/// of the line that crosses its end; a range lying wholly inside that line read the rest of it too, once per range,
/// so a 200 MB tail took 7 min 50 s and 340 MB of memory to skip one line (bench/RESULTS.md, h47edge).
@Suite(.temporaryFolder) struct PaddedTailTests {
    /// `rows` rows at rest, 20 ms apart, then `padding` NUL bytes.
    static func padded(rows: Int, padding: Int) -> [UInt8] {
        Array("t_ms,x,y,z\n".utf8) + (0..<rows).flatMap { Array("\($0 * 20),0.12,-0.30,9.79\n".utf8) }
            + [UInt8](repeating: 0, count: padding)
    }

    @Test func aRangeInsideOneLongLineReadsOnlyItself() throws {
        let bytes = Self.padded(rows: 3, padding: 100_000)
        let source = ByteSource.memory(bytes)
        var buffer = ByteBuffer(capacity: 64)
        defer { buffer.free() }
        // A range of 64 bytes 50,000 bytes into the padding: no line starts in it, so nothing of the line is needed.
        let inside = try source.read(
            &buffer, at: 50_000, count: 64, throughLineEndAtOrAfter: 63, ifALineStarts: true)
        #expect(inside <= buffer.capacity && inside < 1_000, "read \(inside) bytes")
        // A range where the padded line starts reads it through (to the end of the input, which has no newline).
        let lineStart = Int64(bytes.count - 100_000)
        let start = try source.read(
            &buffer, at: lineStart - 10, count: 64, throughLineEndAtOrAfter: 63, ifALineStarts: true)
        #expect(start == 100_010)
    }

    @Test(arguments: [1 << 17, 4096, 97])
    func thePaddingIsOneSkippedLineAndEveryRowBeforeItCounts(chunkBytes: Int) throws {
        let path = try temporaryFile(Self.padded(rows: 400, padding: 300_000))
        var options = ReadOptions()
        options.chunkBytes = chunkBytes
        var times: [Int64] = []
        let summary = try AccelerationInput.read(path: path, options: options) {
            times.append($0.time.nanosecondsSinceEpoch)
        }
        #expect(summary.samples == 400)
        #expect(times == (0..<400).map { Int64($0) * 20_000_000 })
        #expect(summary.skippedLines == 1)
        #expect(summary.issues.map(\.line) == [402])
    }
}
