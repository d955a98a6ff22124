import Foundation
import HummingbirdCore
import Logging
import NIOCore

/// One server's connections that wait for a request's head (just opened and silent or sending it slowly, or kept
/// alive after an answer), with when they began to wait. When the server is full, the one waiting longest is closed
/// to make room: connections that send nothing cannot keep a phone out until their `idle_timeout`, and a phone's
/// connection, which brings its head at once, is never the one closed. A connection whose request is arriving or
/// being answered is never in it.
final class WaitingConnections: @unchecked Sendable {
    private let lock = NSLock()
    private var waiting: [ObjectIdentifier: (since: NIODeadline, channel: any Channel)] = [:]

    func startWaiting(_ id: ObjectIdentifier, channel: any Channel) {
        lock.withLock { waiting[id] = (.now(), channel) }
    }

    func stopWaiting(_ id: ObjectIdentifier) {
        lock.withLock { _ = waiting.removeValue(forKey: id) }
    }

    var count: Int { lock.withLock { waiting.count } }

    /// Closes the connection that has waited longest for a head; false when none waits.
    @discardableResult func closeLongestWaiting() -> Bool {
        let oldest: (any Channel)? = lock.withLock {
            guard let (id, entry) = waiting.min(by: { $0.value.since < $1.value.since }) else { return nil }
            waiting.removeValue(forKey: id)
            return entry.channel
        }
        guard let oldest else { return false }
        oldest.close(promise: nil)
        return true
    }
}

/// `max_connections` as Hummingbird's accept loop asks it: past the limit no connection is accepted until one closes
/// (Hummingbird's `MaximumAvailableConnections`), but the connection that fills the last place first closes the one
/// that has waited longest for a head, so the next is accepted as soon as that one is gone.
struct RoomMakingConnectionLimit: AvailableConnectionsDelegate {
    let maxConnections: Int
    let waiting: WaitingConnections
    var open = 0

    mutating func connectionOpened() {
        open += 1
        if open >= maxConnections { waiting.closeLongestWaiting() }
    }

    mutating func connectionClosed() { open -= 1 }

    func isAcceptingNewConnections() -> Bool { open < maxConnections }
}
