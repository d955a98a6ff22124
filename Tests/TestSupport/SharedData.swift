import Foundation

/// Files in `../shared` beside the package. A test that needs one calls `try SharedData.require(...)`, which throws
/// one clear error when the folder is missing, so the test fails on that line and the run goes on.
public enum SharedData {
    /// The package root (the folder holding Package.swift).
    public static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `../shared` beside the package.
    public static let root: URL = packageRoot.deletingLastPathComponent().appendingPathComponent("shared")

    public struct Missing: Error, CustomStringConvertible {
        public let path: String
        public var description: String { "needs ../shared beside the package: \(path) is missing" }
    }

    /// The numbers on each line of a CSV file in `../shared`, after its header line (fields that are not numbers
    /// left out). Parsed here, in an optimised module: unoptimised, splitting a recording of some 10,000 lines takes
    /// a good part of a second.
    public static func numbers(_ relative: String) throws -> [[Double]] {
        let text = try String(contentsOfFile: try require(relative), encoding: .utf8)
        return text.split(separator: "\n").dropFirst().map { line in line.split(separator: ",").compactMap { Double($0) } }
    }

    /// The path of `relative` inside `../shared`, or a `Missing` error naming it.
    public static func require(_ relative: String) throws -> String {
        let path = root.appendingPathComponent(relative).path
        guard FileManager.default.fileExists(atPath: path) else { throw Missing(path: path) }
        return path
    }
}
