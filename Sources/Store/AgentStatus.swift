import GRDB

/// The running agent's record in the state database, one row (`agent_status`, id 1): what it is doing and what it
/// resolved from its configuration and environment, for `steptweet status` from another shell.
public struct AgentStatus: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "agent_status"

    var id = 1
    /// The agent's process.
    public var pid: Int?
    /// When it started (RFC 3339 in the configured zone).
    public var started: String?
    /// Its configuration file.
    public var config: String?
    public var state: AgentState?
    /// When this record last changed (RFC 3339 in the configured zone, as every time the agent writes).
    public var updated: String?
    /// When the next scheduled fetch is due (RFC 3339 in the configured zone).
    public var nextFetch: String?
    public var disabledReason: String?
    public var lastResult: String?
    public var consecutiveFailures: Int?
    /// `mastodon ready, x ready` or `missing credentials: …`, as resolved with the agent's environment.
    public var targets: String?
    /// `on: 127.0.0.1:PORT` or `off: <why>`.
    public var push: String?
    /// The receiver: `starting on HOST:PORT`, `listening on HOST:PORT`, `not listening: <why>` or `off: <why>`.
    public var receiver: String?
    /// The effective interval.
    public var interval: String?
    /// A live accelerometer: how it is sampled and into which file.
    public var sampling: String?

    public init() {}

    enum CodingKeys: String, CodingKey {
        case id, pid, started, config, state, updated, targets, push, receiver, interval, sampling
        case nextFetch = "next_fetch"
        case disabledReason = "disabled_reason"
        case lastResult = "last_result"
        case consecutiveFailures = "consecutive_failures"
    }
    public enum Columns {
        static let id = Column(CodingKeys.id)
        static let state = Column(CodingKeys.state)
        static let receiver = Column(CodingKeys.receiver)
    }
}

/// What the agent is doing, as `status` shows it.
public enum AgentState: String, Codable, Sendable, CaseIterable, DatabaseValueConvertible {
    /// Waiting for the next trigger.
    case idle
    case fetching
    /// Fetching is off (`interval = "never"`, missing credentials, no source): it stays up and says why.
    case disabled
    case stopped
}

extension StateStore {
    /// The running (or last) agent's record; an empty one when no agent ever ran.
    public func agentStatus() throws -> AgentStatus {
        try writer.read { db in try AgentStatus.fetchOne(db, key: 1) } ?? AgentStatus()
    }

    /// Changes the agent's record in one transaction.
    public func updateAgentStatus(_ change: (inout AgentStatus) -> Void) throws {
        try writer.write { db in
            var status = try AgentStatus.fetchOne(db, key: 1) ?? AgentStatus()
            change(&status)
            try status.save(db)
        }
    }
}
