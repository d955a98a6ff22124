import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A fresh folder under the system's temporary directory, removed with everything in it when the value is released.
/// Every test that writes files writes them here, so a passing or failing run leaves nothing in `/tmp`. A run that
/// is killed (SIGKILL, a CI timeout) cannot release its folders: names carry the process id
/// (`steptweet-test-<pid>-<uuid>`), and the first folder of the next run removes those of processes that are gone.
public final class TempDir: @unchecked Sendable {
    public let url: URL
    public var root: String { url.path }

    public init(_ prefix: String = "steptweet-test") throws {
        _ = Self.sweptOnce
        let name = prefix.hasPrefix("steptweet-") ? prefix : "steptweet-" + prefix
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(name)-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    private static let sweptOnce: Void = removeFoldersOfEndedRuns()

    /// Removes the folders test runs that are no longer alive left behind: `steptweet-…-<pid>-<uuid>` whose process is
    /// gone. A live run's folders are never touched.
    public static func removeFoldersOfEndedRuns(in tmp: URL = FileManager.default.temporaryDirectory) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: tmp.path) else { return }
        for name in names where name.hasPrefix("steptweet-") {
            let parts = name.split(separator: "-")
            // prefix words, pid, then the five groups of a UUID
            guard parts.count >= 7, let pid = Int32(parts[parts.count - 6]), pid > 0,
                UUID(uuidString: parts.suffix(5).joined(separator: "-")) != nil
            else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH {
                try? FileManager.default.removeItem(at: tmp.appendingPathComponent(name))
            }
        }
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// The path of `name` inside the folder.
    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Writes `text` to `name` inside the folder and returns its path.
    @discardableResult
    public func write(_ name: String, _ text: String) throws -> String {
        try write(name, Data(text.utf8))
    }

    /// Writes `data` to `name` inside the folder (creating subfolders) and returns its path.
    @discardableResult
    public func write(_ name: String, _ data: Data) throws -> String {
        let p = path(name)
        try FileManager.default.createDirectory(
            at: URL(fileURLWithPath: p).deletingLastPathComponent(),
            withIntermediateDirectories: true)
        try data.write(to: URL(fileURLWithPath: p))
        return p
    }
}
