import Analysis
import ArgumentParser
import Foundation
import Messages
import SensorInput
import StepDetection
import Store
import WallTime

/// How to read an input's contents (`--strict`, `--format`, `--rate`): shared by every command that reads an input,
/// `preview` included.
struct FormatOptions: ParsableArguments {
    @Flag(name: .long, help: "Stop with an error (exit 65) at the first malformed line instead of skipping it.")
    var strict = false
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Read the input as this format instead of detecting it.",
            valueName: "NAME")) var format: String?
    // Unconditional: `--rate -5` takes "-5" as its value (refused below, saying why) instead of as an unknown
    // option, which left --rate with a "missing value".
    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp(
            "Sampling rate for inputs without a time column (UCI HAR/HAPT: 50).",
            valueName: "HZ")) var rate: Double?

    func validate() throws {
        if let format, SensorInput.InputFormats.named(format) == nil {
            throw ValidationError(
                "--format: unknown format '\(format)'; known: \(InputFormats.names.joined(separator: ", "))")
        }
        if let rate, !(rate > 0 && rate <= 100_000) {
            throw ValidationError("--rate: must be a positive number of Hz up to 100000, not \(Self.asWritten(rate))")
        }
    }

    /// `-5` for -5.0, `-0.5` for -0.5: a value as a person wrote it.
    static func asWritten(_ value: Double) -> String {
        value.magnitude < 1e15 && value == value.rounded() ? String(Int(value)) : String(value)
    }
}

/// Options every command that reads recordings shares (`preview` takes only `FormatOptions`: its `--start` is the
/// window's, and it takes the recording's start as `--recording-start`).
struct InputOptions: ParsableArguments {
    @OptionGroup var contents: FormatOptions
    @Option(
        name: .customLong("prefer-source"),
        help: ArgumentHelp(
            "With several sources over the same time (Apple Health or Samsung Health phone and watch, Gadgetbridge devices), count this one: part of a source name, or of a device name or alias (ignoring case), or a Gadgetbridge device id. Repeatable; the first present wins.",
            valueName: "NAME")) var preferSource: [String] = []
    @Option(
        name: .customLong("start"),
        help: ArgumentHelp(
            "Wall-clock time (ISO 8601) of the first sample when the input's times are relative.",
            valueName: "TIME"), transform: TimeArgument.parse) var inputStart: TimeArgument?
    @Option(
        name: .long,
        help: ArgumentHelp(
            "IANA time zone for --start without an offset, of date-time text without an offset (generic CSV, Axivity, ActiGraph, GENEActiv without its own Time Zone), of the local days of Gadgetbridge running totals and Google Fit, Samsung Health and Zepp Life daily totals, and of Zepp Life's local minutes (default: the system's).",
            valueName: "ZONE")) var timeZone: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Cores to use: several files are read at once, and a large CSV is parsed in parallel (samples still reach the detector in file order, so counts are identical to --jobs 1). Default: the cores this process may use (affinity mask and cgroup CPU quota).",
            valueName: "N")) var jobs: Int?

    /// `--jobs`, or the cores available.
    var effectiveJobs: Int { jobs ?? Parallelism.availableCores() }

    func validate() throws {
        if let jobs, jobs < 1 { throw ValidationError("--jobs: must be at least 1") }
        if let timeZone { _ = try parseZone(timeZone) }
    }

    func readOptions() -> ReadOptions {
        let zone = timeZone.flatMap(TimeZones.named) ?? systemTimeZone  // a bad name was refused in validate()
        var options = ReadOptions.withSQLiteExports()
        (options.strict, options.format, options.rateHz) = (contents.strict, contents.format, contents.rate)
        options.start = inputStart.map { Instant($0.date(in: zone)) }
        options.progress = true
        options.timeZone = timeZone.flatMap(TimeZones.named)
        if !preferSource.isEmpty { options.overlap = .preferSources(preferSource) }
        options.jobs = effectiveJobs
        return options
    }
}

/// `--sensitivity`: which of the detector's parameter sets counts (`[detect] sensitivity` in the agent's config).
struct SensitivityOption: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "normal (the default), or slow for people who walk slowly (older people, recovery, a walker): it counts walks of 30-50 steps a minute, and more hand activity as steps.",
            valueName: "LEVEL")) var sensitivity: Sensitivity?

    /// The parameter set `--sensitivity` names (the standard one without it).
    var parameters: DetectorParameters { (sensitivity ?? .normal).parameters }
}

extension Sensitivity: ExpressibleByArgument {}
