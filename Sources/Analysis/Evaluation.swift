import Foundation
import SensorInput
import StepDetection

/// A list of recordings with their true step counts: a CSV with a header naming at least the columns `file` (a path
/// relative to the manifest's folder) and `truth_steps` (a non-negative integer). Other columns are ignored.
public struct EvaluationManifest: Sendable {
    /// One recording of the manifest.
    public struct Entry: Sendable, Equatable {
        /// The path as written in the manifest.
        public var file: String
        /// The path to open (resolved against the manifest's folder).
        public var path: String
        public var truthSteps: Int
        /// Line of the manifest the entry comes from (1 is the header).
        public var line: Int
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
            throw InputError(file: path, message: exists ? "permission denied or unreadable" : "no such file", kind: .unreadable)
        }
        let text = String(decoding: data, as: UTF8.self)
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
                throw InputError(file: path, line: number,
                                 message: "\(fields.count) fields, the header has \(header.count)")
            }
            let file = fields[fileColumn].trimmingCharacters(in: .whitespaces)
            guard !file.isEmpty else { throw InputError(file: path, line: number, message: "file is empty") }
            let truthText = fields[truthColumn].trimmingCharacters(in: .whitespaces)
            guard let truth = Int(truthText), truth >= 0 else {
                throw InputError(file: path, line: number,
                                 message: "truth_steps is not a non-negative integer: '\(truthText)'")
            }
            let resolved = file.hasPrefix("/") ? file : folder.appendingPathComponent(file).path
            guard FileManager.default.fileExists(atPath: resolved) else {
                throw InputError(file: path, line: number, message: "recording not found: \(file)")
            }
            entries.append(Entry(file: file, path: resolved, truthSteps: truth, line: number))
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
                    if lookahead.next() == "\"" { field.append("\""); iterator = lookahead } else { quoted = false }
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

/// Scores the step detector against a manifest.
public enum Evaluation {
    /// The count of one recording against its truth.
    public struct FileResult: Sendable, Equatable, Codable {
        public var file: String
        public var truthSteps: Int
        public var countedSteps: Int
        /// `counted - truth`.
        public var error: Int { countedSteps - truthSteps }
        /// `|counted - truth| / truth`, nil when the truth is 0 (a recording with no steps).
        public var absolutePercentageError: Double? {
            truthSteps > 0 ? 100 * Double(abs(countedSteps - truthSteps)) / Double(truthSteps) : nil
        }
    }

    /// All files' results and their summary.
    public struct Report: Sendable {
        public var results: [FileResult]
        /// Mean absolute percentage error over the files with at least one true step.
        public var mape: Double? {
            let errors = results.compactMap(\.absolutePercentageError)
            return errors.isEmpty ? nil : errors.reduce(0, +) / Double(errors.count)
        }
        /// Files with at least one true step (the ones the MAPE is over).
        public var scoredFiles: Int { results.count { $0.truthSteps > 0 } }
        /// Files with no true steps, and the steps counted in them (false steps).
        public var zeroTruthFiles: Int { results.count { $0.truthSteps == 0 } }
        public var falseSteps: Int { results.filter { $0.truthSteps == 0 }.reduce(0) { $0 + $1.countedSteps } }
    }

    /// Counts every recording of the manifest with `parameters`, in manifest order. `progress` sees each result
    /// as soon as it is known.
    public static func run(
        _ manifest: EvaluationManifest,
        parameters: DetectorParameters = .standard,
        progress: (FileResult) -> Void = { _ in }
    ) throws -> Report {
        var results: [FileResult] = []
        for entry in manifest.entries {
            let count = try RecordingCounter.count(path: entry.path, parameters: parameters)
            let result = FileResult(file: entry.file, truthSteps: entry.truthSteps, countedSteps: count.steps)
            progress(result)
            results.append(result)
        }
        return Report(results: results)
    }
}
