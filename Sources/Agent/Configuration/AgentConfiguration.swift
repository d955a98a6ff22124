import Analysis
import Foundation
import Ingestion
import Messages
import Publishing
import SensorInput
import StepDetection
import TOMLKit

/// Everything `steptweet.toml` says, checked when loaded: unknown keys, wrong types and bad values are
/// `ConfigurationError`s naming the key (e.g. `schedule.intervall: unknown key`).
public struct AgentConfiguration: Sendable {
    /// `[source]`: where samples or step readings come from.
    public struct Source: Sendable, Equatable {
        /// A recording or log file (`path`), a device node (`device`), or a phone's address (`url`); exactly one is
        /// set.
        public var path: String
        /// Read from a device (a sensor, or a phone over the network) rather than from a file the user names.
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
        /// A phone running phyphox with remote access on, pulled at each fetch (set by `source.url`).
        public var phyphox: PhyphoxRemote?
        /// The zone of the file's times without an offset and of its local days (`text.time_zone`).
        public var timeZone: TimeZone?
        /// The sampling rate of a recording without a time column (`source.rate` with `source.path`).
        public var rateHz: Double?
        /// Where `path` was configured, `line 5: source.path`, for an error about the file itself (nil for a device,
        /// or a source not read from a configuration file).
        public var pathKey: String?

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

    /// `source.url`: phyphox's remote interface on a phone, read at each fetch.
    public struct PhyphoxRemote: Sendable, Equatable {
        /// The address phyphox shows under "Allow remote access" (`http://192.168.1.23:8080`).
        public var url: URL
        /// How long windows wait for the phone once it stops answering (`schedule.settle`): it keeps its buffers, so
        /// a walk it measured while out of reach arrives when it answers again.
        public var settle: TimeInterval = 15 * 60

        public init(url: URL) { self.url = url }

        /// The phone as `status` and `devices --received` list it: its host and port.
        public var deviceName: String {
            (url.host ?? url.absoluteString) + (url.port.map { ":\($0)" } ?? "")
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
    /// `text.goal` and `text.chart_style`: the window's chart, for targets with `image = "chart"`.
    public var chart = WindowChartOptions()
    /// One entry per `[[publish]]` table, in order (a stdout target when there is none).
    public var publishers: [any Publisher]
    /// Why publishing cannot work (missing credentials); fetches are refused and the agent idles while set.
    public var publishingProblem: String?
    /// With `publishingProblem`: the names of the targets, which a dry run lists (it needs no credentials).
    public var targetsWithoutCredentials: [String] = []
    /// Things worth a warning that do not stop anything (e.g. a secret file readable by others).
    public var warnings: [String] = []
    /// Warnings about the schedule (an interval below the minimum): only a command that schedules, `agent`, prints
    /// them; `history` or `outbox` have nothing to do with the interval.
    public var scheduleWarnings: [String] = []
    public var statePath: String
    public var push: Push?
    public var receive: Receive?
    /// `source.prefer`: the sources, devices or phones to count first where several cover the same time.
    public var prefer: [String] = []
    /// `detect.sensitivity`, and the detector's parameters it names.
    public var sensitivity = Sensitivity.normal
    public var detector: DetectorParameters { sensitivity.parameters }

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

    /// The `init` that writes a sample where `path` is: `--config` unless it is the default path (a `steptweet
    /// init` alone would write elsewhere).
    static func initCommand(for path: String, environment: [String: String]) -> String {
        path == defaultPath(environment: environment) ? "steptweet init" : "steptweet init --config \(path)"
    }

    /// Reads and checks the file at `path`.
    public static func load(path: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws
        -> AgentConfiguration
    {
        guard let data = FileManager.default.contents(atPath: path) else {
            // The caller prefixes the path; the message says why, and what to do when there is no file at all.
            var isFolder: ObjCBool = false
            let message =
                !FileManager.default.fileExists(atPath: path, isDirectory: &isFolder)
                ? "no configuration file here (run `\(initCommand(for: path, environment: environment))` to write a sample)"
                : isFolder.boolValue
                    ? "a folder, not a configuration file"
                    : FileManager.default.isReadableFile(atPath: path)
                        ? "cannot read the configuration file"
                        : "cannot read the configuration file: permission denied"
            throw ConfigurationError(path: "", message: message)
        }
        return try parse(String(decoding: data, as: UTF8.self), file: path, environment: environment)
    }

    static let sections: [String: Set<String>] = [
        "source": [
            "path", "device", "url", "sys_root", "dev_root", "sampling", "rate", "format", "start", "follow",
            "prefer",
        ],
        "schedule": ["interval", "minimum", "deadline", "window", "post_zero", "jitter", "on_walk_end", "settle"],
        "text": ["template", "preset", "date_format", "time_zone", "device", "locale", "goal", "chart_style"],
        "state": ["path"],
        "push": ["port", "token_env", "token_file", "period"],
        "detect": ["sensitivity"],
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
        let (fileSource, device, prefer) = try readSource(reader, base: base, zone: composer.timeZone)
        let (schedule, intervalWarning) = try readSchedule(reader)

        // [state]
        let statePath =
            try reader.string("state", "path").map { resolve($0, against: base) }
            ?? defaultStatePath(environment: environment)
        var source = fileSource
        if source?.isDevice == false && source?.phyphox == nil {
            source?.pathKey =
                (ConfigKeyLines(text).line(of: "source.path").map { "line \($0): " } ?? "") + "source.path"
        }
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
        configuration.prefer = prefer
        configuration.chart = try readChart(reader)
        if let level = try reader.string("detect", "sensitivity") {
            guard let sensitivity = Sensitivity(rawValue: level) else {
                throw ConfigurationError(
                    path: "detect.sensitivity", message: "'\(level)' is not \"normal\" or \"slow\"")
            }
            configuration.sensitivity = sensitivity
        }
        let presetWarning = try presetWarning(reader, window: schedule.window)
        configuration.scheduleWarnings = intervalWarning.map { [$0] } ?? []
        configuration.warnings =
            (presetWarning.map { [$0] } ?? []) + pushWarnings + receiveWarnings + targets.warnings
        return configuration
    }
}
