import ArgumentParser
import Foundation
import TestSupport

@testable import steptweet

/// What a `steptweet` command printed and how it ended.
struct CommandResult: Equatable {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs `steptweet` commands: in the test's own process (`run`, microseconds of start-up), or as the built binary
/// (`runProcess`, 30-60 ms a launch) for what only a process has: signal handlers, the logging system set up once per
/// process by `agent`, the exit status the operating system sees.
enum Steptweet {
    static var binary: URL {
        // The test bundle lives in the same build products folder as the executable.
        let candidates = [
            Bundle.main.bundleURL.appendingPathComponent("steptweet"),
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(
                "steptweet"),
            URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(
                ".build/debug/steptweet"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]
    }

    /// The repository root (this file is Tests/SteptweetTests/CommandRunner.swift).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The absolute path of `name` in the committed fixtures folder.
    static func fixture(_ name: String) -> String {
        root.appendingPathComponent("fixtures").appendingPathComponent(name).path
    }

    /// Runs `steptweet arguments` in this process, as the binary's `main()` does, with `stdin` as standard input;
    /// what it prints is captured by a task-local console, so tests running in parallel stay apart.
    ///
    /// Relative paths are read against this process's working directory, not `root`: pass absolute ones (or use
    /// `runProcess`). `CLIConventionsTests.theInProcessRunnerPrintsWhatTheBinaryPrints` keeps the two alike.
    static func run(_ arguments: [String], stdin: String? = nil) async throws -> CommandResult {
        if arguments.first == "agent" { throw NeedsAProcess() }
        let capture = Capture(stdin: stdin)
        let status = await Console.$current.withValue(capture.console) { await main(arguments) }
        return capture.result(status: status)
    }

    /// Tests running as root need util-linux's `setpriv` to run steptweet as nobody (`runProcessUnprivileged`).
    struct NeedsSetpriv: Error, CustomStringConvertible {
        var description: String {
            "tests run as root: /usr/bin/setpriv (util-linux) is needed to run steptweet as nobody"
        }
    }

    /// `steptweet agent` sets up the process's logging system (once per process) and signal handlers: `runProcess`.
    struct NeedsAProcess: Error, CustomStringConvertible {
        var description: String { "`steptweet agent` cannot run in the test process: use Steptweet.runProcess" }
    }

    /// ArgumentParser's `AsyncParsableCommand.main(_:)` without the process exit: parses, runs, and for an error
    /// prints the message it would print (help and `--version` on standard output) and returns its exit status.
    private static func main(_ arguments: [String]) async -> Int32 {
        typealias Root = steptweet.Steptweet
        do {
            if let unknown = Root.unknownCommand(in: arguments) { throw unknown }
            var command = try await Root.asyncParseAsRoot(arguments)
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            return 0
        } catch {
            // The binary's standard output is a pipe, so help is wrapped at $COLUMNS or 80, never at this terminal.
            let columns = ProcessInfo.processInfo.environment["COLUMNS"].flatMap { Int($0) } ?? 80
            let message = Root.fullMessage(for: error, columns: columns)
            let status = Root.exitCode(for: error).rawValue
            if !message.isEmpty {
                let console = Console.current
                (status == 0 ? console.output : console.error)(message + "\n")
            }
            return status
        }
    }

    /// Runs `executable` (default: the built binary) with `arguments` in `directory` (default: `root`), with `stdin`
    /// on its standard input (closed after it). The waiting is done on a thread of its own (`offThePool`).
    static func runProcess(
        _ arguments: [String], stdin: String? = nil, executable: URL = binary, in directory: URL = root
    ) async throws -> CommandResult {
        try await offThePool { try runProcessBlocking(arguments, stdin: stdin, executable: executable, in: directory) }
    }

    private static func runProcessBlocking(
        _ arguments: [String], stdin: String?, executable: URL, in directory: URL
    ) throws -> CommandResult {
        let process = ChildProcess()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let out = Pipe()
        let err = Pipe()
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
        return CommandResult(
            status: process.terminationStatus, stdout: String(decoding: o, as: UTF8.self),
            stderr: String(decoding: e, as: UTF8.self))
    }

    /// Runs the built binary as `runProcess` does, but without the privilege to ignore file permissions: as itself
    /// when the tests run as an ordinary user, and as `nobody` through util-linux's `setpriv` when they run as root
    /// (root reads and writes any file whatever its mode, so a read-only folder refuses nothing to it). The files it
    /// needs must be readable by others, as `TemporaryFolder`'s are.
    static func runProcessUnprivileged(_ arguments: [String]) async throws -> CommandResult {
        guard geteuid() == 0 else { return try await runProcess(arguments) }
        let setpriv = "/usr/bin/setpriv"
        guard FileManager.default.isExecutableFile(atPath: setpriv) else {
            throw NeedsSetpriv()
        }
        return try await runProcess(
            ["--reuid=65534", "--regid=65534", "--clear-groups", binary.path] + arguments,
            executable: URL(fileURLWithPath: setpriv))
    }

    /// A `config.toml` in the test's folder whose source is the committed walk (relative times from 10:02 in
    /// Tokyo), followed by `sections` (TOML); its path. Its fetch budget is `TestBudget`'s, as `configFile`'s.
    static func walkConfig(_ sections: String) throws -> String {
        let walk = fixture("demo_walk_50hz.csv")
        return try configFile("[source]\npath = \"\(walk)\"\nstart = \"2026-11-21T10:02:00+09:00\"\n" + sections)
    }

    /// A `config.toml` in the test's folder holding `toml` with the tests' fetch budget (`TestBudget`: 10 minutes
    /// unless `toml` sets a deadline, so a fetch starved by a loaded machine does not run out of it); its path.
    static func configFile(_ toml: String) throws -> String {
        try tempFile(TestBudget.applied(to: toml), name: "config.toml")
    }

    /// Writes `contents` to a new file in the running test's temporary folder (its suite has `.temporaryFolder`) and
    /// returns its path.
    static func tempFile(_ contents: String, name: String = "input.csv") throws -> String {
        try TemporaryFolder.file(Data(contents.utf8), name: name)
    }
}

/// A console that keeps what a command writes and gives it `stdin` (empty when nil, as a closed pipe reads).
private final class Capture: @unchecked Sendable {
    private let lock = NSLock()
    private var out = "", err = ""
    private let stdin: Data

    init(stdin: String?) { self.stdin = Data((stdin ?? "").utf8) }

    var console: Console {
        Console(
            output: { text in self.lock.withLock { self.out += text } },
            error: { text in self.lock.withLock { self.err += text } },
            input: { self.stdin })
    }

    func result(status: Int32) -> CommandResult {
        lock.withLock { CommandResult(status: status, stdout: out, stderr: err) }
    }
}
