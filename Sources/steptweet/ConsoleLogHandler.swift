import Foundation
import Logging
import Messages
import WallTime

/// The agent's log lines on standard error, set up once in `main`.
///
/// Under systemd (`JOURNAL_STREAM` set, so the journal captures the stream) a line is `<N>message` with the
/// sd-daemon(3) priority prefix and no timestamp or colour: the journal adds its own time and keeps the level, so
/// `journalctl -p warning` finds Failed fetches. Anywhere else a line is `2026-11-21T10:00:00+09:00 warning: message`,
/// the time in the configured zone with its offset.
struct ConsoleLogHandler: LogHandler {
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]
    /// Task-local metadata a `Logger(label:metadataProvider:)` asks for, added to every line.
    var metadataProvider: Logger.MetadataProvider?
    let zone: TimeZone
    let journal: Bool

    init(level: Logger.Level, zone: TimeZone, environment: [String: String] = ProcessInfo.processInfo.environment) {
        logLevel = level
        self.zone = zone
        journal = environment["JOURNAL_STREAM"].map { !$0.isEmpty } ?? false
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var explicit = event.metadata ?? [:]
        if let error = event.error { explicit["error"] = "\(error)" }
        Console.current.error(format(level: event.level, message: event.message, metadata: explicit) + "\n")
    }

    /// One line for `message`, without the newline; control characters from files or servers are escaped. Metadata
    /// is the handler's, then the provider's, then the statement's, a later one winning for the same key.
    func format(
        level: Logger.Level, message: Logger.Message, metadata explicit: Logger.Metadata?,
        at date: Date = WallClock.system.now()
    ) -> String {
        var all = metadata
        if let provided = metadataProvider?.get() { all.merge(provided) { $1 } }
        if let explicit { all.merge(explicit) { $1 } }
        let extra =
            all.isEmpty
            ? "" : " " + all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let text = TerminalText.escaped(message.description + extra)
        if journal { return "<\(Self.priority(level))>\(text)" }
        return "\(Timestamps.format(date, zone: zone)) \(level): \(text)"
    }

    /// The syslog priority of a level (sd-daemon(3)).
    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: return 7
        case .info: return 6
        case .notice: return 5
        case .warning: return 4
        case .error: return 3
        case .critical: return 2
        }
    }
}
