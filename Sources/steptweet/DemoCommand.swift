import Agent
import ArgumentParser
import Foundation
import Messages
import SensorInput
import WallTime

/// `steptweet demo`: the main job on embedded defaults.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Replay a committed walk recording as if live and run background fetches on a virtual clock.",
        discussion: """
            Needs no configuration and no network: the recording is replayed into a growing file, each fetch stores \
            its state in a temporary SQLite file and posts to an in-process HTTP endpoint on 127.0.0.1, which \
            refuses one post on purpose; the next fetch delivers it from the outbox.

            Example:
              steptweet demo
            """
    )

    @Option(help: "Recording to replay (default: a copy of fixtures/demo_walk_50hz.csv built into steptweet).")
    var recording: String?
    @Option(help: "IANA time zone for the texts.") var timeZone = "Asia/Tokyo"
    @Option(
        help: ArgumentHelp(
            "Start of the virtual clock (ISO 8601; without an offset, in --time-zone).", valueName: "TIME"),
        transform: TimeArgument.parse)
    var start = TimeArgument(argument: "2026-11-21T10:00:00+09:00")!

    /// Checked while parsing, so that a refused name is shown with this command's usage.
    func validate() throws {
        _ = try parseZone(timeZone)
    }

    func run() async throws {
        let zone = try parseZone(timeZone)
        let startDate = start.date(in: zone)
        let source = recording.map(DemoRunner.Recording.file) ?? .embedded
        let composer = try MessageComposer(template: try Template(Template.seed), timeZone: timeZone)
        let clock = DateFormatter()
        clock.locale = Locale(identifier: "en_US_POSIX")
        clock.timeZone = zone
        clock.dateFormat = "MM/dd HH:mm:ss"
        printLine(
            "demo: replaying \(source.name) on a virtual clock from \(Timestamps.format(startDate, zone: zone)) (\(timeZone))"
        )
        var n = 0
        do {
            let kept = try await DemoRunner(recording: source, composer: composer, start: startDate).run(prepared: {
                url, state in
                printLine("demo: posting to the loopback endpoint \(url.absoluteString); state in \(state)")
            }) { r in
                n += 1
                printLine("fetch \(n) at \(clock.string(from: r.at))")
                printLine(
                    "  window: \(clock.string(from: r.window.span.start.date)) 〜 \(clock.string(from: r.window.span.end.date)), \(r.window.steps) steps"
                )
                if let text = r.text { printLine("  text:   \(text)") }
                for d in r.deliveries { printLine("  post:   \(d)") }
                printLine("  result: \(r.result)")
            }
            let keys = Set(kept.map(\.key))
            printLine("endpoint: kept \(kept.count) post(s), \(kept.count - keys.count) duplicate(s)")
        } catch let error as InputError {
            // A recording named with --recording that is missing or unreadable is 66, as for every other command.
            throw fail("demo: \(error)", status: ExitStatus.of(error))
        } catch {
            throw fail("demo: \(error)", status: ExitStatus.dataError)
        }
    }
}
