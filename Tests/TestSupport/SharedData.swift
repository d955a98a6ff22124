import Foundation
import SensorInput

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

    /// The numbers on each non-empty line of a CSV file in `../shared`, after its header line (fields that are not
    /// a number left out), read as bytes with the readers' own `NumberParsing.parseDouble`: splitting `String`s was
    /// several times slower for the WISDM files.
    public static func numbers(_ relative: String) throws -> [[Double]] {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try require(relative))))
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
}
