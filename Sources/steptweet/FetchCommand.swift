import Agent
import Analysis
import ArgumentParser
import Foundation
import Messages
import Publishing
import WallTime

/// `--config PATH`, shared by every command that reads the configuration.
struct ConfigOptions: ParsableArguments {
    @Option(name: .long, help: "Configuration file (default: $XDG_CONFIG_HOME/steptweet/config.toml).") var config:
        String?

    var path: String { config ?? AgentConfiguration.defaultPath() }

    /// Loads the configuration or ends the command with status 78 and a message naming the file and key.
    func load(printingWarnings: Bool = true, schedules: Bool = false) throws -> AgentConfiguration {
        try Self.load(path: path, printingWarnings: printingWarnings, schedules: schedules)
    }

    /// Loads the configuration at `path`, printing its warnings unless told not to, or ends the command with status 78.
    /// The schedule's warnings are printed only by a command that `schedules` fetches.
    static func load(path: String, printingWarnings: Bool = true, schedules: Bool = false) throws -> AgentConfiguration
    {
        do {
            let configuration = try AgentConfiguration.load(path: path)
            if printingWarnings {
                let warnings = (schedules ? configuration.scheduleWarnings : []) + configuration.warnings
                for warning in warnings { printError("warning: \(path): \(warning)") }
            }
            return configuration
        } catch let e as ConfigurationError {
            throw fail(e.path.isEmpty ? "\(path): \(e.message)" : "\(path): \(e)", status: ExitStatus.config)
        } catch {
            throw fail("\(path): \(error)", status: ExitStatus.config)
        }
    }
}

/// `steptweet fetch`: one background fetch.
struct FetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Run one background fetch: ingest, count, compose, post; print NewData, NoData or Failed.",
        discussion: """
            Reads what is new in the source, stores the steps, closes the window and queues its post in the same \
            transaction, then delivers pending posts oldest first within the deadline. The last line is NewData, \
            NoData or `Failed: <reason>`.

            Exit status 0 for NewData and NoData; for Failed, by the kind of problem: 75 when it may succeed by \
            itself later (network, a server's 5xx or 429, the lock held, the deadline), 78 for configuration or \
            credential problems (a refused post, a source path that does not exist), 65 for a source that cannot be \
            read as its format, 77 for a state folder this user may not write, 73 for a state path that cannot be \
            created. Every Failed fetch is recorded in `steptweet history` (missing credentials too), unless the \
            state database itself cannot be written; a configuration file that cannot be read stops before any \
            fetch (78, nothing to record).

            With --json the output is one JSON document holding the result (docs/json.md); with --quiet nothing is \
            printed unless the fetch Failed (for cron, which mails any output).

            Examples:
              steptweet fetch --config ~/.config/steptweet/config.toml --json
              steptweet fetch --dry-run --now 2026-11-21T10:30
            """
    )

    @OptionGroup var configOptions: ConfigOptions
    @Flag(help: "Change nothing: show what would be posted.") var dryRun = false
    @Option(
        help: ArgumentHelp(
            "The fetch time (ISO 8601; without an offset, in text.time_zone), for replays and tests; default: now.",
            valueName: "TIME"), transform: TimeArgument.parse) var now: TimeArgument?
    @Flag(help: "Print one JSON document: result, window, steps, texts and per-target outcomes.") var json = false
    @Flag(name: .shortAndLong, help: "Print nothing unless the fetch Failed (errors only, for cron).") var quiet = false
    @Option(
        help: ArgumentHelp(
            "With --dry-run: write each window's chart to DIR/<idempotency key>.png (created if missing, not its parents) and show its alt text, as a target with image = \"chart\" would post them.",
            valueName: "DIR")) var imageDir: String?

    func validate() throws {
        if json && quiet { throw ValidationError("--json and --quiet exclude each other") }
        if imageDir != nil && !dryRun {
            throw ValidationError("--image-dir shows what a dry run would post: add --dry-run")
        }
    }

    func run() async throws {
        // --quiet is for cron, which mails any output: a configuration warning would come with every run.
        var config = try configOptions.load(printingWarnings: !quiet)
        let at = now?.date(in: config.composer.timeZone) ?? WallClock.system.now()
        // The stdout target writes through the console; with --json to standard error, keeping standard output one
        // JSON document.
        let console = Console.current
        let write = json ? console.error : console.output
        config.publishers = config.publishers.map {
            ($0 as? StdoutPublisher).map { StdoutPublisher(name: $0.name, write: write) } ?? $0
        }
        var fetcher = Fetcher(configuration: config, clock: ContinuousClock())
        // Benchmarks (bench/exactly_once.py) make slices small so that kills land inside sliced ingestion.
        if let bytes = ProcessInfo.processInfo.environment["STEPTWEET_SLICE_BYTES"].flatMap(Int64.init), bytes > 0 {
            fetcher.sliceBytes = bytes
        }
        if imageDir != nil { fetcher.drawsCharts = true }
        let report = await fetcher.fetch(now: Instant(at), trigger: [.manual], dryRun: dryRun)
        let imageFiles = try imageDir.map { try writeImages(report, into: $0) } ?? [:]
        if quiet {
            if report.result == .failed { printError(report.line) }
        } else {
            printReport(report, zone: config.composer.timeZone, json: json, imageFiles: imageFiles)
        }
        if report.result == .failed { throw ExitCode(ExitStatus.of(report.failureKind)) }
    }

    /// Writes the dry run's charts as `<idempotency key>.png` in `directory`; the paths by key. A folder or file that
    /// cannot be written ends the command with 73 and its path.
    func writeImages(_ report: FetchReport, into directory: String) throws -> [String: String] {
        if mkdir(directory, 0o755) != 0 && errno != EEXIST {
            throw fail(
                "cannot create the image folder \(directory): \(String(cString: strerror(errno)))",
                status: ExitStatus.cantCreate)
        }
        var files: [String: String] = [:]
        for window in report.windows {
            guard let image = report.charts[window.idempotencyKey] else { continue }
            let path = (directory as NSString).appendingPathComponent(window.idempotencyKey + ".png")
            if let reason = WholeFile.write(image.png, to: path) {
                throw fail("cannot write the chart to \(path): \(reason)", status: ExitStatus.cantCreate)
            }
            files[window.idempotencyKey] = path
        }
        return files
    }
}

