import Foundation
import Publishing
import Testing

@Suite struct StdoutPublisherTests {
    @Test func stdoutDeliversWithoutRemoteID() async {
        let post = Post(
            text: "hello", idempotencyKey: "k", windowStart: Date(timeIntervalSince1970: 0),
            windowEnd: Date(timeIntervalSince1970: 60))
        let outcome = await StdoutPublisher().publish(post, deadline: Deadline(in: .seconds(5)))
        #expect(outcome == .delivered(remoteID: nil))
        #expect(outcome.isDelivered)
        #expect(!DeliveryOutcome.retryable(reason: "503", retryAfter: nil).isDelivered)
    }
}
