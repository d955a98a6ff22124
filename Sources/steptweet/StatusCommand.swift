import Agent
import ArgumentParser
import Foundation
import Messages

/// `steptweet status`: next fetch, last results, pending outbox, and why fetching is disabled.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the agent's state: next fetch, last results, pending posts, why fetching is disabled.",
        discussion: """
            Reads the state database without changing it.

            Example:
              steptweet status --config config.toml
            """
    )

    @OptionGroup var configOptions: ConfigOptions
    @Flag(help: "One JSON object.") var json = false

    func run() throws {
        let config = try configOptions.load()
        let report: StatusReport
        do {
            report = try StatusReport.load(configuration: config)
        } catch {
            throw stateFailure(error, path: config.statePath)
        }
        if json {
            printLine(jsonLine(report, datesIn: config.composer.timeZone))
        } else {
            report.lines(zone: config.composer.timeZone).forEach { printLine(TerminalText.escaped($0)) }
        }
    }
}
