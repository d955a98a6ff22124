import Agent
import Foundation
import Publishing
import Store
import Testing
import WallTime

/// A fetch cancelled while a target has not answered (the agent stopping on SIGTERM) says so: the post stays in the
/// outbox as unconfirmed, and its reason names the stop, not a deadline that was far from over (the log said "no
/// answer from webhook before the deadline" 1 s into a 30 s budget).
@Suite(.timeLimit(.minutes(1))) struct StopMidDeliveryTests {
    @Test func aDeliveryCutByTheAgentStoppingSaysSoNotDeadline() async throws {
        let dir = try TempDir()
        let endpoint = try RecordingEndpoint(script: [.hang])
        let url = try await endpoint.start()
        var config = try Fixture.config(dir: dir, schedule: "deadline = \"30s\"")
        config.publishers = [WebhookPublisher(name: "loopback", url: url, bodyTemplate: try WebhookBodyTemplate())]
        let fetcher = Fetcher(configuration: config, clock: ContinuousClock())
        let now = Instant(Fixture.date("2026-11-21T10:10:00+09:00"))
        let fetch = Task { await fetcher.fetch(now: now, trigger: [.signal]) }
        await endpoint.received()
        fetch.cancel()
        let report = await fetch.value
        await endpoint.stop()
        #expect(report.result == .failed)
        let reason = try #require(report.deliveries.first?.reason)
        #expect(reason == "stopped before loopback answered (the agent is stopping)", "\(reason)")
        let pending = try StateStore(path: config.statePath).outbox(status: .pending)
        #expect(pending.count == 1 && pending.first?.lastError == reason)
    }
}
