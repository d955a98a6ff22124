import Foundation
import Logging
import ServiceLifecycle
import UnixSignals

/// SIGUSR1, iOS's "Simulate Background Fetch": each signal asks the scheduler for a fetch. It says the agent is ready
/// only once the signal is trapped, since SIGUSR1's default action would end the process.
struct FetchSignalService: Service, CustomStringConvertible {
    let scheduler: AgentScheduler
    /// Why fetching is off, or nil: said in the ready line.
    let disabledReason: String?
    let logger: Logger

    var description: String { "fetch signal (SIGUSR1)" }

    func run() async throws {
        let signals = await UnixSignalsSequence(trapping: .sigusr1)
        if let disabledReason {
            logger.notice("ready, fetching off (\(disabledReason)): SIGUSR1 and pushes are ignored")
        } else {
            logger.info("ready: `kill -USR1 \(getpid())` fetches now")
        }
        for await _ in signals.cancelOnGracefulShutdown() {
            await scheduler.post(.signal)
        }
    }
}
