import Foundation
import StepDetection
import WallTime

/// Unit the acceleration values of an input were recorded in.
public enum AccelerationUnit: String, Sendable, Codable {
    case metersPerSecondSquared = "m/s^2"
    case g = "g"
    /// Thousandths of g (Polar's and many loggers' exports: `X [mg]`).
    case milliG = "mg"

    /// The unit of acceleration with gravity whose median magnitude is `median`, when nothing states it: about 1
    /// in g, about 9.8 in m/s², about 1000 in mg; below 3.5 it is g, from 300 (over 30 g, which no resting or
    /// walking body's median is in m/s²) to 3000 mg.
    package static func told(byMedianMagnitude median: Double) -> AccelerationUnit {
        median < 3.5 ? .g : (300...3000).contains(median) ? .milliG : .metersPerSecondSquared
    }

    /// One of this unit in m/s².
    package var metersPerSecondSquared: Double {
        switch self {
        case .metersPerSecondSquared: 1
        case .g: standardGravity
        case .milliG: standardGravity / 1000
        }
    }
}

/// How to read an input: strictness, and what the file itself may not say.
public struct ReadOptions: Sendable {
    /// Stop at the first malformed line with an error instead of skipping it.
    public var strict = false
    /// Wall-clock time of a recording's first sample when its time column is relative.
    public var start: Instant?
    /// How many skipped lines to describe in `ReadSummary.issues`.
    public var maxReportedIssues = 5
    /// Read the input as this format (a name from `InputFormats.names`) instead of detecting it.
    public var format: String?
    /// Sampling rate for files without a time column (UCI HAR/HAPT raw), in Hz.
    public var rateHz: Double?
    /// How overlapping step records from several sources (phone and watch) are combined (Apple Health).
    public var overlap: OverlapPolicy = .oneSourcePerInterval
    /// Show a progress line on standard error for large inputs when it is a terminal.
    public var progress = false
    /// Read about this many bytes at most (line-based formats), stopping at a line boundary: one slice of a backlog.
    /// The cursor returned says where the next slice begins.
    public var byteLimit: Int64?
    /// Threads that parse a large generic CSV in parallel (its samples still arrive in file order, identical to one
    /// thread's); 1 parses on the calling thread.
    public var jobs = 1
    /// Bytes per range parsed as one piece: an eighth of a megabyte keeps threads busy and memory bounded (at most
    /// `2 * jobs` ranges wait for the detector).
    public var chunkBytes = 1 << 17
    /// Time zone of local days (Gadgetbridge's daily running totals and device choice, Google Fit's daily summary);
    /// nil: the system's.
    public var timeZone: TimeZone?
    /// Step readings ending at or before this were counted before (follow mode): a whole reader that cannot use its
    /// saved state (written by another version, or damaged) would deliver them again and delivers none of them. (A
    /// line file that starts over delivers all its readings and says so: `ReadSummary.startedOver`.)
    public var countedThrough: Instant?
    /// Opens the SQLite databases of app exports (Gadgetbridge): Store's `SQLiteExports`, given by the command or the
    /// agent, so that SensorInput links no SQLite. nil: such an input is an error naming the file.
    public var exportDatabases: (any ExportDatabaseOpener)?
    /// Follow mode, an export whose records are out of time order: its sourced records are handed out as they are
    /// read (`InputItem.record`), to be settled in start order once all are read (`SourceCursor.Gathering`).
    var gather = false

    public init(strict: Bool = false, start: Instant? = nil, format: String? = nil, rateHz: Double? = nil) {
        self.strict = strict
        self.start = start
        self.format = format
        self.rateHz = rateHz
    }
}

/// How step records of several sources that overlap in time are combined.
public enum OverlapPolicy: Sendable, Equatable, Codable {
    /// Within each run of overlapping records, keep only the source with the most steps there (no double counting).
    case oneSourcePerInterval
    /// Within each run of overlapping records, keep the first of these sources present (then the most steps). A name
    /// matches a source whose name (or alias) contains it, ignoring case (`rank(of:)`).
    case preferSources([String])
    /// Keep every record (sums phone and watch: double counts).
    case sumAll

    /// The position in `.preferSources` of the first name that one of `names` (a source's name, alias) contains,
    /// ignoring case ("mi band" matches "Mi Band 4", "watch" matches "Ann's Apple Watch"), or that is `id` (a
    /// Gadgetbridge device's number). Nil when none does, or under another policy.
    public func rank(of names: [String], id: String? = nil) -> Int? {
        guard case .preferSources(let preferred) = self else { return nil }
        return preferred.firstIndex { wanted in
            let wanted = wanted.trimmingCharacters(in: .whitespaces)
            return wanted == id
                || !wanted.isEmpty && names.contains { $0.range(of: wanted, options: .caseInsensitive) != nil }
        }
    }

