import Foundation
import Testing

/// Gives each test a temporary folder of its own, removed when the test ends, passed or failed: helpers that write
/// test files (`temporaryFile`, `Steptweet.tempFile`) put them in `TemporaryFolder.current`. Use it on a suite:
/// `@Suite(.temporaryFolder) struct ReaderTests { … }`.
public struct TemporaryFolderTrait: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        // A suite's own scope (testCase nil for the suite itself) needs no folder: its tests each get one.
        guard testCase != nil || !test.isSuite else { return try await function() }
        let folder = try TempDir("steptweet-test")
        try await TemporaryFolder.$current.withValue(folder.url) {
            try await function()
        }
        withExtendedLifetime(folder) {}
    }
}

extension Trait where Self == TemporaryFolderTrait {
    /// Each test of the suite gets a temporary folder, removed when it ends.
    public static var temporaryFolder: Self { TemporaryFolderTrait() }
}

/// The running test's temporary folder (see `TemporaryFolderTrait`).
public enum TemporaryFolder {
    @TaskLocal public static var current: URL?

    /// A new file `name` with `contents` in the running test's folder; its path.
    public static func file(_ contents: Data, name: String) throws -> String {
        guard let root = current else {
            throw SharedData.Missing(path: "the test's temporary folder: add .temporaryFolder to the suite's traits")
        }
        let dir = root.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let url = dir.appendingPathComponent(name)
        try contents.write(to: url)
        return url.path
    }
}
