import Agent
import ArgumentParser
import Foundation
import Messages
import SensorInput
import Store

/// Exit statuses, from sysexits(3), chosen from an error's kind, never from its message.
enum ExitStatus {
    static let usage: Int32 = 64  // EX_USAGE
    static let dataError: Int32 = 65  // EX_DATAERR: input that cannot be read as its format
    static let noInput: Int32 = 66  // EX_NOINPUT: an input named on the command line is missing or unreadable
    static let unavailable: Int32 = 69  // EX_UNAVAILABLE
    static let cantCreate: Int32 = 73  // EX_CANTCREAT: an output file exists or cannot be written
    static let tempFail: Int32 = 75  // EX_TEMPFAIL: may succeed by itself later
    static let noPermission: Int32 = 77  // EX_NOPERM: state this user may not read or write
    static let config: Int32 = 78  // EX_CONFIG

    /// The status for an input named on the command line that could not be read.
    static func of(_ error: InputError) -> Int32 {
        switch error.kind {
        case .unreadable: return noInput
        case .malformed: return dataError
        case .notYetAvailable: return tempFail
        }
    }

    /// The status of a `Failed` fetch.
    static func of(_ kind: FailureKind?) -> Int32 {
        switch kind {
        case .configuration: return config
        case .input: return dataError
        case .permission: return noPermission
        case .cannotCreate: return cantCreate
        case .temporary, nil: return tempFail
        }
    }
}

/// Ends a command that could not open or use the state database, with the status of its kind: 75 locked or busy, 77
/// a permission, 73 a path where it cannot be created, 78 corrupt or foreign.
func stateFailure(_ error: Error, path: String) -> ExitCode {
    fail(StateStore.describe(error, path: path), status: ExitStatus.of(StateStore.failureKind(of: error)))
}

/// Writes `steptweet: message` to standard error, with control characters and invalid UTF-8 escaped (messages quote
/// input files and servers, which must not be able to retitle or clear the terminal).
func printError(_ message: String) {
    Console.current.error("steptweet: \(TerminalText.escaped(message))\n")
}

/// Prints `message` to standard error and ends the command with `status`.
func fail(_ message: String, status: Int32) -> ExitCode {
    printError("error: " + message)
    return ExitCode(status)
}

/// A time given on the command line, in ISO 8601 / RFC 3339: `2026-11-21T10:00:00+09:00`, `2026-11-21T01:00:00Z`, or
/// without an offset (`2026-11-21T10:00:00`, `2026-11-21 10:00`, `2026-11-21`). A time with an offset is that instant;
/// one without is read in the command's time zone: `--time-zone`, else the configuration's `text.time_zone`, else the
/// system's. Never silently UTC. Options read it with `transform: TimeArgument.parse`, so that a refused value's error
/// lists the forms (an `init?(argument:)` that returns nil can only say "invalid").
struct TimeArgument: ExpressibleByArgument, Sendable {
    let text: String

    /// The forms every time option takes, as the README lists them.
    static let forms =
        "2026-11-21T10:00:00+09:00 or 2026-11-21T01:00:00Z (that instant); 2026-11-21T10:00:00, 2026-11-21 10:00 or "
        + "2026-11-21 (in the command's time zone)"

    /// A value refused by `parse`, with the forms that are accepted.
    struct Refused: Error, CustomStringConvertible {
        var description: String { "not a time; accepted forms: \(TimeArgument.forms)" }
    }

    init?(argument: String) {
        guard Timestamps.parse(argument, zone: TimeZone(identifier: "UTC")!) != nil else { return nil }
        text = argument
    }

    /// `transform:` of every time option.
    static func parse(_ argument: String) throws -> TimeArgument {
        guard let time = TimeArgument(argument: argument) else { throw Refused() }
        return time
    }

    /// The instant, reading a time without an offset in `zone`.
    func date(in zone: TimeZone) -> Date {
        Timestamps.parse(text, zone: zone)!
    }

    var defaultValueDescription: String { text }
}

/// The system's time zone (`TZ`, else /etc/localtime), the default for times without an offset.
var systemTimeZone: TimeZone { TimeZone.current }

/// Resolves a time zone option, refusing unknown names.
func parseZone(_ name: String) throws -> TimeZone {
    guard let zone = TimeZones.named(name) else {
        throw ValidationError(ComposerError.unknownTimeZone(name).description)
    }
    return zone
}

/// Why an input that was read holds nothing to count (exit 65, as the README's "a file with no valid line"): every
/// data line malformed, or nothing after the header; nil when it has samples or readings, or is a well-formed input
/// that holds no steps by its own account (a ride's FIT file: its summary's notes say so).
func noValidLine(_ s: ReadSummary) -> String? {
    guard s.samples == 0 && s.readings == 0 && !s.validWithoutSteps else { return nil }
    if s.skippedLines > 0 { return "no valid line: all \(s.skippedLines) data lines are malformed" }
    return s.kind == .steps ? "no valid line: no step readings in it" : "no valid line: no samples after the header"
}

/// Says on standard error what reading `file` found (`count`, `eval`): each skipped line named, then how many more,
/// the reader's notes, and a file with no valid line as an error; the file's exit status (65 for that, else 0).
func reportReading(_ s: ReadSummary, file: String) -> Int32 {
    for issue in s.issues { printError("warning: skipped \(issue)") }
    for note in s.notes { printError("note: \(file): \(note)") }
    if s.skippedLines > s.issues.count {
        printError("warning: \(file): \(quantity(s.skippedLines - s.issues.count, "more malformed line")) skipped")
    }
    guard let nothing = noValidLine(s) else { return 0 }
    printError("error: \(file): \(nothing)")
    return ExitStatus.dataError
}

/// `1 line`, `2 lines`: a count with its noun, plural unless the count is one.
func quantity(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }

/// JSON for `--json` outputs: one document, sorted snake_case keys, no escaped slashes.
func jsonLine<T: Encodable>(_ value: T, datesIn zone: TimeZone? = nil) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    if let zone {
        // Dates as every other output writes them: in the configured zone, with its offset.
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Timestamps.format(date, zone: zone))
        }
    }
    // Every `--json` key is snake_case (docs/json.md), written in Swift as camelCase.
    encoder.keyEncodingStrategy = .convertToSnakeCase
    return String(decoding: (try? encoder.encode(value)) ?? Data("{}".utf8), as: UTF8.self)
}
