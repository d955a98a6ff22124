import Foundation

/// Where the commands write their lines and read standard input: the process's own streams, or in tests a capture.
///
/// Every line a command prints goes through `Console.current` (`printLine`, `printError`, the log handler and the
/// stdout publishing target), so the tests can run a command in their own process and see exactly the bytes the binary
/// would print, without touching file descriptors. The console is a task-local value: commands run concurrently in one
/// process each write to their own.
struct Console: Sendable {
    /// Writes text (newlines included) to standard output.
    var output: @Sendable (String) -> Void
    /// Writes text (newlines included) to standard error.
    var error: @Sendable (String) -> Void
    /// Reads standard input to its end.
    var input: @Sendable () -> Data

    /// The process's streams: standard output buffered as `print` does (flushed at exit, or by `fflush`), standard
    /// error written at once.
    static let standard = Console(
        output: { Swift.print($0, terminator: "") },
        error: { FileHandle.standardError.write(Data($0.utf8)) },
        input: { FileHandle.standardInput.readDataToEndOfFile() }
    )

    /// The console of the running command.
    @TaskLocal static var current = Console.standard
}

/// Writes `line` and a newline to the command's standard output.
func printLine(_ line: String) {
    Console.current.output(line + "\n")
}