/// JSON form of a fetch report.
struct FetchJSON: Encodable {
    struct Window: Encodable {
        var start: String
        var end: String
    }
    struct Target: Encodable {
        var target: String
        var outcome: String
        var idempotencyKey: String
        var window: Window
        var remoteId: String?
        var reason: String?
        /// E.g. posted without its image; absent when there is nothing to say.
        var note: String?
    }
    var result: String
    var reason: String?
    /// For Failed: temporary, input or configuration (the exit status follows it).
    var failureKind: String?
    var trigger: String
    var now: String
    var dryRun: Bool
    var window: Window?
    var steps: Int?
    /// Steps posted by this fetch that arrived after the window covering their time was posted; absent when none.
    var lateSteps: Int?
    var text: String?
    var posts: [PostJSON]
    var deliveries: [Target]
    var elapsedMs: Double
    /// Saved state the fetch could not read and worked around; absent when none.
    var warnings: [String]?
    struct PostJSON: Encodable {
        var window: Window
        var steps: Int
        var lateSteps: Int?
        var text: String
        var idempotencyKey: String
        /// The chart's alt text, when the window's chart was drawn; absent otherwise.
        var imageAlt: String?
        /// Where `--image-dir` wrote the chart; absent otherwise.
        var imageFile: String?
    }

    init(_ r: FetchReport, zone: TimeZone, imageFiles: [String: String] = [:]) {
        let f = { (d: Date) in Timestamps.format(d, zone: zone) }
        result = r.result.rawValue
        reason = r.reason
        failureKind = r.failureKind?.rawValue
        trigger = r.trigger.description
        now = f(r.now.date)
        dryRun = r.dryRun
        if let w = r.window { window = Window(start: f(w.start.date), end: f(w.end.date)) }
        steps = r.steps
        lateSteps = r.lateSteps == 0 ? nil : r.lateSteps
        text = r.windows.last?.text
        elapsedMs = (r.elapsedMs * 10).rounded() / 10
        warnings = r.warnings.isEmpty ? nil : r.warnings
        posts = r.windows.map {
            PostJSON(
                window: Window(start: f($0.span.start.date), end: f($0.span.end.date)), steps: $0.steps,
                lateSteps: $0.lateSteps == 0 ? nil : $0.lateSteps, text: $0.text,
                idempotencyKey: $0.idempotencyKey, imageAlt: $0.imageAlt, imageFile: imageFiles[$0.idempotencyKey])
        }
        deliveries = r.deliveries.map {
            Target(
                target: $0.target, outcome: $0.outcome.rawValue, idempotencyKey: $0.window.idempotencyKey,
                window: Window(start: f($0.window.span.start.date), end: f($0.window.span.end.date)),
                remoteId: $0.remoteID,
                reason: $0.reason, note: $0.note)
        }
    }
}

/// Prints a fetch report: window, texts, deliveries, then the result as the last line. Servers' messages and errors
/// from input files are shown with control characters escaped.
/// A window's chart shows as its file (`imageFiles`, by key) and its alt text.
func printReport(_ r: FetchReport, zone: TimeZone, json: Bool, imageFiles: [String: String] = [:]) {
    let f = { (d: Date) in Timestamps.format(d, zone: zone) }
    if json {
        printLine(jsonLine(FetchJSON(r, zone: zone, imageFiles: imageFiles)))
        return
    } else {
        for w in r.warnings { printError(TerminalText.escaped("warning: \(w)")) }
        if let w = r.window {
            printLine(
                "window: \(f(w.start.date)) 〜 \(f(w.end.date)), \(r.steps ?? 0) steps"
                    + (r.lateSteps != 0 ? " (\(r.lateSteps) late)" : ""))
        }
        for w in r.windows {
            printLine(r.dryRun ? "would post: \(w.text)" : "queued: \(w.text)")
            if let file = imageFiles[w.idempotencyKey] { printLine("image: \(file)") }
            if let alt = w.imageAlt { printLine("alt: \(alt)") }
        }
        var targets: [String] = []
        for d in r.deliveries where d.outcome == .dryRun && !targets.contains(d.target) { targets.append(d.target) }
        if !targets.isEmpty { printLine(TerminalText.escaped("would post to: \(targets.joined(separator: ", "))")) }
        for d in r.deliveries where d.outcome != .dryRun {
            printLine(
                TerminalText.escaped(
                    "\(d.target): \(d.outcome)" + (d.remoteID.map { " (id \($0))" } ?? "")
                        + (d.reason.map { ": \($0)" } ?? "") + (d.note.map { " (\($0))" } ?? "")))
        }
    }
    printLine(TerminalText.escaped(r.line))
}
