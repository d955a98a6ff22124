import Analysis
import Foundation
import Messages
import Publishing
import SensorInput
import TOMLKit

/// Reading each table of `steptweet.toml` (`[source]`, `[schedule]`, `[text]`, `[push]`, `[[publish]]`) into its part
/// of `AgentConfiguration`.
extension AgentConfiguration {
    /// `[source]`: a file path or a device name (resolved later, when the state folder is known). A `start` without
    /// an offset is read in `zone` (`text.time_zone`), as every time without an offset is.
    static func readSource(_ reader: TableReader, base: URL, zone: TimeZone) throws -> (
        source: Source?, device: String?, prefer: [String]
    ) {
        var source: Source?
        // Also for the phones that push, so `[source]` may hold only `prefer` when `[receive]` is the only source.
        let prefer =
            (try reader.string("source", "prefer"))?.split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } ?? []
        let path = try reader.string("source", "path")
        let device = try reader.string("source", "device")
        if [path, device, try reader.string("source", "url")].compactMap({ $0 }).count > 1 {
            throw ConfigurationError(path: "source", message: "set one of path, device or url, not several")
        }
        if let phone = try readPhyphox(reader) { return (phone, nil, prefer) }
        if let p = path ?? device {
            var s = Source(path: resolve(p, against: base), isDevice: device != nil)
            s.format = try reader.string("source", "format")
            if let f = s.format, InputFormats.named(f) == nil {
                throw ConfigurationError(
                    path: "source.format",
                    message: "unknown format '\(f)'; known: " + InputFormats.names.joined(separator: ", "))
            }
            if let start = try reader.string("source", "start") {
                guard let d = Timestamps.parse(start, zone: zone) else {
                    throw ConfigurationError(
                        path: "source.start",
                        message: "'\(start)' is not an ISO 8601 time (e.g. 2026-11-21T10:00:00+09:00)")
                }
                s.start = d
            }
            if device == nil { s.rateHz = try readFileRate(reader) }
            s.follow = try reader.bool("source", "follow") ?? (device != nil)
            s.timeZone = zone
            s.prefer = prefer
            source = s
        }
        return (source, device, prefer)
    }

    /// `source.rate` with `source.path`: the rate of a recording without a time column (UCI HAR/HAPT), as `--rate`
    /// gives it to `count`. The keys that only a device reads are refused, not left unused.
    static func readFileRate(_ reader: TableReader) throws -> Double? {
        guard let table = try reader.section("source") else { return nil }
        for key in ["sampling", "sys_root", "dev_root"] where table.contains(key) {
            throw table.error(key, "applies to source.device only, not to a file (source.path)")
        }
        guard let rate = try table.number("rate") else { return nil }
        guard rate > 0, rate <= 100_000 else {
            throw table.error("rate", "\(rate) Hz is not a sampling rate between 0 and 100000 Hz")
        }
        return rate
    }

    /// `source.url`: phyphox's remote interface, an `http` or `https` address. The phone's buffers carry their own
    /// times (mapped to wall time by its `/time`) and their format is known, so the file keys do not apply; `follow`
    /// is allowed and always true (the phone goes on measuring).
    static func readPhyphox(_ reader: TableReader) throws -> Source? {
        guard let table = try reader.section("source"), let url = try table.url("url") else { return nil }
        for key in ["format", "start", "sampling", "rate"] where table.contains(key) {
            throw table.error(key, "does not apply to source.url (phyphox's buffers carry their own times)")
        }
        _ = try table.bool("follow")
        var remote = PhyphoxRemote(url: url)
        if let settle = try reader.duration("schedule", "settle") { remote.settle = settle }
        var source = Source(path: url.absoluteString, isDevice: true, follow: true)
        source.phyphox = remote
        return source
    }

    /// `[schedule]`, and a warning when the interval is below the floor.
    static func readSchedule(_ reader: TableReader) throws -> (schedule: Schedule, warning: String?) {
        var schedule = Schedule()
        var intervalWarning: String?
        if let m = try reader.duration("schedule", "minimum") { schedule.minimum = m }
        if let d = try reader.duration("schedule", "deadline") { schedule.deadline = d }
        if let j = try reader.string("schedule", "jitter") {
            guard j == "0" || j == "0s" || Durations.parse(j) != nil else {
                throw ConfigurationError(path: "schedule.jitter", message: "'\(j)' is not a duration such as 30s")
            }
            schedule.jitter = Durations.parse(j) ?? 0
        }
        if let i = try reader.string("schedule", "interval") {
            switch i {
            case "minimum": schedule.interval = .minimum
            case "never": schedule.interval = .never
            default:
                if let d = Durations.parse(i) {
                    schedule.interval = .every(d)
                } else if i.contains(" ") {
                    do { schedule.interval = .cron(try CronSchedule(i)) } catch {
                        throw ConfigurationError(path: "schedule.interval", message: error.description)
                    }
                } else {
                    throw ConfigurationError(
                        path: "schedule.interval",
                        message:
                            "'\(i)' is not \"minimum\", \"never\", a duration like \"15m\" or a cron expression like \"0 21 * * *\""
                    )
                }
            }
        }
        if case .every(let d) = schedule.interval, d < schedule.minimum {
            intervalWarning =
                "schedule.interval \"\(Durations.format(d))\" is below schedule.minimum \"\(Durations.format(schedule.minimum))\": fetches run every \(Durations.format(schedule.minimum)) at most"
        }
        if let w = try reader.string("schedule", "window") {
            switch w {
            case "since-last": schedule.window = .sinceLast
            case "1h": schedule.window = .aligned(3600)
            case "1d": schedule.window = .aligned(86_400)
            case "7d": schedule.window = .aligned(7 * 86_400)
            default:
                throw ConfigurationError(
                    path: "schedule.window", message: "'\(w)' is not \"since-last\", \"1h\", \"1d\" or \"7d\"")
            }
        }
        schedule.postZero = try reader.bool("schedule", "post_zero") ?? false
        schedule.onWalkEnd = try reader.bool("schedule", "on_walk_end") ?? false
        return (schedule, intervalWarning)
    }

    /// `[text]`: the template and how dates are written.
    static func readComposer(_ reader: TableReader) throws -> MessageComposer {
        var template = Template.seed
        if let preset = try reader.string("text", "preset") {
            guard let text = Template.presets[preset] else {
                throw ConfigurationError(
                    path: "text.preset",
                    message: "'\(preset)' is not a preset; known: "
                        + Template.presets.keys.sorted().map { "\"\($0)\"" }.joined(separator: ", "))
            }
            template = text
        }
        if let t = try reader.string("text", "template") { template = t }
        let zone = try reader.string("text", "time_zone") ?? "UTC"
        let locale = try reader.string("text", "locale")
        let composer: MessageComposer
        do {
            composer = try MessageComposer(
                template: try Template(template),
                device: try reader.string("text", "device") ?? MessageComposer.defaultDevice,
                dateFormat: try reader.string("text", "date_format") ?? MessageComposer.defaultDateFormat,
                timeZone: zone,
                locale: locale ?? "en_US_POSIX", language: locale.map(TextLanguage.init(locale:)))
        } catch let e as TemplateError {
            throw ConfigurationError(path: "text.template", message: e.description)
        } catch let e as ComposerError {
            throw ConfigurationError(path: "text.time_zone", message: e.description)
        }
        return composer
    }

    /// `text.goal` and `text.chart_style`: how the window's chart looks.
    static func readChart(_ reader: TableReader) throws -> WindowChartOptions {
        var chart = WindowChartOptions()
        chart.goal = try reader.section("text")?.int("goal", range: 1...10_000_000)
        if let style = try reader.string("text", "chart_style") {
            guard let known = WindowChartOptions.Style(rawValue: style) else {
                throw ConfigurationError(path: "text.chart_style", message: "'\(style)' is not \"light\" or \"dark\"")
            }
            chart.style = known
        }
        return chart
    }

    /// A summary preset whose window is not the period it sums up (`daily` with hourly windows): worth a warning, as
    /// its words ("the day before") would not match what is posted.
    static func presetWarning(_ reader: TableReader, window: WindowPolicy) throws -> String? {
        guard let preset = try reader.string("text", "preset") else { return nil }
        let expected: (String, TimeInterval)? =
            preset.hasPrefix("daily") ? ("1d", 86_400) : preset.hasPrefix("weekly") ? ("7d", 7 * 86_400) : nil
        guard let (name, length) = expected, window != .aligned(length) else { return nil }
        return "text.preset \"\(preset)\" sums up aligned periods: set schedule.window = \"\(name)\" "
            + "(it is \"\(window)\")"
    }

    /// `source.device` resolved to a step counter or an accelerometer, its log or samples beside the state.
    static func resolveDevice(_ device: String, source: Source, reader: TableReader, statePath: String) throws -> Source
    {
        var s = source
        let roots = DeviceRoots(
            sys: try reader.string("source", "sys_root") ?? "/sys",
            dev: try reader.string("source", "dev_root") ?? "/dev")
        let stateDirectory = (statePath as NSString).deletingLastPathComponent
        switch try SourceDevice.resolve(
            device, roots: roots, sampling: try reader.string("source", "sampling"),
            rateHz: try reader.number("source", "rate"), stateDirectory: stateDirectory)
        {
        case .stepCounter(let counter):
            s.stepCounter = counter
            s.path = counter.logPath
            s.format = "steplog"
        case .accelerometer(let accelerometer):
            s.accelerometer = accelerometer
            s.path = accelerometer.samplePath
            s.format = "generic-csv"
        }
        s.follow = true
        return s
    }

    static func resolve(_ path: String, against base: URL) -> String {
        if path.hasPrefix("/") { return path }
        if path.hasPrefix("~/") { return NSHomeDirectory() + String(path.dropFirst(1)) }
        return base.appendingPathComponent(path).standardizedFileURL.path
    }

    /// Why the agent fetches nothing, or nil when it fetches.
    public var disabledReason: String? {
        if schedule.interval == .never { return "schedule.interval is \"never\"" }
        if let publishingProblem { return "missing credentials: \(publishingProblem)" }
        if source == nil && receive == nil {
            return "no [source] or [receive] configured (set source.path, source.device or source.url, or [receive])"
        }
        if source == nil, let receive, receive.token == nil {
            return "the receiver has no token: \(receive.tokenProblem ?? "set receive.token_env or token_file")"
        }
        return nil
    }
}
