import Foundation
import ServiceLifecycle

/// What the agent's two HTTP services (the push listener, the receiver) share.
enum HTTPServing {
    /// Runs `serve` until graceful shutdown, which calls `stop`. Stopping a server ends its run with an error: only a
    /// failure while it runs is one.
    static func untilGracefulShutdown(
        _ serve: @escaping @Sendable () async throws -> Void, stop: @escaping @Sendable () async -> Void
    ) async throws {
        do {
            try await withGracefulShutdownHandler {
                try await serve()
            } onGracefulShutdown: {
                Task { await stop() }
            }
        } catch {
            if !Task.isCancelled && !Task.isShuttingDownGracefully { throw error }
        }
    }

    /// Whether two secrets are equal, in time that does not depend on where they differ (a token guessed byte by
    /// byte learns nothing from how fast it is refused).
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var diff = UInt8(a.count == b.count ? 0 : 1)
        for i in 0..<max(a.count, b.count) {
            diff |= (i < a.count ? a[i] : 0) ^ (i < b.count ? b[i] : 0)
        }
        return diff == 0
    }
}
