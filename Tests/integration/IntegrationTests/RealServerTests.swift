import Foundation
import Messages
import Publishing
import Testing
import WallTime

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Publishers against real servers on 127.0.0.1, started by `Tests/integration/run.sh` (Synapse with SQLite and
/// mastodon-mock), which passes their addresses and credentials in environment variables. Without those variables
/// these tests fail: they are excluded from the unit run with `swift test --skip IntegrationTests`.
@Suite(.serialized) struct RealServerTests {
    static func required(_ name: String) throws -> String {
        let value = ProcessInfo.processInfo.environment[name] ?? ""
        try #require(!value.isEmpty, "\(name) is not set: run Tests/integration/run.sh, which starts the servers")
        return value
    }

    static func get(_ url: URL, token: String) async throws -> (Int, Any) {
        var request = URLRequest(url: url)
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.timeoutInterval = 20
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, try JSONSerialization.jsonObject(with: data))
    }

    /// A window no earlier run has used (the servers keep idempotency keys).
    static func uniquePost(_ label: String) -> Post {
        let start = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 * 1000).rounded() / 1000)
        return Post(
            text:
                "11/21 10:00:00 〜 11/21 10:30:00 の期間に iPhone 5s を持って 1234 歩 歩きました。 \(label) \(UUID().uuidString.prefix(8))",
            window: TimeWindow(start: start, end: start.addingTimeInterval(1800)))
    }

    /// Publishers built from a `[[publish]]` document, secrets from the environment, as the agent will do.
    static func publishers() throws -> [String: any Publisher] {
        let toml = """
            [[publish]]
            kind = "matrix"
            base_url = "\(try required("STEPTWEET_IT_MATRIX_URL"))"
            token_env = "STEPTWEET_IT_MATRIX_TOKEN"
            room_id = "\(try required("STEPTWEET_IT_MATRIX_ROOM"))"
            msgtype = "m.text"

            [[publish]]
            kind = "mastodon"
            base_url = "\(try required("STEPTWEET_IT_MASTODON_URL"))"
            token_env = "STEPTWEET_IT_MASTODON_TOKEN"
            visibility = "unlisted"
            language = "ja"
            """
        let set = try PublisherFactory.make(toml: toml)
        return Dictionary(uniqueKeysWithValues: set.publishers.map { ($0.name, $0) })
    }

    @Test func synapseKeepsOneEventForARepeatedTxnId() async throws {
        let publisher = try #require(try Self.publishers()["matrix"])
        let base = try Self.required("STEPTWEET_IT_MATRIX_URL")
        let token = try Self.required("STEPTWEET_IT_MATRIX_TOKEN")
        let room = try Self.required("STEPTWEET_IT_MATRIX_ROOM")
        let post = Self.uniquePost("matrix")

        let first = await publisher.publish(post, deadline: Deadline(in: .seconds(20)))
        guard case .delivered(let eventID?) = first else {
            Issue.record("first send: \(first)")
            return
        }
        let second = await publisher.publish(post, deadline: Deadline(in: .seconds(20)))
        #expect(second == .delivered(remoteID: eventID))

        var other = Self.uniquePost("matrix-other")
        other.window.start = post.window.end
        other.idempotencyKey = Post.idempotencyKey(
            for: TimeWindow(start: other.window.start, end: other.window.start + .seconds(1800)))
        guard case .delivered(let otherID?) = await publisher.publish(other, deadline: Deadline(in: .seconds(20)))
        else {
            Issue.record("second window")
            return
        }
        #expect(otherID != eventID)

        let roomPath = OAuth1.percentEncode(room)
        let (status, body) = try await Self.get(
            URL(string: "\(base)/_matrix/client/v3/rooms/\(roomPath)/messages?dir=b&limit=100")!, token: token)
        #expect(status == 200)
        let events = ((body as? [String: Any])?["chunk"] as? [[String: Any]]) ?? []
        let matching = events.filter { (($0["content"] as? [String: Any])?["body"] as? String) == post.text }
        #expect(matching.count == 1)
        #expect(matching.first?["event_id"] as? String == eventID)
        #expect(((matching.first?["unsigned"] as? [String: Any])?["transaction_id"] as? String) == post.idempotencyKey)
    }

    /// A new login is a new device: Synapse takes the same txnId as a new event (as it does once it has forgotten the
    /// txnId, after 24 h). The post's key in its content lets `lookUp` find it all the same.
    @Test func synapseLookUpFindsAPostMadeByAnotherLogin() async throws {
        let base = try Self.required("STEPTWEET_IT_MATRIX_URL")
        let room = try Self.required("STEPTWEET_IT_MATRIX_ROOM")
        let first = MatrixPublisher(
            baseURL: URL(string: base)!, token: try Self.required("STEPTWEET_IT_MATRIX_TOKEN"), roomID: room)
        // A window that has ended: a post is only made after its window closes, and the look-up reads back to then.
        func endedPost(_ label: String) -> Post {
            let end = Date().addingTimeInterval(-120)
            var post = Self.uniquePost(label)
            post.window = TimeWindow(start: end.addingTimeInterval(-1800), end: end)
            post.idempotencyKey = Post.idempotencyKey(for: post.window) + "-\(label)"
            return post
        }
        let post = endedPost("lookup")
        guard case .delivered(let eventID?) = await first.publish(post, deadline: Deadline(in: .seconds(20))) else {
            Issue.record("first send was not delivered")
            return
        }
        var login = URLRequest(url: URL(string: "\(base)/_matrix/client/v3/login")!)
        login.httpMethod = "POST"
        login.setValue("application/json", forHTTPHeaderField: "Content-Type")
        login.httpBody = try JSONSerialization.data(withJSONObject: [
            "type": "m.login.password", "device_id": "STEPBOT-LOOKUP-\(UUID().uuidString.prefix(8))",
            "identifier": ["type": "m.id.user", "user": try Self.required("STEPTWEET_IT_MATRIX_USER")],
            "password": try Self.required("STEPTWEET_IT_MATRIX_PASSWORD"),
        ])
        login.timeoutInterval = 20
        let (data, _) = try await URLSession.shared.data(for: login)
        let token = try #require(
            (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["access_token"] as? String)
        let second = MatrixPublisher(baseURL: URL(string: base)!, token: token, roomID: room)

        let start = Date()
        #expect(await second.lookUp(post, deadline: Deadline(in: .seconds(20))) == .found(remoteID: eventID))
        print("integration: Synapse look-up (whoami + messages) took \(Date().timeIntervalSince(start)) s")
        #expect(await second.lookUp(endedPost("never-sent"), deadline: Deadline(in: .seconds(20))) == .notFound)
        // What the look-up prevents: the same txnId from the new device is a second event.
        guard case .delivered(let repeatID?) = await second.publish(post, deadline: Deadline(in: .seconds(20))) else {
            Issue.record("the resend from the new device was not delivered")
            return
        }
        #expect(repeatID != eventID)
    }

    @Test func mastodonMockKeepsOneStatusForARepeatedIdempotencyKey() async throws {
        let publisher = try #require(try Self.publishers()["mastodon"])
        let base = try Self.required("STEPTWEET_IT_MASTODON_URL")
        let token = try Self.required("STEPTWEET_IT_MASTODON_TOKEN")
        let post = Self.uniquePost("mastodon")

        let first = await publisher.publish(post, deadline: Deadline(in: .seconds(20)))
        guard case .delivered(let statusID?) = first else {
            Issue.record("first send: \(first)")
            return
        }
        #expect(await publisher.publish(post, deadline: Deadline(in: .seconds(20))) == .delivered(remoteID: statusID))

        let (meStatus, me) = try await Self.get(
            URL(string: "\(base)/api/v1/accounts/verify_credentials")!, token: token)
        #expect(meStatus == 200)
        let accountID = try #require(((me as? [String: Any])?["id"]).map { "\($0)" })
        let (listStatus, list) = try await Self.get(
            URL(string: "\(base)/api/v1/accounts/\(accountID)/statuses?limit=40")!, token: token)
        #expect(listStatus == 200)
        let statuses = (list as? [[String: Any]]) ?? []
        let matching = statuses.filter { ($0["content"] as? String)?.contains(post.text.suffix(8)) == true }
        #expect(matching.count == 1)
        #expect(matching.first.map { "\($0["id"] ?? "")" } == statusID)
        #expect(matching.first?["visibility"] as? String == "unlisted")
    }

    @Test func badTokensArePermanentOnBothServers() async throws {
        let matrix = MatrixPublisher(
            baseURL: URL(string: try Self.required("STEPTWEET_IT_MATRIX_URL"))!, token: "not-a-token",
            roomID: try Self.required("STEPTWEET_IT_MATRIX_ROOM"))
        guard
            case .permanent(let matrixReason) = await matrix.publish(
                Self.uniquePost("bad"), deadline: Deadline(in: .seconds(20)))
        else {
            Issue.record("matrix with a bad token was not permanent")
            return
        }
        #expect(matrixReason.hasPrefix("HTTP 401: M_UNKNOWN_TOKEN"))
        let mastodon = MastodonPublisher(
            baseURL: URL(string: try Self.required("STEPTWEET_IT_MASTODON_URL"))!, token: "not-a-token")
        guard
            case .permanent(let mastodonReason) = await mastodon.publish(
                Self.uniquePost("bad"), deadline: Deadline(in: .seconds(20)))
        else {
            Issue.record("mastodon with a bad token was not permanent")
            return
        }
        #expect(mastodonReason.hasPrefix("HTTP 401"))
        #expect(!mastodonReason.contains("not-a-token"))
    }

    // MARK: Images (issue 35)

    /// A real PNG of 1×1 pixel.
    static let png = Data(
        base64Encoded:
            "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")!

    /// A post of a window no earlier run has used, with the chart and an alt text unique to it.
    static func uniqueImagePost(_ label: String) -> Post {
        var post = uniquePost(label)
        post.image = PostImage(
            png: png, alt: "10 分ごとの歩数の棒グラフ: 1,234 歩 (\(label) \(UUID().uuidString.prefix(8)))", width: 1,
            height: 1)
        return post
    }

    /// Downloads `url` with the token: status and bytes.
    static func download(_ url: URL, token: String) async throws -> (Int, Data) {
        var request = URLRequest(url: url)
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.timeoutInterval = 20
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    @Test func synapseGetsTheImageAsMImageBeforeTheTextOnceOnly() async throws {
        let base = try Self.required("STEPTWEET_IT_MATRIX_URL")
        let token = try Self.required("STEPTWEET_IT_MATRIX_TOKEN")
        let room = try Self.required("STEPTWEET_IT_MATRIX_ROOM")
        let set = try PublisherFactory.make(
            toml: """
                [[publish]]
                kind = "matrix"
                base_url = "\(base)"
                token_env = "STEPTWEET_IT_MATRIX_TOKEN"
                room_id = "\(room)"
                image = "chart"
                """)
        let publisher = try #require(set.publishers.first)
        let post = Self.uniqueImagePost("matrix-image")
        let started = ContinuousClock.now
        guard case .delivered(let textID?) = await publisher.publish(post, deadline: Deadline(in: .seconds(20))) else {
            Issue.record("image post to Synapse was not delivered")
            return
        }
        let elapsed = ContinuousClock.now - started
        print("integration: Synapse upload + m.image + text took \(elapsed)")
        // A repeat (a lost answer) uploads again but sends the same two events.
        #expect(await publisher.publish(post, deadline: Deadline(in: .seconds(20))) == .delivered(remoteID: textID))

        let (status, body) = try await Self.get(
            URL(string: "\(base)/_matrix/client/v3/rooms/\(OAuth1.percentEncode(room))/messages?dir=b&limit=100")!,
            token: token)
        #expect(status == 200)
        let events = ((body as? [String: Any])?["chunk"] as? [[String: Any]]) ?? []  // newest first
        let images = events.filter { (($0["content"] as? [String: Any])?["body"] as? String) == post.image?.alt }
        let texts = events.filter { (($0["content"] as? [String: Any])?["body"] as? String) == post.text }
        #expect(images.count == 1 && texts.count == 1)
        let image = try #require(images.first?["content"] as? [String: Any])
        #expect(image["msgtype"] as? String == "m.image")
        let info = try #require(image["info"] as? [String: Any])
        #expect(info["mimetype"] as? String == "image/png" && info["size"] as? Int == Self.png.count)
        let imageIndex = try #require(
            events.firstIndex { $0["event_id"] as? String == images.first?["event_id"] as? String })
        let textIndex = try #require(events.firstIndex { $0["event_id"] as? String == textID })
        #expect(imageIndex > textIndex, "the image event comes before the text")
        // The uploaded bytes, read back through the authenticated media API.
        let mxc = try #require(image["url"] as? String)
        let parts = mxc.dropFirst("mxc://".count).split(separator: "/")
        let (downloadStatus, bytes) = try await Self.download(
            URL(string: "\(base)/_matrix/client/v1/media/download/\(parts[0])/\(parts[1])")!, token: token)
        #expect(downloadStatus == 200 && bytes == Self.png)
    }

    @Test func mastodonMockGetsTheImageWithItsDescription() async throws {
        let base = try Self.required("STEPTWEET_IT_MASTODON_URL")
        let token = try Self.required("STEPTWEET_IT_MASTODON_TOKEN")
        let publisher = MastodonPublisher(
            baseURL: URL(string: base)!, token: token, maxCharacters: 500, image: ImageOption(chart: true))
        let post = Self.uniqueImagePost("mastodon-image")
        guard case .delivered(let statusID?) = await publisher.publish(post, deadline: Deadline(in: .seconds(20)))
        else {
            Issue.record("image post to mastodon-mock was not delivered")
            return
        }
        #expect(await publisher.publish(post, deadline: Deadline(in: .seconds(20))) == .delivered(remoteID: statusID))
        let (status, body) = try await Self.get(URL(string: "\(base)/api/v1/statuses/\(statusID)")!, token: token)
        #expect(status == 200)
        let media = ((body as? [String: Any])?["media_attachments"] as? [[String: Any]]) ?? []
        #expect(media.count == 1)
        #expect(media.first?["description"] as? String == post.image?.alt)
        let url = try #require((media.first?["url"] as? String).flatMap { URL(string: $0) })
        let (downloadStatus, bytes) = try await Self.download(url, token: token)
        #expect(downloadStatus == 200 && bytes == Self.png)
    }
}
