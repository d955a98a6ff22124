import Foundation
import SensorInput
import Testing

/// Files in `../shared` beside the package: the labelled recordings and real exports the evaluations read. A lone
/// clone does not have the folder, so only the suites named `…SharedDataTests` (with the `.sharedData` trait) read it;
/// `make unit-test` leaves them out and `make eval` runs them. A test that needs a file calls
/// `try SharedData.require(...)`, which throws one clear error when the file is missing, so the test fails on that line.
public enum SharedData {
    /// The package root (the folder holding Package.swift).
    public static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `../shared` beside the package, or the folder `STEPTWEET_SHARED_DATA` names.
    public static let root: URL = {
        if let path = ProcessInfo.processInfo.environment["STEPTWEET_SHARED_DATA"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        return packageRoot.deletingLastPathComponent().appendingPathComponent("shared")
    }()

    /// Whether the folder is there.
    public static var isPresent: Bool {
        var isFolder: ObjCBool = false
        return FileManager.default.fileExists(atPath: root.path, isDirectory: &isFolder) && isFolder.boolValue
    }

    /// `STEPTWEET_REQUIRE_SHARED=1` (set by `make eval` and CI): the shared-data suites run even without the folder,
    /// so a missing folder fails them instead of leaving them out.
    public static var isRequired: Bool { ProcessInfo.processInfo.environment["STEPTWEET_REQUIRE_SHARED"] == "1" }

    public struct Missing: Error, CustomStringConvertible {
        public let path: String
        public var description: String { "needs ../shared beside the package: \(path) is missing" }
    }

    /// The numbers on each non-empty line of a CSV file in `../shared`, after its header line (fields that are not
    /// a number left out), read as bytes with the readers' own `NumberParsing.parseDouble`: splitting `String`s was
    /// several times slower for the WISDM files.
    public static func numbers(_ relative: String) throws -> [[Double]] {
        try numbers(atPath: try require(relative))
    }

    /// The numbers of a CSV file anywhere (a fixture), as `numbers(_:)` reads them.
    public static func numbers(atPath path: String) throws -> [[Double]] {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        return bytes.withUnsafeBufferPointer { buffer in
            guard let p = buffer.baseAddress else { return [] }
            let n = buffer.count
            var rows: [[Double]] = []
            var i = 0
            while i < n && p[i] != 0x0A { i += 1 }  // the header
            i += 1
            var row: [Double] = []
            var lineStart = i
            while i < n {
                var j = i
                while j < n && p[j] != 0x2C && p[j] != 0x0A { j += 1 }
                if let value = NumberParsing.parseDouble(p, i, j) { row.append(value) }
                if j >= n || p[j] == 0x0A {
                    if j > lineStart { rows.append(row) }
                    row = []
                    lineStart = j + 1
                }
                i = j + 1
            }
            return rows
        }
    }

    /// The path of `relative` inside `../shared`, or a `Missing` error naming it.
    public static func require(_ relative: String) throws -> String {
        let path = root.appendingPathComponent(relative).path
        guard FileManager.default.fileExists(atPath: path) else { throw Missing(path: path) }
        return path
    }

    /// The path of `relative` inside the package's `fixtures/` (committed, so always there).
    public static func fixture(_ relative: String) -> String {
        packageRoot.appendingPathComponent("fixtures").appendingPathComponent(relative).path
    }
}

extension Trait where Self == ConditionTrait {
    /// On a suite that reads `../shared`: it runs when the folder is there (or `STEPTWEET_REQUIRE_SHARED=1`), and is
    /// left out with this reason otherwise, so a lone clone's `swift test` passes. Name such a suite `…SharedDataTests`:
    /// `make unit-test` skips that name and `make eval` runs only it.
    public static var sharedData: Self {
        .enabled(
            if: SharedData.isPresent || SharedData.isRequired,
            "needs ../shared beside the package (make eval runs it)")
    }
}
