/// A configuration problem, located by the key's path (e.g. `publish[1].token_env` or `schedule.interval`).
public struct ConfigurationError: Error, CustomStringConvertible, Sendable, Equatable {
    public var path: String
    public var message: String
    /// The configuration names a secret that is not there (an unset environment variable, an unreadable or empty
    /// file): the agent stays up, fetches nothing and says why, instead of refusing to start.
    public var isMissingSecret = false

    public init(path: String, message: String, isMissingSecret: Bool = false) {
        self.path = path
        self.message = message
        self.isMissingSecret = isMissingSecret
    }

    public var description: String { path.isEmpty ? message : "\(path): \(message)" }
}
