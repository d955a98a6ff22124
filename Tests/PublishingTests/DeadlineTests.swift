import Clocks
import FlyingFox
import Foundation
import Testing

@testable import Publishing

/// Hard deadlines on real sockets (127.0.0.1): a server that never answers, and one that drips a byte at a time
/// (never idle long enough for URLSession's idle timeout). The deadlines are on a test clock that the server
/// moves past the deadline once the request is in, so the tests neither wait long nor depend on the machine's
/// load; nothing asserts elapsed time: without the race against the deadline the drip test would end `.delivered`
/// after its 3 s body.
@Suite struct DeadlineTests {
    static let deadlineReason = "deadline passed before a response (request cancelled)"

    @Test func aServerThatNeverAnswersEndsAtTheDeadline() async throws {
        let clock = TestClock<Duration>()
        let server = try await LoopbackServer.start { _, _ in
            await clock.advance(by: .seconds(2))
            return try await neverAnswer()
        }
        defer { Task { await server.stop() } }
        let publisher = MastodonPublisher(baseURL: server.baseURL, token: "t", maxCharacters: 500)
        let outcome = await publisher.publish(samplePost, deadline: Deadline(in: .seconds(1), clock: clock))
        #expect(outcome == .retryable(reason: Self.deadlineReason, retryAfter: nil, unconfirmed: true))
        #expect(await server.requests.count == 1)
    }

    @Test func aServerThatDripsOneByteAtATimeEndsAtTheDeadline() async throws {
        // 60 bytes, one every 50 ms: 3 s in all, never 50 ms idle.
        let clock = TestClock<Duration>()
        let server = try await LoopbackServer.start { _, _ in
            Task {  // the deadline passes while the body drips
                try await Task.sleep(for: .milliseconds(150))
                await clock.advance(by: .seconds(2))
            }
            return drippingResponse(bytes: 60, interval: .milliseconds(50))
        }
        defer { Task { await server.stop() } }
        let publisher = SlackPublisher(url: server.url("/services/T/B/X"))
        let outcome = await publisher.publish(samplePost, deadline: Deadline(in: .seconds(1), clock: clock))
        #expect(outcome == .retryable(reason: Self.deadlineReason, retryAfter: nil, unconfirmed: true))
    }

    @Test func theDripServerDoesDeliverWhenTheDeadlineAllows() async throws {
        // The control for the test above: 4 bytes at 20 ms each arrive well inside 10 s.
        let server = try await LoopbackServer.start { _, _ in drippingResponse(bytes: 4, interval: .milliseconds(20)) }
        defer { Task { await server.stop() } }
        let outcome = await SlackPublisher(url: server.url("/services/T/B/X")).publish(samplePost, deadline: soon())
        #expect(outcome == .delivered(remoteID: nil))
    }

    @Test func aSlowAnswerInsideTheDeadlineIsDelivered() async throws {
        // 1.1 s of silence, then the answer, with 1.6 s left (on a clock that does not move): URLSession's idle
        // timeout (whole seconds in libcurl, so 1 s if it were set to the deadline) must not end the request. The
        // server keeps its silence on a thread of its own: on the cooperative pool, other suites' loops on a loaded
        // machine held it silent past the idle backstop (the deadline + 10 s) and the test failed for no fault.
        let server = OwnThreadServer(silence: .milliseconds(1100), body: #"{"id":"7"}"#)
        defer { server.stop() }
        let outcome = await MastodonPublisher(baseURL: server.baseURL, token: "t", maxCharacters: 500)
            .publish(samplePost, deadline: Deadline(in: .seconds(1.6), clock: TestClock<Duration>()))
        #expect(outcome == .delivered(remoteID: "7"), "the server: \(server.stopped ?? "still listening")")
        #expect(server.answered == 1)
    }

    @Test func aDeadlineAlreadyPassedSendsNothing() async throws {
        let server = try await LoopbackServer.start { _, _ in jsonResponse(200, ["id": "1"]) }
        defer { Task { await server.stop() } }
        let outcome = await MastodonPublisher(baseURL: server.baseURL, token: "t", maxCharacters: 500).publish(
            samplePost, deadline: Deadline(in: .seconds(-1)))
        #expect(outcome == .retryable(reason: Self.deadlineReason, retryAfter: nil, unconfirmed: true))
        #expect(await server.requests.isEmpty)
    }

    @Test func connectionRefusedIsRetryableAndRedacted() async throws {
        let server = try await LoopbackServer.start { _, _ in jsonResponse(200, [:]) }
        let url = server.url("/api/webhooks/1/SECRETTOKEN")
        await server.stop()
        let outcome = await DiscordPublisher(url: url).publish(samplePost, deadline: soon())
        // Refused: the request cannot have arrived, so a resend is safe even where it would otherwise double a post.
        guard case .retryable(let reason, nil, false) = outcome else {
            Issue.record("expected retryable, got \(outcome)")
            return
        }
        #expect(reason.hasPrefix("network error:"))
        #expect(!reason.contains("SECRETTOKEN"))
    }
}
