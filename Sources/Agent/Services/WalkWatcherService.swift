import Foundation
import Ingestion
import Logging
import ServiceLifecycle

/// The walk trigger's eyes: tells the scheduler when the source file changes (inotify), from start until graceful
/// shutdown. Without inotify the trigger is off and the agent goes on.
struct WalkWatcherService: Service, CustomStringConvertible {
    let path: String
    let scheduler: AgentScheduler
    let logger: Logger

    var description: String { "walk watcher (\(path))" }

    func run() async throws {
        let scheduler = self.scheduler
        let watcher: SourceWatcher
        do {
            watcher = try SourceWatcher(path: path) { Task { await scheduler.sourceChanged() } }
        } catch {
            logger.warning("walk trigger off: \(error)")
            return
        }
        try? await gracefulShutdown()
        watcher.stop()
    }
}
