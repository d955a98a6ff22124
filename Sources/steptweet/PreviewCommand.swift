import Agent
import ArgumentParser
import Foundation
import Messages
import SensorInput

/// `steptweet preview`: the text a fetch would post for a window of a recording, without posting.
struct PreviewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "preview",
        abstract: "Show the text that would be posted for the steps of a recording in a window.",
        discussion: """
            The window runs from --start to --now (default: the current time). A recording whose times are relative
            (e.g. t_ms from 0) is taken to begin at --recording-start, or else at --start.

            Example: steptweet preview --source walk.csv --start 2026-11-21T10:00:00+09:00 --now 2026-11-21T10:30:00+09:00 --time-zone Asia/Tokyo
            """
    )

    @Option(help: "The recording to count.") var source: String
    @Option(help: "Start of the window (ISO 8601).") var start: String
    @Option(help: "End of the window (ISO 8601); default: now.") var now: String?
    @Option(help: "Wall-clock time of the recording's first sample when its times are relative (ISO 8601).")
    var recordingStart: String?
    @Option(help: "IANA time zone for the dates in the text.") var timeZone = "UTC"
    @Option(help: "Device name in the text.") var device = MessageComposer.defaultDevice
    @Option(help: "Text template.") var template = Template.seed

    func run() throws {
        let zone = try parseZone(timeZone)
        let from = try parseTime(start, option: "--start", zone: zone)
        let to = try now.map { try parseTime($0, option: "--now", zone: zone) } ?? Date()
        guard to > from else { throw ValidationError("--now must be after --start") }
        let anchor = try recordingStart.map { try parseTime($0, option: "--recording-start", zone: zone) } ?? from
        let composer: MessageComposer
        do {
            composer = try MessageComposer(template: try Template(template), device: device, timeZone: timeZone)
        } catch {
            throw fail("--template: \(error)", status: ExitStatus.config)
        }
        let result: RecordingCount
        do {
            result = try RecordingCounter.count(path: source, options: ReadOptions(startNs: Timestamps.nanoseconds(anchor)),
                                                keepStepTimes: true)
        } catch let error as InputError {
            throw fail(error.description, status: ExitStatus.dataError)
        }
        for issue in result.summary.issues { printError("warning: skipped \(issue)") }
        let lo = Timestamps.nanoseconds(from), hi = Timestamps.nanoseconds(to)
        let steps = result.stepTimes.filter { $0 >= lo && $0 < hi }.count
        print(composer.compose(StepWindow(start: from, end: to, steps: steps)))
    }
}
