import Foundation
import Messages
import Publishing
import SensorInput
import TOMLKit

/// Everything `steptweet.toml` says, checked when loaded: unknown keys, wrong types and bad values are
/// `ConfigurationError`s naming the key (e.g. `schedule.intervall: unknown key`).
public struct AgentConfiguration: Sendable {
    /// `[source]`: where samples or step readings come from.
    public struct Source: Sendable, Equatable {
        /// A recording or log file (`path`) or a device node (`device`); exactly one is set.
        public var path: String
        public var isDevice = false
        /// Requested input format name (nil: detected from the data).
        public var format: String?
        /// Wall-clock time of the first sample for recordings whose times are relative.
        public var start: Date?
        /// Whether the file keeps growing (tail it) or is complete (the detector finishes its bouts at its end).
        public var follow = false
        /// Sources to count when several cover the same time (Apple Health source names, Gadgetbridge device names
        /// or aliases), first present wins; empty: the one with the most steps (`source.prefer`, comma-separated).
        public var prefer: [String] = []
        /// A hardware step counter read at each fetch into the step log at `path` (set by `source.device`).
        public var stepCounter: StepCounterDevice?
        /// A live accelerometer the agent samples into the CSV at `path` (set by `source.device`).
        public var accelerometer: AccelerometerDevice?

        public init(
            path: String, isDevice: Bool = false, format: String? = nil, start: Date? = nil, follow: Bool = false
        ) {
            self.path = path
            self.isDevice = isDevice
            self.format = format
            self.start = start
            self.follow = follow
        }
    }

    /// How often fetches run.
    public enum Interval: Sendable, Equatable, CustomStringConvertible {
        /// As often as the `minimum` floor allows (UIApplicationBackgroundFetchIntervalMinimum).
        case minimum
        /// Never (UIApplicationBackgroundFetchIntervalNever): the agent stays up and fetches nothing.
        case never
        case every(TimeInterval)
        case cron(CronSchedule)

        public var description: String {
            switch self {
            case .minimum: return "minimum"
            case .never: return "never"
            case .every(let s): return Durations.format(s)
            case .cron(let c): return c.description
            }
        }
    }

    /// Which period a post covers.
    public enum WindowPolicy: Sendable, Equatable, CustomStringConvertible {
        /// From the end of the last posted window to the fetch (the seed's behaviour).
        case sinceLast
        /// Whole periods of this length, aligned in the text's time zone (`1h`, `1d`).
        case aligned(TimeInterval)

        public var description: String {
            switch self {
            case .sinceLast: return "since-last"
            case .aligned(let s): return Durations.format(s)
            }
        }
    }

    /// `[schedule]`.
    public struct Schedule: Sendable, Equatable {
        public var interval: Interval = .minimum
        /// Floor between two scheduled fetches.
        public var minimum: TimeInterval = 600
        /// Budget of one fetch.
        public var deadline: TimeInterval = 30
        public var window: WindowPolicy = .sinceLast
        /// Post windows with zero steps too.
        public var postZero = false
        /// Largest random delay added to each scheduled fetch.
        public var jitter: TimeInterval = 30
        /// Also fetch when a walking bout ends (once per bout).
        public var onWalkEnd = false

        /// The interval fetches really follow: `interval`, raised to `minimum` when it is shorter.
        public var effectiveInterval: String {
            if case .every(let d) = interval, d < minimum {
                return "\(Durations.format(minimum)) (interval \(Durations.format(d)) raised to schedule.minimum)"
            }
            return interval.description
        }
    }

    /// The file this configuration came from.
    public var file: String
    public var source: Source?
    public var schedule = Schedule()
    public var composer: MessageComposer
    /// One entry per `[[publish]]` table, in order (a stdout target when there is none).
    public var publishers: [any Publisher]
    /// Why publishing cannot work (missing credentials); fetches are refused and the agent idles while set.
    public var publishingProblem: String?
    /// With `publishingProblem`: the names of the targets, which a dry run lists (it needs no credentials).
    public var targetsWithoutCredentials: [String] = []
    /// Things worth a warning that do not stop anything (e.g. a secret file readable by others).
    public var warnings: [String] = []
    public var statePath: String
    public var push: Push?
    public var receive: Receive?

