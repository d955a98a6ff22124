import Foundation
import TestSupport
import Testing

/// Test folders never outlive their run: released ones are removed at once, and those of a killed run by the next.
@Suite struct TemporaryFolderTests {
    @Test func aReleasedFolderIsRemoved() throws {
        var dir: TempDir? = try TempDir("plot")
        let url = try #require(dir?.url)
        #expect(url.lastPathComponent.hasPrefix("steptweet-plot-\(ProcessInfo.processInfo.processIdentifier)-"))
        try dir?.write("a/b.txt", "x")
        dir = nil
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    @Test func foldersOfEndedRunsAreRemovedAndLiveOnesKept() throws {
        let tmp = try TempDir("sweep")  // stands for /tmp
        let ended = "steptweet-test-\(Int32.max - 7)-\(UUID().uuidString)"  // above any pid_max: no such process
        let live = "steptweet-test-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)"
        let foreign = "other-\(Int32.max - 7)-\(UUID().uuidString)"
        let unnumbered = "steptweet-notes"
        for name in [ended, live, foreign, unnumbered] { try tmp.write("\(name)/file", "x") }
        TempDir.removeFoldersOfEndedRuns(in: tmp.url)
        let left = Set(try FileManager.default.contentsOfDirectory(atPath: tmp.root))
        #expect(left == [live, foreign, unnumbered])
    }
}
