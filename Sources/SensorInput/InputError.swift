/// A problem with an input, located by file and (when known) line: `file:line: message`.
public struct InputError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What went wrong, for callers that choose an exit status or retry policy (never from the message text).
    public enum Kind: String, Sendable, Equatable {
        /// The file cannot be opened: it does not exist, or it may not be read.
        case unreadable
        /// The content cannot be read as its format (a malformed line, a wrong header, a corrupt container).
        case malformed
        /// Not there yet, but expected to be by itself: a sample file the agent's sampler has not written yet, a
        /// device that vanished.
        case notYetAvailable
    }

    public var file: String
    public var line: Int?
    public var message: String
    public var kind: Kind

    public init(file: String, line: Int? = nil, message: String, kind: Kind = .malformed) {
        self.file = file
        self.line = line
        self.message = message
        self.kind = kind
    }

    /// The error for a failed `open(2)`/`fstat(2)` of `file` with `errno` `code`.
    public static func unreadable(_ file: String, errno code: Int32) -> InputError {
        InputError(file: file, message: LineReader.openErrorMessage(code), kind: .unreadable)
    }

    public var description: String {
        if let line { return "\(file):\(line): \(message)" }
        return "\(file): \(message)"
    }
}
