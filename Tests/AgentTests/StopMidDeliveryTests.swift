import Agent
import Foundation
import HTTPTestSupport
import Publishing
import Store
import Testing
import WallTime

/// The agent stopping (SIGTERM: the fetch cancelled) while a post is in flight. Cut, the post's fate is unknown and
/// the next start sends it again, which a target without idempotency keys (a webhook) shows twice. So a post already
/// sent runs to its answer (or its deadline), and no other post is sent after the stop.
@Suite(.timeLimit(.minutes(1))) struct StopMidDeliveryTests {
    @Test func aPostInFlightWhenTheAgentStopsRunsToItsAnswerAndNoOtherIsSent() async throws {
        let dir = try TempDir()
        let endpoint = try RecordingEndpoint(script: [.holdUntilReleased])
        let url = try await endpoint.start()
        var config = try Fixture.config(dir: dir, schedule: "deadline = \"30s\"")
        let template = try WebhookBodyTemplate()
        config.publishers = [
            WebhookPublisher(name: "first", url: url, bodyTemplate: template),
            WebhookPublisher(name: "second", url: url, bodyTemplate: template),
        ]
        let now = Instant(Fixture.date("2026-11-21T10:10:00+09:00"))
        let stopped = Task {
            await Fetcher(configuration: config, clock: ContinuousClock()).fetch(now: now, trigger: [.signal])
        }
        await endpoint.received()
        stopped.cancel()
        await endpoint.release()
        let report = await stopped.value

        #expect(await endpoint.requests == 1, "nothing is sent after the stop")
        let first = try #require(report.deliveries.first { $0.target == "first" })
        #expect(first.outcome.isDelivered, "\(first)")
        let second = try #require(report.deliveries.first { $0.target == "second" })
        #expect(second.reason == "not sent: the agent is stopping")
        let pending = try StateStore(path: config.statePath).outbox(status: .pending)
        #expect(pending.map(\.target) == ["second"])
        #expect(pending.first?.attempts == 0, "an entry not sent counts no attempt")

        // The next start sends the one post not sent, and only it.
        let restarted = await Fetcher(configuration: config, clock: ContinuousClock()).fetch(
            now: now, trigger: [.signal])
        await endpoint.stop()
        #expect(await endpoint.requests == 2)
        #expect(restarted.deliveries.map(\.target) == ["second"])
        #expect(restarted.deliveries.allSatisfy { $0.outcome.isDelivered })
        #expect(try StateStore(path: config.statePath).outbox(status: .pending).isEmpty)
    }
}
