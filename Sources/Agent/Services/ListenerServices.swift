import Ingestion
import Logging
import Store
import WallTime

extension ReceiverService {
    /// The receiver of `[receive]` (its token, when it has none, refuses every request). With `releaseMemoryAbove`,
    /// a body larger than that many bytes has memory given back (`MemoryTrim`) between its stages: the agent's.
    package convenience init(
        receive: AgentConfiguration.Receive, store: StateStore, logger: Logger, clock: WallClock = .system,
        releaseMemoryAbove: Int? = nil
    ) {
        self.init(
            host: receive.host, port: receive.port, token: receive.token ?? "", limits: receive.limits, store: store,
            logger: logger, clock: clock,
            releaseMemory: releaseMemoryAbove.map { MemoryRelease(above: $0) { MemoryTrim.releaseIdlePages() } })
    }
}

extension PushListener {
    /// The listener of `[push]`: each accepted push a `.push` trigger of `scheduler`.
    package convenience init(
        port: UInt16, token: String, scheduler: AgentScheduler, disabledReason: String? = nil,
        logger: Logger = Logger(label: "steptweet.push")
    ) {
        self.init(port: port, token: token, disabledReason: disabledReason, logger: logger) {
            await scheduler.post(.push)
        }
    }
}
