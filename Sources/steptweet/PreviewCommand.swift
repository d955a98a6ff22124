import Agent
import ArgumentParser
import Foundation
import Messages
import SensorInput

/// `steptweet preview`: the text a fetch would post for a window of a recording, without posting.
struct PreviewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "preview",
        abstract: "Show the text that would be posted for the steps of a recording or step log in a window.",
        discussion: """
            The window runs from --start to --now (default: the current time). A recording whose times are relative
            (e.g. t_ms from 0) is taken to begin at --recording-start, or else at --start. Every input format is
            accepted: acceleration is run through the step detector; step readings (step logs, Apple Health, Fitbit,
            ActiGraph epochs, Pedometer.csv) are summed, a reading that straddles an edge of the window counted pro
            rata (its steps spread evenly over its interval).

            Example: steptweet preview --source walk.csv --start 2026-11-21T10:00:00+09:00 --now 2026-11-21T10:30:00+09:00 --time-zone Asia/Tokyo
            """
    )

    @Option(help: "The recording or step log to count.") var source: String
    @Option(help: "Start of the window (ISO 8601).") var start: String
    @Option(help: "End of the window (ISO 8601); default: now.") var now: String?
    @Option(help: "Wall-clock time of the recording's first sample when its times are relative (ISO 8601).")
    var recordingStart: String?
    @Option(help: "IANA time zone for the dates in the text.") var timeZone = "UTC"
    @Option(help: "Device name in the text.") var device = MessageComposer.defaultDevice
    @Option(help: "Text template.") var template = Template.seed
    @Option(help: ArgumentHelp("Read the input as this format instead of detecting it.", valueName: "NAME"))
    var format: String?
    @Option(help: ArgumentHelp("Sampling rate for inputs without a time column.", valueName: "HZ")) var rate: Double?
    @Flag(help: "Stop with an error at the first malformed line instead of skipping it.") var strict = false

    func run() throws {
        let zone = try parseZone(timeZone)
        let from = try parseTime(start, option: "--start", zone: zone)
        let to = try now.map { try parseTime($0, option: "--now", zone: zone) } ?? Date()
        guard to > from else { throw ValidationError("--now must be after --start") }
        let anchor = try recordingStart.map { try parseTime($0, option: "--recording-start", zone: zone) } ?? from
        if let format, InputFormats.named(format) == nil {
            throw ValidationError("--format: unknown format '\(format)'; known: \(InputFormats.names.joined(separator: ", "))")
        }
        let composer: MessageComposer
        do {
            composer = try MessageComposer(template: try Template(template), device: device, timeZone: timeZone)
        } catch {
            throw fail("--template: \(error)", status: ExitStatus.config)
        }
        let result: RecordingCount
        do {
            var options = ReadOptions(strict: strict, startNs: Timestamps.nanoseconds(anchor), format: format, rateHz: rate)
            options.progress = true
            result = try RecordingCounter.count(path: source, options: options, keepStepTimes: true)
        } catch let error as InputError {
            throw fail(error.description, status: ExitStatus.dataError)
        }
        for issue in result.summary.issues { printError("warning: skipped \(issue)") }
        let steps = result.steps(fromNs: Timestamps.nanoseconds(from), toNs: Timestamps.nanoseconds(to))
        print(composer.compose(StepWindow(start: from, end: to, steps: steps)))
    }
}
