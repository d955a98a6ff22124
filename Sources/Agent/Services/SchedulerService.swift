import Foundation
import ServiceLifecycle

/// The scheduler as a service: runs fetches until graceful shutdown, which cancels a fetch in progress (it saves what
/// it read, lets a post in flight finish within its deadline, sends no other and records its result) and ends
/// `run()`.
struct SchedulerService: Service, CustomStringConvertible {
    let scheduler: AgentScheduler
    /// What it runs, for swift-service-lifecycle's log lines: `schedule 15m`, or why fetching is off.
    let summary: String

    var description: String { "scheduler (\(summary))" }

    func run() async throws {
        let scheduler = self.scheduler
        await withGracefulShutdownHandler {
            await scheduler.run()
        } onGracefulShutdown: {
            Task { await scheduler.shutdown() }
        }
    }
}
