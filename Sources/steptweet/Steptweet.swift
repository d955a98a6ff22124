import ArgumentParser
import Foundation
import Publishing

/// The `steptweet` command: a Linux background agent that counts steps and posts them on each background fetch.
@main
struct Steptweet: AsyncParsableCommand {
    /// The release, printed by `steptweet --version`.
    static let version = "0.3.0"

    static let configuration = CommandConfiguration(
        commandName: "steptweet",
        abstract:
            "Count steps from accelerometer recordings, pedometer logs or a live sensor, and post them on each background fetch.",
        discussion: """
            Examples:
              steptweet demo
              steptweet count walk.csv
              steptweet preview --source walk.csv --start 2026-11-21T10:00:00+09:00

            Exit status (sysexits): 0 success (NewData or NoData); 64 usage; 65 input that cannot be read as its \
            format; 66 a missing input named on the command line; 69 no device; 73 an output file exists or cannot \
            be written (the state database too); 75 a temporary failure that may succeed by itself later; 77 a state \
            folder, database or lock this user may not write; 78 configuration or credential problems.

            The configuration file and its keys: steptweet.toml(5); `steptweet init` writes a commented sample. \
            Shell completions: steptweet --generate-completion-script bash|zsh|fish.
            """,
        version: Steptweet.version,
        subcommands: [
            CountCommand.self, EvalCommand.self, InspectCommand.self, CheckTextCommand.self, PreviewCommand.self,
            FetchCommand.self, AgentCommand.self, StatusCommand.self, HistoryCommand.self, StepsCommand.self,
            OutboxCommand.self,
            DemoCommand.self, InitCommand.self, DevicesCommand.self,
        ]
    )

    /// ArgumentParser's `main()`, but a first word that names no command gets the closest command named
    /// (`steptweet cuont`: did you mean count?) instead of only "Unexpected argument".
    static func main() async {
        do {
            let arguments = Array(CommandLine.arguments.dropFirst())
            if let unknown = unknownCommand(in: arguments) { throw unknown }
            var command = try await asyncParseAsRoot(arguments)
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }

    /// The usage error for a first argument that is neither an option nor a command (64), naming the closest
    /// command when one is near; nil otherwise.
    static func unknownCommand(in arguments: [String]) -> ValidationError? {
        guard let first = arguments.first, !first.hasPrefix("-") else { return nil }
        let names = configuration.subcommands.compactMap { $0.configuration.commandName } + ["help"]
        guard !names.contains(first) else { return nil }
        let guess = ConfigTable.closest(to: first, among: names).map { "; did you mean \($0)?" }
        return ValidationError(
            "unknown command '\(first)'" + (guess ?? "; the commands: " + names.joined(separator: ", ")))
    }
}
