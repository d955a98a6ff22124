import Foundation
import SensorInput
import StepDetection

/// A list of recordings with their true step counts: a CSV with a header naming at least the columns `file` (a path
/// relative to the manifest's folder) and `truth_steps` (a non-negative integer, or empty when the recording's count
/// is not known, e.g. WISDM's walking). Other columns (activity, placement, subject, …) are kept for grouping.
public struct EvaluationManifest: Sendable {
    /// One recording of the manifest.
    public struct Entry: Sendable, Equatable {
        /// The path as written in the manifest.
        public var file: String
        /// The path to open (resolved against the manifest's folder).
        public var path: String
        /// The true count; nil when the manifest leaves it empty.
        public var truthSteps: Int?
        /// Line of the manifest the entry comes from (1 is the header).
        public var line: Int
        /// Every column of the entry's row by its (lower-cased) header name.
        public var columns: [String: String] = [:]
    }

    public var path: String
    public var entries: [Entry]

    /// Reads and checks a manifest. Errors name the manifest and line: a missing column, a bad number, a quote left
    /// open, a recording that does not exist, no entries at all.
    public static func load(path: String) throws -> EvaluationManifest {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            let exists = FileManager.default.fileExists(atPath: path)
            throw InputError(
                file: path, message: exists ? "permission denied or unreadable" : "no such file", kind: .unreadable)
        }
        var text = String(decoding: data, as: UTF8.self)
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }  // a byte-order mark (a spreadsheet's "CSV UTF-8")
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        // "\r\n" is one Character in Swift, so split on any line break rather than on "\n".
        var lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        while lines.last?.allSatisfy(\.isWhitespace) == true { lines.removeLast() }
        guard let headerLine = lines.first else { throw InputError(file: path, message: "manifest is empty") }
        let header = try csvFields(headerLine, file: path, line: 1).map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }
        guard let fileColumn = header.firstIndex(of: "file") else {
            throw InputError(file: path, line: 1, message: "no 'file' column in the header")
        }
        guard let truthColumn = header.firstIndex(of: "truth_steps") else {
            throw InputError(file: path, line: 1, message: "no 'truth_steps' column in the header")
        }
        var entries: [Entry] = []
        for (index, line) in lines.enumerated().dropFirst() {
            let number = index + 1
            if line.allSatisfy(\.isWhitespace) { continue }
            let fields = try csvFields(line, file: path, line: number)
            guard fields.count > max(fileColumn, truthColumn) else {
                throw InputError(
                    file: path, line: number,
                    message: "\(fields.count) fields, the header has \(header.count)")
            }
            let file = fields[fileColumn].trimmingCharacters(in: .whitespaces)
            guard !file.isEmpty else { throw InputError(file: path, line: number, message: "file is empty") }
            let truthText = fields[truthColumn].trimmingCharacters(in: .whitespaces)
            let truth = Int(truthText)
            guard truthText.isEmpty || (truth ?? -1) >= 0 else {
                throw InputError(
                    file: path, line: number,
                    message: "truth_steps is not a non-negative integer or empty: '\(truthText)'")
            }
            let resolved = file.hasPrefix("/") ? file : folder.appendingPathComponent(file).path
            guard FileManager.default.fileExists(atPath: resolved) else {
                throw InputError(file: path, line: number, message: "recording not found: \(file)")
            }
            var columns: [String: String] = [:]
            for (name, value) in zip(header, fields) { columns[name] = value.trimmingCharacters(in: .whitespaces) }
            entries.append(Entry(file: file, path: resolved, truthSteps: truth, line: number, columns: columns))
        }
        guard !entries.isEmpty else { throw InputError(file: path, message: "manifest lists no recordings") }
        return EvaluationManifest(path: path, entries: entries)
    }

    /// Splits one CSV line into fields (RFC 4180 quoting: `"a,b"` and `""` inside quotes).
    static func csvFields(_ line: Substring, file: String, line number: Int) throws -> [String] {
        var fields: [String] = []
        var field = ""
        var quoted = false
        var iterator = line.makeIterator()
        while let c = iterator.next() {
            if quoted {
                if c == "\"" {
                    // A doubled quote is a literal quote; a single one closes the field's quoted part.
                    var lookahead = iterator
                    if lookahead.next() == "\"" {
                        field.append("\"")
                        iterator = lookahead
                    } else {
                        quoted = false
                    }
                } else {
                    field.append(c)
                }
            } else if c == "\"" {
                quoted = true
            } else if c == "," {
                fields.append(field)
                field = ""
            } else {
                field.append(c)
            }
        }
        if quoted { throw InputError(file: file, line: number, message: "unterminated quote") }
        fields.append(field)
        return fields
    }
}

/// Scores the step detector against a manifest. Walking accuracy (MAPE) is meaningful only where there are enough
/// true steps, so the report keeps three kinds of recording apart:
/// - walks: at least `Report.walkThreshold` (100) true steps: absolute percentage error, MAPE over them;
/// - little or no walking (under 100 true steps: desk work, clapping, driving): false steps, the count above the
///   truth, in total and per hour of recording; and missed steps, the truth above the count (a short slow walk
///   counted 0 has no false steps, but is not right);
/// - no count (empty `truth_steps`): steps per minute, reported apart.
public enum Evaluation {
    /// The count of one recording against its truth.
    public struct FileResult: Sendable, Equatable, Codable {
        public var file: String
        public var truthSteps: Int?
        public var countedSteps: Int
        /// The recording's length in seconds.
        public var durationSeconds: Double = 0
        /// The value of the grouping column (`--by`), if any.
        public var group: String?

