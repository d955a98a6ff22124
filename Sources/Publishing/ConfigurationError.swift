/// A configuration problem, located by the key's path (e.g. `publish[1].token_env` or `schedule.interval`).
public struct ConfigurationError: Error, CustomStringConvertible, Sendable, Equatable {
    public var path: String
    public var message: String
    /// The configuration names a secret that is not there (an unset environment variable, an unreadable or empty
    /// file): the agent stays up, fetches nothing and says why, instead of refusing to start.
    public var isMissingSecret = false
    /// The line of the configuration file where the key (or its table) is written, when the file's text was at hand.
    public var line: Int?

    public init(path: String, message: String, isMissingSecret: Bool = false, line: Int? = nil) {
        self.path = path
        self.message = message
        self.isMissingSecret = isMissingSecret
        self.line = line
    }

    public var description: String {
        (line.map { "line \($0): " } ?? "") + (path.isEmpty ? message : "\(path): \(message)")
    }
}
