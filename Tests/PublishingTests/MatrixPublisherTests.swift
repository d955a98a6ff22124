import FlyingFox
import Foundation
import Testing

@testable import Publishing

@Suite struct MatrixPublisherTests {
    @Test func putsToTheTxnIdPathWithBearerToken() async throws {
        let server = try await FakeHTTPServer.start { _, _ in jsonResponse(200, ["event_id": "$abc:localhost"]) }
        defer { Task { await server.stop() } }
        let publisher = MatrixPublisher(
            baseURL: server.baseURL, token: "syt_secret", roomID: "!room:localhost", context: server.context)
        #expect(await publisher.publish(samplePost, deadline: soon()) == .delivered(remoteID: "$abc:localhost"))
        let seen = try #require(await server.requests.first)
        #expect(seen.method == "PUT")
        #expect(
            seen.path
                == "/_matrix/client/v3/rooms/!room:localhost/send/m.room.message/steps-20251121T010000Z-20251121T013000Z"
                || seen.path
                    == "/_matrix/client/v3/rooms/%21room%3Alocalhost/send/m.room.message/steps-20251121T010000Z-20251121T013000Z"
        )
        #expect(seen.headers["authorization"] == "Bearer syt_secret")
        #expect(seen.json?["msgtype"] as? String == "m.notice")
        #expect(seen.json?["body"] as? String == samplePost.text)
    }

    @Test func retryAfterHeaderAndSameTxnIdOnRetry() async throws {
        let server = try await FakeHTTPServer.start { _, n in
            n == 1
                ? jsonResponse(
                    429, ["errcode": "M_LIMIT_EXCEEDED", "error": "Too Many Requests", "retry_after_ms": 516],
                    headers: ["Retry-After": "4"])
                : jsonResponse(200, ["event_id": "$e1"])
        }
        defer { Task { await server.stop() } }
        let publisher = MatrixPublisher(baseURL: server.baseURL, token: "t", roomID: "!r:hs", context: server.context)
        #expect(
            await publisher.publish(samplePost, deadline: soon())
                == .retryable(reason: "HTTP 429: M_LIMIT_EXCEEDED Too Many Requests", retryAfter: 4))
        #expect(await publisher.publish(samplePost, deadline: soon()) == .delivered(remoteID: "$e1"))
        let paths = await server.requests.map(\.path)
        #expect(paths.count == 2 && paths[0] == paths[1])
    }

    @Test func unknownTokenIsPermanent() async throws {
        let server = try await FakeHTTPServer.start { _, _ in
            jsonResponse(
                401, ["errcode": "M_UNKNOWN_TOKEN", "error": "Invalid access token passed.", "soft_logout": false])
        }
        defer { Task { await server.stop() } }
        let outcome = await MatrixPublisher(
            baseURL: server.baseURL, token: "t", roomID: "!r:hs", context: server.context
        ).publish(samplePost, deadline: soon())
        #expect(outcome == .permanent(reason: "HTTP 401: M_UNKNOWN_TOKEN Invalid access token passed."))
    }
}
