import Foundation

/// A fresh folder under the system's temporary directory, removed with everything in it when the value is released.
/// Every test that writes files writes them here, so a passing or failing run leaves nothing in `/tmp`.
public final class TempDir: @unchecked Sendable {
    public let url: URL
    public var root: String { url.path }

    public init(_ prefix: String = "steptweet-test") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
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
        try FileManager.default.createDirectory(at: URL(fileURLWithPath: p).deletingLastPathComponent(),
                                                withIntermediateDirectories: true)
        try data.write(to: URL(fileURLWithPath: p))
        return p
    }
}
