import ArgumentParser
import Foundation
import SensorInput
import WallTime

/// `steptweet inspect`: what an input is, without counting steps.
struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Describe an input: format, kind, samples or readings, rate, start, end, units, skipped lines.",
        discussion: """
            The format is detected from the first lines and the file name (--format overrides). With --json one \
            object with file, format, kind, samples, readings, steps, rate_hz, start, end, absolute_time, unit, \
            has_axes and skipped_lines. Times are ISO 8601 UTC when the input's times are wall-clock times, else \
            seconds from the start. Malformed lines are skipped and reported (exit status 0); exit status 65 with \
            --strict at the first one, or for a file with no valid line (only a header, or every line malformed); \
            66 when the file cannot be read.

            Formats: \(InputFormats.all.map { "\($0.name) (\($0.kind.rawValue))" }.joined(separator: ", ")).

            Example:
              steptweet inspect --json "phyphox_Raw Data.csv"
            """
    )

    @Flag(name: .long, help: "One JSON object.") var json = false
    @OptionGroup var input: InputOptions
    @Argument(help: "The input to describe.") var file: String

    struct Output: Encodable {
        var file: String
        var format: String
        var kind: String
        var samples: Int
        var readings: Int
        var steps: Int?
        var rateHz: Double?
        var start: String?
        var end: String?
        var absoluteTime: Bool
        var unit: String?
        var hasAxes: Bool?
        var skippedLines: Int
    }

    static func timeText(_ instant: Instant?, absolute: Bool) -> String? {
        guard let ns = instant?.nanosecondsSinceEpoch else { return nil }
        if !absolute { return String(format: "%.3f s", Double(ns) * 1e-9) }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date(timeIntervalSince1970: Double(ns) * 1e-9))
    }

    func run() throws {
        var s: ReadSummary
        do {
            s = try AnyInput.read(path: file, options: input.readOptions()) { _ in }
        } catch let error as InputError {
            throw fail(error.description, status: ExitStatus.of(error))
        }
        let steps = s.kind == .steps
        let absolute = steps || s.absoluteTime
        let out = Output(
            file: file, format: s.format, kind: s.kind.rawValue, samples: s.samples, readings: s.readings,
            steps: steps ? s.steps : nil, rateHz: steps ? nil : s.rateHz.map { ($0 * 10).rounded() / 10 },
            start: Self.timeText(s.first, absolute: absolute), end: Self.timeText(s.last, absolute: absolute),
            absoluteTime: absolute, unit: steps ? nil : s.unit.rawValue, hasAxes: steps ? nil : s.hasAxes,
            skippedLines: s.skippedLines)
        for issue in s.issues { printError("warning: skipped \(issue)") }
        for note in s.notes { printError("note: \(file): \(note)") }
        if json {
            printLine(jsonLine(out))
        } else {
            printLine("file:     \(file)")
            printLine("format:   \(out.format)")
            printLine("kind:     \(out.kind)")
            if steps {
                printLine("readings: \(out.readings)")
                printLine("steps:    \(s.steps)")
            } else {
                printLine("samples:  \(out.samples)")
                printLine("rate:     \(out.rateHz.map { String(format: "%.1f Hz", $0) } ?? "unknown")")
                printLine("units:    \(s.unit.rawValue)\(s.hasAxes ? " (x, y, z)" : " (magnitude only)")")
            }
            printLine("start:    \(out.start ?? "-")")
            printLine("end:      \(out.end ?? "-")")
            printLine("skipped:  \(quantity(out.skippedLines, "line"))")
        }
        if let nothing = noValidLine(s) { throw fail("\(file): \(nothing)", status: ExitStatus.dataError) }
    }
}
