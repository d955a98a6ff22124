import Foundation
import SensorInput
import StepDetection
import Testing

@Suite struct SourceReaderTests {
    func append(_ text: String, to path: String) throws {
        let h = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try h.seekToEnd()
        try h.write(contentsOf: Data(text.utf8))
        try h.close()
    }

    func times(_ items: [InputItem]) -> [Int64] {
        items.compactMap { if case .sample(let s) = $0 { return s.timeNs } else { return nil } }
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
}
