import FlyingFox
import Foundation
import HTTPTestSupport
import Testing
import WallTime

@testable import Publishing

/// A target's server that answers with a redirect (a moved instance, a proxy's login page, a hostile server): the
/// request is not sent again to where it points, so the target's token never reaches another host and a 301 or 302
/// does not turn the post into a GET; the post fails permanently, naming where the redirect points.
@Suite struct RedirectTests {
    func post() -> Post {
        Post(
            text: "11/21 10:00:00 〜 11/21 10:30:00 の期間に 1234 歩",
            window: TimeWindow(
                start: Instant(secondsSinceEpoch: 1_795_314_000), end: Instant(secondsSinceEpoch: 1_795_315_800)))
    }

    @Test(arguments: [301, 302, 303, 307, 308])
    func aRedirectIsNotFollowedAndTheTokenStaysHome(status: Int) async throws {
        let elsewhere = try await LoopbackServer.start { _, _ in jsonResponse(200, ["id": "stolen"]) }
        defer { Task { await elsewhere.stop() } }
        // Another host name for the same machine: another origin, as a redirect to another server would be.
        let port = elsewhere.baseURL.port ?? 0
        let location = "http://localhost:\(port)/steps?secret=1"
        let server = try await LoopbackServer.start { _, _ in
            textResponse(status, "moved", headers: ["Location": location])
        }
        defer { Task { await server.stop() } }
        let ntfy = NtfyPublisher(baseURL: server.baseURL, topic: "steps", token: "tk_secret", context: HTTPContext())
        let outcome = await ntfy.publish(post(), deadline: soon())
        #expect(await elsewhere.requests.isEmpty)
        #expect(await server.requests.count == 1)
        guard case .permanent(let reason) = outcome else {
            Issue.record("a redirect gave \(outcome), not a permanent failure")
            return
        }
        #expect(reason.contains("HTTP \(status): redirects to http://localhost:\(port)/…, not followed"))
        #expect(!reason.contains("secret"))
    }

    @Test func aWebhookRedirectNamesNoPathOfItsSecretURL() async throws {
        let server = try await LoopbackServer.start { _, _ in
            textResponse(307, "", headers: ["Location": "/hooks/T000/B000/XXXXSECRET"])
        }
        defer { Task { await server.stop() } }
        let outcome = await WebhookPublisher(
            url: server.url("/hooks/T000/B000/XXXXSECRET"), bodyTemplate: try WebhookBodyTemplate(),
            context: HTTPContext()
        )
        .publish(post(), deadline: soon())
        #expect(await server.requests.count == 1)
        #expect(outcome == .permanent(reason: RedirectTests.elsewhere(307)))
    }

    static func elsewhere(_ status: Int) -> String {
        "HTTP \(status): redirects to elsewhere, not followed (the request carries the target's credentials): set the "
            + "target's address to where it points"
    }
}
