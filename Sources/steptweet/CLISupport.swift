import ArgumentParser
import Foundation
import Messages

/// Exit statuses, from sysexits(3) where one fits.
enum ExitStatus {
    static let usage: Int32 = 64        // EX_USAGE
    static let dataError: Int32 = 65    // EX_DATAERR: malformed input
    static let noInput: Int32 = 66      // EX_NOINPUT: missing or unreadable input
    static let tempFail: Int32 = 75     // EX_TEMPFAIL: a fetch that Failed
    static let unavailable: Int32 = 69  // EX_UNAVAILABLE
    static let config: Int32 = 78       // EX_CONFIG
}

/// Writes `steptweet: message` to standard error.
func printError(_ message: String) {
    FileHandle.standardError.write(Data("steptweet: \(message)\n".utf8))
}

/// Prints `message` to standard error and ends the command with `status`.
func fail(_ message: String, status: Int32) -> ExitCode {
    printError("error: " + message)
    return ExitCode(status)
}

/// Parses an ISO 8601 option value, naming the option in the error.
func parseTime(_ text: String, option: String, zone: TimeZone) throws -> Date {
    guard let date = Timestamps.parse(text, zone: zone) else {
        throw ValidationError("\(option): '\(text)' is not an ISO 8601 time (e.g. 2026-11-21T10:00:00+09:00)")
    }
    return date
}

/// Resolves a time zone option, refusing unknown names.
func parseZone(_ name: String) throws -> TimeZone {
    guard let zone = TimeZones.named(name) else {
        throw ValidationError(ComposerError.unknownTimeZone(name).description)
    }
    return zone
}

/// JSON for `--json` outputs: sorted keys, no escaped slashes, one object per line.
func jsonLine<T: Encodable>(_ value: T) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return String(decoding: (try? encoder.encode(value)) ?? Data("{}".utf8), as: UTF8.self)
}
