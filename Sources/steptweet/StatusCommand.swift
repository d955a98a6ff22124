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
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            // Times as every other output writes them (`history --json`, `fetch --json`): in the configured zone,
            // with its offset.
            let zone = config.composer.timeZone
            encoder.dateEncodingStrategy = .custom { date, encoder in
                var container = encoder.singleValueContainer()
                try container.encode(Timestamps.format(date, zone: zone))
            }
            encoder.keyEncodingStrategy = .convertToSnakeCase
            printLine(String(decoding: (try? encoder.encode(report)) ?? Data("{}".utf8), as: UTF8.self))
        } else {
            report.lines(zone: config.composer.timeZone).forEach { printLine(TerminalText.escaped($0)) }
        }
    }
}