    /// Why `.preferSources` chooses nothing among sources that overlap (each by its names and id, as `rank`): none of
    /// its names matches any of them, so the one with the most steps would be counted without a word. Nil when one
    /// matches, when fewer than two sources have steps, or under another policy.
    public func unmatched(among sources: [(names: [String], id: String?)]) -> String? {
        guard case .preferSources(let preferred) = self, sources.count > 1,
            !sources.contains(where: { rank(of: $0.names, id: $0.id) != nil })
        else { return nil }
        let wanted = preferred.map { "\"\($0)\"" }.joined(separator: ", ")
        let available = sources.map { source in
            source.names.map { "\"\($0)\"" }.joined(separator: " or ") + (source.id.map { " (id \($0))" } ?? "")
        }
        return "the preferred source (--prefer-source or source.prefer) \(wanted) matches none of the sources here, "
            + "which are \(available.joined(separator: ", ")) (a name matches a source whose name contains it, "
            + "ignoring case)"
    }
}

/// Whether an input holds acceleration samples or already counted steps.
public enum InputKind: String, Sendable, Codable {
    case acceleration
    case steps
}

/// What reading an acceleration input found.
public struct ReadSummary: Sendable {
    /// Name of the detected (or requested) format.
    public var format: String
    /// Samples delivered.
    public var samples = 0
    /// Time of the first and last delivered sample (since the epoch when `absoluteTime`, else since the start).
    public var first: Instant?
    public var last: Instant?
    /// Whether the file's times are wall-clock times (or were anchored with `ReadOptions.start`).
    public var absoluteTime = false
    /// Unit the values were recorded in (samples are always delivered in m/s²).
    public var unit: AccelerationUnit = .metersPerSecondSquared
    /// Whether the file has three axes or only a magnitude (then delivered as `x` with `y = z = 0`).
    public var hasAxes = true
    /// Malformed lines skipped, and the first few of them described.
    public var skippedLines = 0
    public var issues: [InputError] = []
    /// `acceleration` (samples) or `steps` (readings).
    public var kind: InputKind = .acceleration
    /// Step readings delivered and the steps they hold (step inputs).
    public var readings = 0
    public var steps = 0
    /// The saved state of the reader (follow mode) could not be used: reading went on without it, and a reader that
    /// starts over delivered no readings up to `ReadOptions.countedThrough`.
    public var savedStateUnreadable = false
    /// Follow mode: the file started over without a rotated predecessor beside it (a newer export over the old one,
    /// a rewrite in place, a truncation), so this read delivered its readings from its start, those counted before
    /// too: the caller decides what they count (the agent reconciles them per minute, Store's `ReadingLedger`).
    public var startedOver = false
    /// Follow mode: a read limited to a slice (`ReadOptions.byteLimit`) found the file's records out of time order
    /// (`SourceReader.readLines`) and goes back to its start to gather them (`SourceCursor.Gathering`): what was
    /// gathered of the file before is void.
    public var gatherBegan = false
    /// A read stopped by `ReadOptions.byteLimit` with lines after it (the parser paused rather than finished).
    var paused = false
    /// What a person should know about how the input was read that is not a fault in it: a declared unit the data
    /// contradicts (and the one used), an activity that holds no steps. Without the input's name, which `count` and
    /// `inspect` (`note: FILE: …`) and the agent's warnings put in front.
    public var notes: [String] = []
    /// The input is well-formed and, by its own account, holds nothing to count (a ride's FIT file): 0 steps, not an
    /// error. "No valid line" is for inputs whose lines are malformed or missing.
    public var validWithoutSteps = false

    public init(format: String) { self.format = format }

    /// Mean sampling rate in Hz, from the first and last sample times.
    public var rateHz: Double? {
        guard let a = first, let b = last, b > a, samples > 1 else { return nil }
        return Double(samples - 1) / (Double(b.nanosecondsSinceEpoch - a.nanosecondsSinceEpoch) * 1e-9)
    }

    /// Seconds from the first to the last sample.
    public var durationSeconds: Double {
        guard let a = first, let b = last else { return 0 }
        return Double(b.nanosecondsSinceEpoch - a.nanosecondsSinceEpoch) * 1e-9
    }

    /// Counts a delivered sample.
    @inline(__always)
    mutating func note(sampleAt t: Int64) { note(samples: 1, from: t, to: t) }

    /// Counts `count` (> 0) samples delivered in order, from `first` to `last`.
    @inline(__always)
    mutating func note(samples count: Int, from first: Int64, to last: Int64) {
        samples += count
        if self.first == nil { self.first = Instant(nanosecondsSinceEpoch: first) }
        self.last = Instant(nanosecondsSinceEpoch: last)
    }

