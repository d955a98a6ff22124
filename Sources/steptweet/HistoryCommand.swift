import Agent
import Analysis
import ArgumentParser
import Foundation
import Messages
import Store
import WallTime

/// `steptweet history`: fetch results, or a chart of steps per hour or day.
struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "List past fetches and their results, or chart steps per hour or day (--chart).",
        discussion: """
            Examples:
              steptweet history --limit 10
              steptweet history --chart --by hour
            """
    )

    @OptionGroup var configOptions: ConfigOptions
    /// The periods of `--chart`.
    enum ChartPeriod: String, ExpressibleByArgument, CaseIterable {
        case hour, day
        var seconds: Int64 { self == .hour ? 3600 : 86_400 }
    }

    @Flag(help: "One JSON array of fetches, oldest first.") var json = false
    @Flag(help: "Draw steps per hour or day in the terminal instead.") var chart = false
    @Option(help: "Chart periods (default: hour for up to two days of data, else day).") var by: ChartPeriod?
    @Option(help: "How many fetches to list.") var limit = 20

    func run() throws {
        let config = try configOptions.load()
        let zone = config.composer.timeZone
        do {
            let store = try StateStore(readOnlyPath: config.statePath)
            if chart {
                try drawChart(store: store, zone: zone)
                return
            }
            let entries = try store.history(limit: limit).reversed()
            if entries.isEmpty && !json { printLine("no fetch recorded yet in \(config.statePath)") }
            let f = { (instant: Instant) in Timestamps.format(instant.date, zone: zone) }
            if json {
                struct Line: Encodable {
                    var started: String
                    var ended: String
                    var trigger: String
                    var result: String
                    var error: String?
                    var windowStart: String?
                    var windowEnd: String?
                    var steps: Int?
                    var lateSteps: Int?
                    var warnings: [String]?
                }
                printLine(
                    jsonLine(
                        entries.map { h in
                            Line(
                                started: f(h.started), ended: f(h.ended), trigger: h.trigger.description,
                                result: h.result.rawValue,
                                error: h.error,
                                windowStart: h.window.map { f($0.start) }, windowEnd: h.window.map { f($0.end) },
                                steps: h.steps,
                                lateSteps: h.lateSteps == 0 ? nil : h.lateSteps,
                                warnings: h.warnings.isEmpty ? nil : h.warnings)
                        }))
                return
            }
            for h in entries {
                let late = (h.lateSteps ?? 0) != 0 ? " (\(h.lateSteps ?? 0) late)" : ""
                let window = h.window.map { "\(f($0.start)) 〜 \(f($0.end))" } ?? "-"
                printLine(
                    TerminalText.escaped(
                        "\(f(h.started))  \(h.trigger.description.padding(toLength: 8, withPad: " ", startingAt: 0)) \(window)  \(h.steps ?? 0) steps\(late)  \(h.result.rawValue)"
                            + (h.error.map { ": \($0)" } ?? "")))
                for w in h.warnings { printLine(TerminalText.escaped("    warning: \(w)")) }
            }
        } catch {
            throw stateFailure(error, path: config.statePath)
        }
    }

    func drawChart(store: StateStore, zone: TimeZone) throws {
        guard let range = try store.stepRange() else {
            printLine("no steps stored yet")
            return
        }
        let span = range.last - range.first
        let period = by ?? (span <= 2 * 86_400 ? .hour : .day)
        let unit = period.rawValue
        let bucket = period.seconds
        let offset = Int64(zone.secondsFromGMT(for: Instant(secondsSinceEpoch: range.last).date))
        let stored = TimeWindow(
            start: Instant(secondsSinceEpoch: range.first), end: Instant(secondsSinceEpoch: range.last + 1))
        let rows = try store.stepsPerPeriod(in: stored, bucket: bucket, offset: offset)
        // Include empty periods so the time axis is even.
        var filled: [(start: Int64, steps: Int)] = []
        if let first = rows.first?.start, let last = rows.last?.start {
            let byStart = Dictionary(uniqueKeysWithValues: rows.map { ($0.start, $0.steps) })
            for s in stride(from: first, through: last, by: Int(bucket)) { filled.append((s, byStart[s] ?? 0)) }
        }
        let label = DateFormatter()
        label.locale = Locale(identifier: "en_US_POSIX")
        label.timeZone = zone
        label.dateFormat = unit == "hour" ? "MM/dd HH:00" : "yyyy/MM/dd"
        printLine("steps per \(unit) (\(zone.identifier))")
        StepChart.lines(filled, label: { label.string(from: $0) }).forEach { printLine($0) }
    }
}
