import Foundation

/// An agent process that receives pushes, as the receiver's process tests start it: one configuration and one launch,
/// so that the unit suite and the integration suite (curl) test the same agent.
public enum ReceivingAgent {
    /// The bearer token the agent takes from `RECEIVE_TOKEN`.
    public static let token = "tok"

    /// An agent's configuration: receiving on 127.0.0.1:`port`, fetching every `interval` (`never`: only on request),
    /// posting to the file `posts`, its state in `state.sqlite` beside the configuration.
    public static func configuration(port: UInt16, interval: String, posts: String) -> String {
        """
        [receive]
        listen = "127.0.0.1:\(port)"
        token_env = "RECEIVE_TOKEN"
        [schedule]
        interval = "\(interval)"
        [text]
        time_zone = "Asia/Tokyo"
        [state]
        path = "state.sqlite"
        [[publish]]
        kind = "file"
        path = "\(posts)"
        """
    }

    /// Starts `binary agent --config config` with the token in its environment and its output discarded.
    public static func start(binary: URL, config: String) throws -> ChildProcess {
        let agent = ChildProcess()
        agent.executableURL = binary
        agent.arguments = ["agent", "--config", config]
        agent.environment = ProcessInfo.processInfo.environment.merging(["RECEIVE_TOKEN": token]) { $1 }
        agent.standardOutput = FileHandle.nullDevice
        agent.standardError = FileHandle.nullDevice
        try agent.run()
        return agent
    }
}
