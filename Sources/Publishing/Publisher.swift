import Messages

/// Where a post goes. Each target (webhook, Mastodon, X, Matrix, Bluesky, Discord, Slack, ntfy, stdout, file) is one
/// type behind this protocol.
public protocol Publisher: Sendable {
    /// Short name used in logs and results, e.g. `mastodon`.
    var name: String { get }
}

/// Prints posts to standard output: the target used when no `[[publish]]` table is configured.
public struct StdoutPublisher: Publisher {
    public let name = "stdout"
    public init() {}
    public func publish(_ text: String) { print(text) }
}