    /// Default config file: `$XDG_CONFIG_HOME/steptweet/config.toml` (or `~/.config/...`).
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let base =
            environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.config"
        return base + "/steptweet/config.toml"
    }

    /// Default state database: `$XDG_STATE_HOME/steptweet/state.sqlite` (or `~/.local/state/...`).
    public static func defaultStatePath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let base =
            environment["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/state"
        return base + "/steptweet/state.sqlite"
    }

    /// Reads and checks the file at `path`.
    public static func load(path: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws
        -> AgentConfiguration
    {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError(
                path: "", message: "cannot read configuration file \(path) (run `steptweet init` to write a sample)")
        }
        return try parse(String(decoding: data, as: UTF8.self), file: path, environment: environment)
    }

    static let sections: [String: Set<String>] = [
        "source": [
            "path", "device", "sys_root", "dev_root", "sampling", "rate", "format", "start", "follow", "prefer",
        ],
        "schedule": ["interval", "minimum", "deadline", "window", "post_zero", "jitter", "on_walk_end", "settle"],
        "text": ["template", "preset", "date_format", "time_zone", "device", "locale"],
        "state": ["path"],
        "push": ["port", "token_env", "token_file", "period"],
        "receive": receiveKeys,
    ]

    /// `parse(_:file:environment:)` without the line numbers its errors get from the text (TableReader.swift).
    static func parseTables(_ text: String, file: String, environment: [String: String]) throws -> AgentConfiguration {
        let root = try ConfigTable.parseDocument(text)
        let base = URL(fileURLWithPath: file).deletingLastPathComponent()
        let reader = TableReader(root: root)
        try reader.checkSections(Set(sections.keys).union(["publish"]))
        for (name, keys) in sections { try reader.checkKeys(name, allowed: keys) }

        let composer = try readComposer(reader)
        let (fileSource, device) = try readSource(reader, base: base, zone: composer.timeZone)
        let (schedule, intervalWarning) = try readSchedule(reader)

        // [state]
        let statePath =
            try reader.string("state", "path").map { resolve($0, against: base) }
            ?? defaultStatePath(environment: environment)
        var source = fileSource
        if let device, let s = fileSource {
            source = try resolveDevice(device, source: s, reader: reader, statePath: statePath)
        }
        let (push, pushWarnings) = try readPush(reader, environment: environment, base: base)
        let (receive, receiveWarnings) = try readReceive(reader, environment: environment, base: base)
        let targets = try readPublishers(root, environment: environment, base: base, statePath: statePath)
        var configuration = AgentConfiguration(
            file: file, source: source, schedule: schedule, composer: composer,
            publishers: targets.publishers, publishingProblem: targets.problem, statePath: statePath, push: push)
        configuration.targetsWithoutCredentials = targets.withoutCredentials
        configuration.receive = receive
        configuration.warnings =
            (intervalWarning.map { [$0] } ?? []) + pushWarnings + receiveWarnings + targets.warnings
        return configuration
    }

    /// `[source]`: a file path or a device name (resolved later, when the state folder is known). A `start` without
    /// an offset is read in `zone` (`text.time_zone`), as every time without an offset is.
    static func readSource(_ reader: TableReader, base: URL, zone: TimeZone) throws -> (
        source: Source?, device: String?
    ) {
        var source: Source?
        let path = try reader.string("source", "path")
        let device = try reader.string("source", "device")
        if path != nil && device != nil {
            throw ConfigurationError(path: "source", message: "set either path or device, not both")
        }
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
            s.follow = try reader.bool("source", "follow") ?? (device != nil)
            s.prefer =
                (try reader.string("source", "prefer"))?.split(separator: ",")
                .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } ?? []
            source = s
        }
        return (source, device)
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
            default:
                throw ConfigurationError(
                    path: "schedule.window", message: "'\(w)' is not \"since-last\", \"1h\" or \"1d\"")
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
            switch preset {
            case "seed", "ja": template = Template.seed
            case "english", "en": template = Template.english
            default:
                throw ConfigurationError(path: "text.preset", message: "'\(preset)' is not \"seed\" or \"english\"")
            }
        }
        if let t = try reader.string("text", "template") { template = t }
        let zone = try reader.string("text", "time_zone") ?? "UTC"
        let composer: MessageComposer
        do {
            composer = try MessageComposer(
                template: try Template(template),
                device: try reader.string("text", "device") ?? MessageComposer.defaultDevice,
                dateFormat: try reader.string("text", "date_format") ?? MessageComposer.defaultDateFormat,
                timeZone: zone,
                locale: try reader.string("text", "locale") ?? "en_US_POSIX")
        } catch let e as TemplateError {
            throw ConfigurationError(path: "text.template", message: e.description)
        } catch let e as ComposerError {
            throw ConfigurationError(path: "text.time_zone", message: e.description)
        }
        return composer
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
            return "no [source] or [receive] configured (set source.path or source.device, or [receive])"
        }
        if source == nil, let receive, receive.token == nil {
            return "the receiver has no token: \(receive.tokenProblem ?? "set receive.token_env or token_file")"
        }
        return nil
    }
}
