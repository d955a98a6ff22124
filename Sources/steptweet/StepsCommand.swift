import Agent
import ArgumentParser
import Foundation
import Messages
import Store
import WallTime

/// `steptweet steps`: steps stored in any range, like CMStepCounter's query.
struct StepsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "steps",
        abstract: "Count the stored steps between two times.",
        discussion: """
            Example:
              steptweet steps --from 2026-11-21T10:00:00+09:00 \\
                --to 2026-11-21T11:00:00+09:00
            """
    )

    @OptionGroup var configOptions: ConfigOptions
    @Option(
        help: ArgumentHelp(
            "Start of the range (ISO 8601, inclusive; without an offset, in text.time_zone).",
            valueName: "TIME"), transform: TimeArgument.parse) var from: TimeArgument
    @Option(
        help: ArgumentHelp("End of the range (ISO 8601, exclusive); default: now.", valueName: "TIME"),
        transform: TimeArgument.parse) var to: TimeArgument?
    @Flag(help: "One JSON object.") var json = false

    func run() throws {
        let config = try configOptions.load()
        let zone = config.composer.timeZone
        let start = from.date(in: zone)
        let end = to?.date(in: zone) ?? WallClock.system.now()
        guard end >= start else { throw fail("--to must not be before --from", status: ExitStatus.usage) }
        let steps: Int
        do {
            steps = try StateStore(readOnlyPath: config.statePath).steps(in: TimeWindow(start: start, end: end))
        } catch {
            throw stateFailure(error, path: config.statePath)
        }
        if json {
            struct Out: Encodable {
                var from: String
                var to: String
                var steps: Int
            }
            printLine(
                jsonLine(
                    Out(
                        from: Timestamps.format(start, zone: zone), to: Timestamps.format(end, zone: zone), steps: steps
                    )))
        } else {
            printLine(
                "\(steps) steps from \(Timestamps.format(start, zone: zone)) to \(Timestamps.format(end, zone: zone))")
        }
    }
}
