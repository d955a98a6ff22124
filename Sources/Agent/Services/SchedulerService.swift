import Foundation
import ServiceLifecycle

/// The scheduler as a service: runs fetches until graceful shutdown, which cancels a fetch in progress (it saves what
/// it read and records its result) and ends `run()`.
struct SchedulerService: Service, CustomStringConvertible {
    let scheduler: AgentScheduler

    var description: String { "scheduler" }

    func run() async throws {
        let scheduler = self.scheduler
        await withGracefulShutdownHandler {
            await scheduler.run()
        } onGracefulShutdown: {
            Task { await scheduler.shutdown() }
        }
    }
}
