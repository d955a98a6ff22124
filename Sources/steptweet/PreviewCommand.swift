import Agent
import Analysis
import ArgumentParser
import Foundation
import Messages
import Publishing
import SensorInput
import Store
import WallTime

/// `steptweet preview`: the text a fetch would post for a window of a recording, without posting.
struct PreviewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "preview",
        abstract: "Show the text that would be posted for the steps of a recording or step log in a window.",
        discussion: """
            The window runs from --start to --now (default: the current time). A recording whose times are relative \
            (e.g. t_ms from 0) is taken to begin at --recording-start, or else at --start. Every input format is \
            accepted: acceleration is run through the step detector; step readings (step logs, Apple Health, Fitbit, \
            ActiGraph epochs, Pedometer.csv) are summed, a reading that straddles an edge of the window counted pro \
            rata (its steps spread evenly over its interval).

            Examples:
              steptweet preview --source walk.csv --time-zone Asia/Tokyo \\
                --start 2026-11-21T10:00 --now 2026-11-21T10:30
              steptweet preview --config config.toml --start 2026-11-21
            """
    )

    @Option(
        help: ArgumentHelp(
            "Read the text settings (template, device, time zone) and, when --source is not given, the source and its start from this configuration file.",
            valueName: "FILE"))
    var config: String?
    @Option(help: "The recording or step log to count (default with --config: source.path).") var source: String?
    @Option(help: ArgumentHelp("Start of the window (ISO 8601).", valueName: "TIME"), transform: TimeArgument.parse)
    var start: TimeArgument
    @Option(
        help: ArgumentHelp("End of the window (ISO 8601); default: now.", valueName: "TIME"),
        transform: TimeArgument.parse) var now: TimeArgument?
    @Option(
        help: ArgumentHelp(
            "Wall-clock time of the recording's first sample when its times are relative (ISO 8601; default with --config: source.start, else --start).",
            valueName: "TIME"), transform: TimeArgument.parse)
    var recordingStart: TimeArgument?
    @Option(
        help:
            "IANA time zone for the dates in the text and for times without an offset (default: the configuration's text.time_zone, else the system's)."
    )
    var timeZone: String?
    @Option(help: "Device name in the text (default: the configuration's, else iPhone 5s).") var device: String?
    @Option(help: "Text template or preset name (default: the configuration's, else the seed text).") var template:
        String?
    @Option(
        help: ArgumentHelp(
            "Also write the window's chart to this PNG and print its alt text, as a target with image = \"chart\" would post them (style and goal: the configuration's text.chart_style and text.goal).",
            valueName: "out.png")) var image: String?
    @OptionGroup var contents: FormatOptions

    /// Checked while parsing, so that a refused name is shown with this command's usage.
    func validate() throws {
        if let timeZone { _ = try parseZone(timeZone) }
    }

    /// Why there is no file to preview: no configuration, one whose source is a live device, or one without a
    /// `[source]` (phones push to its receiver).
    static func noSourceFile(_ configuration: AgentConfiguration?) -> String {
        guard let configuration else { return "give --source FILE, or --config FILE with a source.path" }
        if configuration.source != nil { return "--source: the configuration reads a live device; give --source FILE" }
        if configuration.receive != nil {
            return
                "--source: the configuration has no [source] file (its steps come from phones, through [receive]); give --source FILE"
        }
        return "--source: the configuration has no [source] file; give --source FILE"
    }

    func run() throws {
        let configuration = try config.map { try ConfigOptions.load(path: $0) }
        let base = configuration?.composer
        let zone = try timeZone.map(parseZone) ?? base?.timeZone ?? systemTimeZone
        let from = start.date(in: zone)
        let to = now?.date(in: zone) ?? WallClock.system.now()
        guard to > from else { throw fail("--now must be after --start", status: ExitStatus.usage) }
        guard let source = source ?? configuration?.source.flatMap({ $0.isDevice ? nil : $0.path }) else {
            throw fail(Self.noSourceFile(configuration), status: ExitStatus.usage)
        }
        let anchor =
            recordingStart?.date(in: zone)
            ?? (source == configuration?.source?.path ? configuration?.source?.start : nil) ?? from
        let composer: MessageComposer
        do {
            composer = try MessageComposer(
                template: try template.map { try Template.presetOrTemplate($0) } ?? base?.template
                    ?? Template(Template.seed),
                device: device ?? base?.device ?? MessageComposer.defaultDevice,
                dateFormat: base?.dateFormat ?? MessageComposer.defaultDateFormat,
                timeZone: zone.identifier, locale: base?.locale.identifier ?? "en_US_POSIX")
        } catch {
            throw fail("--template: \(error)", status: ExitStatus.config)
        }
        let result: RecordingCount
        do {
            var options = ReadOptions.withSQLiteExports()
            (options.strict, options.format, options.rateHz) = (contents.strict, contents.format, contents.rate)
            options.start = Instant(anchor)
            options.progress = true
            options.timeZone = zone
            result = try RecordingCounter.count(path: source, options: options, keepStepTimes: true)
        } catch let error as InputError {
            throw fail(error.description, status: ExitStatus.of(error))
        }
        for issue in result.summary.issues { printError("warning: skipped \(issue)") }
        let span = TimeWindow(start: from, end: to)
        var window = StepWindow(
            span, steps: result.steps(from: span.start, to: span.end),
            bouts: result.bouts.filter { span.contains($0.end) }.count,
            previousSteps: result.steps(from: span.previous.start, to: span.start))
        let minutes = result.stepsPerMinute(from: span.start, to: span.end)
        window.busiest = WindowChart.busiestPeriod(readings: minutes, in: span, zone: zone)
        printLine(composer.compose(window))
        guard let image else { return }
        let chart: PostImage
        do {
            chart = try WindowChart.image(
                WindowActivity(window: window, readings: minutes, bouts: result.bouts), composer: composer,
                options: configuration?.chart ?? WindowChartOptions())
        } catch {
            throw fail(error.description, status: ExitStatus.unavailable)
        }
        if let reason = WholeFile.write(chart.png, to: image) {
            throw fail("cannot write the chart to \(image): \(reason)", status: ExitStatus.cantCreate)
        }
        printLine("alt: \(chart.alt)")
    }
}
