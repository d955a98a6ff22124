import Agent
import ArgumentParser
import Foundation

/// `steptweet agent`: the long-running background agent.
struct AgentCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "agent",
        abstract: "Run background fetches on the schedule until stopped (SIGUSR1: fetch now; SIGTERM/SIGINT: stop).",
        discussion: """
            Fetches on the configured interval or cron schedule (never more often than schedule.minimum, with jitter),
            backs off after Failed, and never runs two fetches at once. `kill -USR1 <pid>` starts a fetch now; with a
            [push] table, POST /push on 127.0.0.1 with the bearer token does too. With interval = "never" or missing
            credentials the agent stays up, fetches nothing, and `steptweet status` says why. With source.device naming a
            live accelerometer, the agent samples it between fetches (see `steptweet devices`).

            Example: steptweet agent --config ~/.config/steptweet/config.toml
            """
    )

    @OptionGroup var configOptions: ConfigOptions
    @Option(help: "Log level: trace, debug, info, notice, warning, error.") var logLevel = "info"

    func run() async throws {
        let config = try configOptions.load()
        guard AgentService.logLevels.contains(logLevel) else {
            throw ValidationError("--log-level: '\(logLevel)' is not one of \(AgentService.logLevels.joined(separator: ", "))")
        }
        do {
            try await AgentService.runUntilSignalled(configuration: config, logLevel: logLevel)
        } catch {
            throw fail("agent: \(error)", status: ExitStatus.tempFail)
        }
    }
}
