import Foundation

/// What one HTTP server of the agent takes from a client before it closes the connection: the size of a request's
/// head and body, how long a connection may wait for a request or take to send one, and how many connections are
/// served at once. The receiver's come from `[receive]` (docs/receiving.md); the loopback servers (the push
/// listener, the demo's endpoint) use `loopback`.
public struct HTTPLimits: Sendable, Equatable {
    /// The largest request head, request line and header fields together (`max_header`, bytes): a longer one is
    /// answered 431 and its connection closed. Phones send well under 2 KB; a proxy adds a few forwarding headers.
    public var maxHeader: Int = 16 << 10
    /// The largest body, as sent and, when gzip, as inflated (`max_body`, bytes): answered 413.
    public var maxBody: Int = 8 << 20
    /// How long a connection may wait for the next request's head to arrive in full (`idle_timeout`): from its
    /// opening or its last answer. An idle connection and one that sends its head byte by byte are closed then.
    public var idleTimeout: TimeInterval = 15
    /// How long a request's body may take to arrive in full, from its head (`read_timeout`): a slow or endless body
    /// is closed then. A month of Health Auto Export (3.3 MB) at 1 Mbit/s takes 27 s.
    public var readTimeout: TimeInterval = 60
    /// How many connections are served at once (`max_connections`): the one that fills the last place closes the
    /// connection waiting longest for a head (`WaitingConnections`); when none waits, more wait in the listen queue
    /// (`backlog`) until one closes. Each takes a file descriptor: the agent raises its soft `RLIMIT_NOFILE` to fit
    /// them and warns at start when the hard limit does not.
    public var maxConnections: Int = 2048
    /// How many connections the kernel queues beyond `maxConnections` before it refuses them.
    public var backlog: Int = 256

    public init() {}

    /// The push listener's and the demo endpoint's: 127.0.0.1 only, small requests from this machine.
    public static let loopback: HTTPLimits = {
        var limits = HTTPLimits()
        limits.maxHeader = 8 << 10
        limits.maxBody = 64 << 10
        limits.idleTimeout = 10
        limits.readTimeout = 10
        limits.maxConnections = 64
        limits.backlog = 64
        return limits
    }()

    /// Descriptors kept free of connections, for the state database, the sources, the outbound posts and the other
    /// listeners.
    static let reservedDescriptors = 64
}

extension HTTPLimits {
    /// These limits with `maxConnections` fitted to the process's descriptor limit: the soft `RLIMIT_NOFILE` is
    /// raised (up to the hard limit) to hold `maxConnections` beside the descriptors the agent needs for the rest;
    /// when even the hard limit cannot, fewer connections are served and the warning says so and how to fix it.
    package func fittedToDescriptors(key: String) -> (limits: HTTPLimits, warning: String?) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return (self, nil) }
        let needed = rlim_t(maxConnections + Self.reservedDescriptors)
        if limit.rlim_cur < needed {
            var raised = limit
            raised.rlim_cur = min(needed, limit.rlim_max)
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        guard limit.rlim_cur < needed else { return (self, nil) }
        var fitted = self
        fitted.maxConnections = max(1, Int(limit.rlim_cur) - Self.reservedDescriptors)
        let warning =
            "\(key) = \(maxConnections) needs \(needed) file descriptors, but RLIMIT_NOFILE allows \(limit.rlim_cur) "
            + "(hard limit \(limit.rlim_max)): serving at most \(fitted.maxConnections) connections; raise LimitNOFILE= "
            + "in the agent's systemd unit (or ulimit -n) or lower \(key)"
        return (fitted, warning)
    }
}