    /// Counts a delivered reading.
    mutating func note(_ r: StepReading) {
        readings += 1
        steps += r.steps
        if first.map({ r.start < $0 }) ?? true { first = r.start }
        if last.map({ r.end > $0 }) ?? true { last = r.end }
    }

    /// This summary followed by `next` (another part of the same input).
    public func merged(with next: ReadSummary) -> ReadSummary {
        var out = next.samples + next.readings > 0 ? next : self  // format, units, kind: of the part with data
        out.samples = samples + next.samples
        out.readings = readings + next.readings
        out.steps = steps + next.steps
        out.skippedLines = skippedLines + next.skippedLines
        out.issues = issues + next.issues
        out.savedStateUnreadable = savedStateUnreadable || next.savedStateUnreadable
        out.startedOver = startedOver || next.startedOver
        out.gatherBegan = gatherBegan || next.gatherBegan
        out.notes = notes + next.notes
        out.validWithoutSteps = validWithoutSteps || next.validWithoutSteps
        out.first = first ?? next.first
        if let nextLast = next.last { out.last = max(last ?? nextLast, nextLast) } else { out.last = last }
        return out
    }

    /// The skipped lines of `file` as a person reads them: the ones described, then how many more.
    public func skippedLineNotes(file: String) -> [String] {
        Self.skippedLineNotes(file: file, skipped: skippedLines, described: issues.map(\.description))
    }

    /// `skipped FILE:LINE: what` for each of `described`, then `FILE: N more malformed lines skipped` for the rest
    /// of `skipped`: the words of `count`, of a fetch's warnings and of the agent's log.
    public static func skippedLineNotes(file: String, skipped: Int, described: [String]) -> [String] {
        var notes = described.map { "skipped \($0)" }
        if skipped > described.count {
            notes.append("\(file): \(skipped - described.count) more malformed lines skipped")
        }
        return notes
    }

    /// Counts a skipped line, describing the first ones of the file: a line checked late (rows held back until the
    /// units are told) takes its place before the later lines already described.
    mutating func skip(_ error: InputError, options: ReadOptions) throws {
        if options.strict { throw error }
        skippedLines += 1
        let line = error.line ?? .max
        issues.insert(error, at: issues.firstIndex { ($0.line ?? .max) > line } ?? issues.endIndex)
        if issues.count > options.maxReportedIssues { issues.removeLast() }
    }
}

/// Opens an acceleration recording, detecting its format from its first lines, and streams its samples in m/s².
public enum AccelerationInput {
    /// Reads every sample of `path`, calling `sink` for each in file order. A step log is refused with an error.
    public static func read(
        path: String,
        options: ReadOptions = ReadOptions(),
        _ sink: (AccelerationSample) -> Void
    ) throws -> ReadSummary {
        let resolved = try InputFormats.resolveInput(path: path, options: options)
        guard resolved.format.kind == .acceleration else {
            throw InputError(
                file: path, message: "holds step readings (\(resolved.format.name)), not acceleration samples")
        }
        return try InputFormats.read(resolved, options: options) { item in
            if case .sample(let s) = item { sink(s) }
        }
    }
}

/// Where runs of consecutive samples go when a reader can hand them over together (the generic CSV reader's ranges):
/// one call per run instead of one per sample, so a detector can take them in a tight loop. The buffer is valid only
/// during the call: its storage is reused for later runs.
public typealias SampleBatchSink = (UnsafeBufferPointer<AccelerationSample>) -> Void

/// Opens any input (acceleration or steps), detecting its format, and streams its items.
public enum AnyInput {
    /// Reads every item of `path` in file order. With `batch`, samples may come to it in runs instead of to `sink`
    /// (still in file order, interleaved correctly with the samples and readings `sink` gets).
    public static func read(
        path: String,
        options: ReadOptions = ReadOptions(),
        batch: SampleBatchSink? = nil,
        _ sink: (InputItem) -> Void
    ) throws -> ReadSummary {
        let resolved = try InputFormats.resolveInput(path: path, options: options)
        return try InputFormats.read(resolved, options: options, batch: batch, sink)
    }
}

extension AnyInput {
    /// Reads an input held in memory (pushed data, fuzzing); `name` stands for the file in detection and errors.
    public static func read(
        bytes: [UInt8],
        name: String,
        options: ReadOptions = ReadOptions(),
        _ sink: (InputItem) -> Void
    ) throws -> ReadSummary {
        let resolved = try InputFormats.resolveInput(path: name, options: options, source: .memory(bytes))
        return try InputFormats.read(resolved, options: options, sink)
    }
}