        /// `counted - truth`; nil without a truth.
        public var error: Int? { truthSteps.map { countedSteps - $0 } }
        /// `|counted - truth| / truth` in percent, for walks (at least 100 true steps).
        public var absolutePercentageError: Double? {
            guard let t = truthSteps, t >= Report.walkThreshold else { return nil }
            return 100 * Double(abs(countedSteps - t)) / Double(t)
        }
        /// Steps counted above the truth, for recordings under 100 true steps.
        public var falseSteps: Int? {
            guard let t = truthSteps, t < Report.walkThreshold else { return nil }
            return max(0, countedSteps - t)
        }
        /// True steps not counted, for recordings under 100 true steps.
        public var missedSteps: Int? {
            guard let t = truthSteps, t < Report.walkThreshold else { return nil }
            return max(0, t - countedSteps)
        }
        /// Steps per minute counted (the measure for recordings without a count).
        public var stepsPerMinute: Double? { durationSeconds > 0 ? Double(countedSteps) / (durationSeconds / 60) : nil }
    }

    /// A summary of some results: walks, false steps, recordings without a count.
    public struct Summary: Sendable, Equatable {
        /// Mean absolute percentage error over the walks (nil without any).
        public var mape: Double?
        public var walks: Int
        /// Recordings under 100 true steps, their false steps and their length in hours; their true steps and how
        /// many of those were not counted.
        public var lowTruthFiles: Int
        public var falseSteps: Int
        public var lowTruthHours: Double
        public var lowTruthSteps: Int
        public var missedSteps: Int
        public var falseStepsPerHour: Double? { lowTruthHours > 0 ? Double(falseSteps) / lowTruthHours : nil }
        /// Recordings without a count, and the least steps per minute among them.
        public var noCountFiles: Int
        public var noCountMinStepsPerMinute: Double?

        init(_ results: [FileResult]) {
            let errors = results.compactMap(\.absolutePercentageError)
            mape = errors.isEmpty ? nil : errors.reduce(0, +) / Double(errors.count)
            walks = errors.count
            let low = results.filter { $0.falseSteps != nil }
            lowTruthFiles = low.count
            falseSteps = low.reduce(0) { $0 + ($1.falseSteps ?? 0) }
            lowTruthHours = low.reduce(0) { $0 + $1.durationSeconds } / 3600
            lowTruthSteps = low.reduce(0) { $0 + ($1.truthSteps ?? 0) }
            missedSteps = low.reduce(0) { $0 + ($1.missedSteps ?? 0) }
            let noCount = results.filter { $0.truthSteps == nil }
            noCountFiles = noCount.count
            noCountMinStepsPerMinute = noCount.compactMap(\.stepsPerMinute).min()
        }
    }

    /// All files' results and their summary, overall and per group.
    public struct Report: Sendable {
        /// Recordings with at least this many true steps are walks, scored by MAPE; fewer, by false steps.
        public static let walkThreshold = 100
        public var results: [FileResult]
        public var summary: Summary { Summary(results) }
        /// Per value of the grouping column, in first-seen order (empty without `by`).
        public var groups: [(name: String, summary: Summary)] {
            var order: [String] = []
            var byName: [String: [FileResult]] = [:]
            for r in results {
                guard let g = r.group else { continue }
                if byName[g] == nil { order.append(g) }
                byName[g, default: []].append(r)
            }
            return order.map { ($0, Summary(byName[$0]!)) }
        }
    }

    /// Counts every recording of the manifest with `parameters`, grouping by the column `by` when given; `jobs`
    /// recordings at once (file by file on the cores), results in manifest order. `progress` sees each result in that
    /// order (as soon as it is known with one job), after `read` sees what reading the recording found (its skipped
    /// lines and notes, for the command to say as `count` does). `options` reads each recording (the command's export
    /// databases).
    public static func run(
        _ manifest: EvaluationManifest,
        options: ReadOptions = ReadOptions(),
        parameters: DetectorParameters = .standard,
        by column: String? = nil,
        jobs: Int = 1,
        magnitudeOnly: Bool = false,
        progress: (FileResult) -> Void = { _ in },
        read: (EvaluationManifest.Entry, ReadSummary) -> Void = { _, _ in }
    ) throws -> Report {
        var results: [FileResult] = []
        let entries = manifest.entries
        let counts: [Result<RecordingCount, Error>] =
            jobs > 1
            ? Parallelism.map(entries.count, jobs: jobs) { i in
                Result {
                    try RecordingCounter.count(
                        path: entries[i].path, options: options, parameters: parameters, magnitudeOnly: magnitudeOnly)
                }
            }
            : []
        for (i, entry) in entries.enumerated() {
            let count =
                jobs > 1
                ? try counts[i].get()
                : try RecordingCounter.count(
                    path: entry.path, options: options, parameters: parameters, magnitudeOnly: magnitudeOnly)
            let result = FileResult(
                file: entry.file, truthSteps: entry.truthSteps, countedSteps: count.steps,
                durationSeconds: count.summary.durationSeconds,
                group: column.map { entry.columns[$0.lowercased()] ?? "-" })
            read(entry, count.summary)
            progress(result)
            results.append(result)
        }
        return Report(results: results)
    }
}
