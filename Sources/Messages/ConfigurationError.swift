/// A configuration problem, located by the key's path (e.g. `publish[1].token_env` or `schedule.interval`).
public struct ConfigurationError: Error, CustomStringConvertible, Sendable, Equatable {
    public var path: String
    public var message: String

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    public var description: String { path.isEmpty ? message : "\(path): \(message)" }
}
