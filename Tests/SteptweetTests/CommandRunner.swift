import Foundation
import TestSupport

/// Runs the built `steptweet` binary and captures what it prints.
struct CommandResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

enum Steptweet {
    static var binary: URL {
        // The test bundle lives in the same build products folder as the executable.
        let candidates = [
            Bundle.main.bundleURL.appendingPathComponent("steptweet"),
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("steptweet"),
            URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(".build/debug/steptweet"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]
    }

    /// The repository root (this file is Tests/SteptweetTests/CommandRunner.swift).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func run(_ arguments: [String], stdin: String? = nil) throws -> CommandResult {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.currentDirectoryURL = root
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let input = Pipe()
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return CommandResult(status: process.terminationStatus, stdout: String(decoding: o, as: UTF8.self),
                             stderr: String(decoding: e, as: UTF8.self))
    }

    /// A `config.toml` in the test's folder whose source is the committed walk (relative times from 10:02 in
    /// Tokyo), followed by `sections` (TOML); its path.
    static func walkConfig(_ sections: String) throws -> String {
        let walk = root.appendingPathComponent("fixtures/demo_walk_50hz.csv").path
        return try tempFile("[source]\npath = \"\(walk)\"\nstart = \"2026-11-21T10:02:00+09:00\"\n" + sections, name: "config.toml")
    }

    /// Writes `contents` to a new file in the running test's temporary folder (its suite has `.temporaryFolder`) and
    /// returns its path.
    static func tempFile(_ contents: String, name: String = "input.csv") throws -> String {
        try TemporaryFolder.file(Data(contents.utf8), name: name)
    }
}
