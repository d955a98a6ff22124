import StepDetection

/// Unit the acceleration values of an input were recorded in.
public enum AccelerationUnit: String, Sendable, Codable {
    case metersPerSecondSquared = "m/s^2"
    case g = "g"

    /// Factor that converts a value in this unit to m/s².
    public var toMetersPerSecondSquared: Double { self == .g ? standardGravity : 1 }
}

/// How to read an input: strictness, and what the file itself may not say.
public struct ReadOptions: Sendable {
    /// Stop at the first malformed line with an error instead of skipping it.
    public var strict = false
    /// Wall-clock time (ns since the Unix epoch) of a recording's first sample when its time column is relative.
    public var startNs: Int64?
    /// How many skipped lines to describe in `ReadSummary.issues`.
    public var maxReportedIssues = 5

    public init(strict: Bool = false, startNs: Int64? = nil) {
        self.strict = strict
        self.startNs = startNs
    }
}

/// What reading an acceleration input found.
public struct ReadSummary: Sendable {
    /// Name of the detected (or requested) format.
    public var format: String
    /// Samples delivered.
    public var samples = 0
    /// Time of the first and last delivered sample (ns; since the epoch when `absoluteTime`, else since the start).
    public var firstNs: Int64?
    public var lastNs: Int64?
    /// Whether the file's times are wall-clock times (or were anchored with `ReadOptions.startNs`).
    public var absoluteTime = false
    /// Unit the values were recorded in (samples are always delivered in m/s²).
    public var unit: AccelerationUnit = .metersPerSecondSquared
    /// Whether the file has three axes or only a magnitude (then delivered as `x` with `y = z = 0`).
    public var hasAxes = true
    /// Malformed lines skipped, and the first few of them described.
    public var skippedLines = 0
    public var issues: [InputError] = []

    public init(format: String) { self.format = format }

    /// Mean sampling rate in Hz, from the first and last sample times.
    public var rateHz: Double? {
        guard let a = firstNs, let b = lastNs, b > a, samples > 1 else { return nil }
        return Double(samples - 1) / (Double(b - a) * 1e-9)
    }

    /// Seconds from the first to the last sample.
    public var durationSeconds: Double {
        guard let a = firstNs, let b = lastNs else { return 0 }
        return Double(b - a) * 1e-9
    }

    mutating func skip(_ error: InputError, options: ReadOptions) throws {
        if options.strict { throw error }
        skippedLines += 1
        if issues.count < options.maxReportedIssues { issues.append(error) }
    }
}

/// Opens an acceleration recording, detecting its format from its first lines, and streams its samples in m/s².
public enum AccelerationInput {
    /// Reads every sample of `path`, calling `sink` for each in file order.
    public static func read(
        path: String,
        options: ReadOptions = ReadOptions(),
        _ sink: (AccelerationSample) -> Void
    ) throws -> ReadSummary {
        try GenericCSVReader.read(path: path, options: options, sink)
    }
}
