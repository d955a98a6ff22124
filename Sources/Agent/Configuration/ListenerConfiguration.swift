import Foundation
import Ingestion
import Messages
import Publishing

extension AgentConfiguration {
    /// `[push]`: the optional silent-push listener (always on 127.0.0.1).
    public struct Push: Sendable, Equatable {
        public var port: UInt16
        /// Bearer token a push must carry (from `token_env` or `token_file`); nil when it could not be read.
        public var token: String?
        /// Why the token is missing, if it is.
        public var tokenProblem: String?
        /// At most one push-triggered fetch per this period.
        public var period: TimeInterval = 60

        public init(port: UInt16, token: String? = nil, tokenProblem: String? = nil, period: TimeInterval = 60) {
            self.port = port
            self.token = token
            self.tokenProblem = tokenProblem
            self.period = period
        }
    }

    /// `[push]`: the port and the bearer token (through the one secret resolver), and any warning about it.
    static func readPush(_ reader: TableReader, environment: [String: String], base: URL) throws -> (
        push: Push?, warnings: [String]
    ) {
        var push: Push?
        var pushWarnings: [String] = []
        if let pushTable = try reader.section("push") {
            guard let port = try reader.int("push", "port"), (1...65535).contains(port) else {
                throw ConfigurationError(
                    path: "push.port", message: "required: a port number 1-65535 (the listener binds 127.0.0.1 only)")
            }
            var p = Push(port: UInt16(port))
            (p.token, p.tokenProblem, pushWarnings) = try readToken(
                pushTable, section: "push", environment: environment, base: base)
            if let period = try reader.duration("push", "period") { p.period = period }
            push = p
        }
        return (push, pushWarnings)
    }

    /// `[receive]`: the receiver phones push their steps to (`POST /ingest`).
    public struct Receive: Sendable, Equatable {
        /// The IPv4 address to listen on: 127.0.0.1 by default (put a TLS reverse proxy in front to reach it from
        /// the phone), 0.0.0.0 for every interface.
        public var host: String
        public var port: UInt16
        /// The bearer token every request must carry (from `token_env` or `token_file`); nil when it could not be
        /// read.
        public var token: String?
        /// Why the token is missing, if it is.
        public var tokenProblem: String?
        /// What a client may send and for how long (`max_header`, `max_body`, `idle_timeout`, `read_timeout`,
        /// `max_connections`).
        public var limits = HTTPLimits()
        /// The largest body taken, compressed or inflated (`max_body`, bytes).
        public var maxBody: Int {
            get { limits.maxBody }
            set { limits.maxBody = newValue }
        }
        /// How long windows wait for a device that has gone quiet (`schedule.settle`).
        public var settle: TimeInterval = 15 * 60
        /// How late a message of a sample stream may come and still be counted in time order (`reorder`).
        public var reorder: TimeInterval = 30

        public init(host: String = "127.0.0.1", port: UInt16, token: String? = nil) {
            self.host = host
            self.port = port
            self.token = token
        }
    }

    static let receiveKeys: Set<String> = [
        "listen", "token_env", "token_file", "max_body", "reorder", "max_header", "idle_timeout", "read_timeout",
        "max_connections",
    ]

    /// `[receive]`: where to listen (`host:port`), the bearer token (through the one secret resolver), the body limit.
    static func readReceive(_ reader: TableReader, environment: [String: String], base: URL) throws -> (
        receive: Receive?, warnings: [String]
    ) {
        guard let table = try reader.section("receive") else { return (nil, []) }
        let listen = try reader.string("receive", "listen") ?? "127.0.0.1:8788"
        guard let (host, port) = parseListen(listen) else {
            throw ConfigurationError(
                path: "receive.listen",
                message:
                    "\"\(listen)\" is not host:port with an IPv4 address (e.g. \"127.0.0.1:8788\", \"0.0.0.0:8788\")"
            )
        }
        var receive = Receive(host: host, port: port)
        let warnings: [String]
        (receive.token, receive.tokenProblem, warnings) = try readToken(
            table, section: "receive", environment: environment, base: base)
        if let maxBody = try table.int("max_body", range: 1024...(1 << 30)) { receive.maxBody = maxBody }
        try readLimits(table, reader, into: &receive.limits)
        if let settle = try reader.duration("schedule", "settle") { receive.settle = settle }
        if let reorder = try reader.duration("receive", "reorder") { receive.reorder = reorder }
        return (receive, warnings)
    }

    /// `[receive]`'s connection limits, each checked against a range that still serves a phone.
    static func readLimits(_ table: ConfigTable, _ reader: TableReader, into limits: inout HTTPLimits) throws {
        if let maxHeader = try table.int("max_header", range: 1024...(1 << 20)) { limits.maxHeader = maxHeader }
        if let connections = try table.int("max_connections", range: 1...65536) { limits.maxConnections = connections }
        for (key, path) in [("idle_timeout", \HTTPLimits.idleTimeout), ("read_timeout", \HTTPLimits.readTimeout)] {
            guard let seconds = try reader.duration("receive", key) else { continue }
            guard seconds >= 1 && seconds <= 3600 else {
                throw ConfigurationError(
                    path: "receive.\(key)", message: "must be between 1s and 1h (a phone's request needs a moment)")
            }
            limits[keyPath: path] = seconds
        }
    }

    /// A listener's bearer token through the one secret resolver (the same keys, errors and file-permission warning
    /// as a target's token): the token, or why it is missing, and the resolver's warnings.
    static func readToken(_ table: ConfigTable, section: String, environment: [String: String], base: URL) throws -> (
        token: String?, problem: String?, warnings: [String]
    ) {
        var secrets = SecretResolver(
            environment: environment, readFile: { path in try SecretFile.read(resolve(path, against: base)) })
        do {
            guard let token = try secrets.resolve("token", in: table, required: false) else {
                throw ConfigurationError(
                    path: section, message: "a bearer token is required: set token_env or token_file")
            }
            return (token, nil, secrets.warnings)
        } catch let error as ConfigurationError where error.isMissingSecret {
            return (nil, error.description, secrets.warnings)
        }
    }

    /// `host:port` with an IPv4 host (`localhost` is 127.0.0.1) and a port 1-65535.
    static func parseListen(_ text: String) -> (host: String, port: UInt16)? {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]), port > 0
        else { return nil }
        var host = String(text[..<colon])
        if host == "localhost" { host = "127.0.0.1" }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts.allSatisfy({ UInt8($0) != nil }) else { return nil }
        return (host, port)
    }
}
