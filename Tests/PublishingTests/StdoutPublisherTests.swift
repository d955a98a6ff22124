import Foundation
import Publishing
import Testing
import WallTime

@Suite struct StdoutPublisherTests {
    @Test func stdoutDeliversWithoutRemoteID() async {
        let post = Post(
            text: "hello", idempotencyKey: "k",
            window: TimeWindow(
                start: Instant(secondsSinceEpoch: 0),
                end: Instant(secondsSinceEpoch: 60)))
        let outcome = await StdoutPublisher().publish(post, deadline: Deadline(in: .seconds(5)))
        #expect(outcome == .delivered(remoteID: nil))
        #expect(outcome.isDelivered)
        #expect(!DeliveryOutcome.retryable(reason: "503", retryAfter: nil).isDelivered)
    }
}
