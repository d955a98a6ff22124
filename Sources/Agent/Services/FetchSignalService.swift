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
    /// What must be up before the agent says it is ready (the receiver listening). When it fails, the agent is not
    /// ready: this waits for the shutdown that failure brings.
    var beforeReady: @Sendable () async throws -> Void = {}

    var description: String { "fetch signal (SIGUSR1)" }

    func run() async throws {
        let signals = await UnixSignalsSequence(trapping: .sigusr1)
        do {
            try await beforeReady()
        } catch {
            try? await gracefulShutdown()
            return
        }
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
