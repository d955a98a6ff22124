import Agent
import ArgumentParser
import Foundation
import Logging
import Store

/// `steptweet agent`: the long-running background agent.
struct AgentCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "agent",
        abstract: "Run background fetches on the schedule until stopped (SIGUSR1: fetch now; SIGTERM/INT/HUP: stop).",
        discussion: """
            Fetches on the configured interval or cron schedule (never more often than schedule.minimum, with \
            jitter), backs off after Failed, and never runs two fetches at once. `kill -USR1 <pid>` starts a fetch \
            now; with a [push] table, POST /push on 127.0.0.1 with the bearer token does too. With interval = \
            "never" or missing credentials the agent stays up, fetches nothing, and `steptweet status` says why. \
            With source.device naming a live accelerometer, the agent samples it between fetches (see `steptweet \
            devices`).

            Example:
              steptweet agent --config ~/.config/steptweet/config.toml
            """
    )

    @OptionGroup var configOptions: ConfigOptions
    @Option(
        help:
            "The least severe messages logged: trace and debug add each fetch's details; info logs one line per fetch; warning only Failed fetches and problems."
    )
    var logLevel: LogLevel = .info

    func run() async throws {
        let config = try configOptions.load(schedules: true)
        do {
            let level = Logger.Level(rawValue: logLevel.rawValue) ?? .info
            let zone = config.composer.timeZone
            LoggingSystem.bootstrap { _ in ConsoleLogHandler(level: level, zone: zone) }
            try await AgentServices.runUntilSignalled(configuration: config, logger: Logger(label: "steptweet.agent"))
        } catch {
            // Another agent running is 75; a state folder this user may not write 77, one that cannot be created 73.
            throw fail("agent: \(error)", status: ExitStatus.of(StateStore.failureKind(of: error)))
        }
    }
}

/// `--log-level`: swift-log's levels, so help and completions list them.
enum LogLevel: String, ExpressibleByArgument, CaseIterable {
    case trace, debug, info, notice, warning, error, critical
}
