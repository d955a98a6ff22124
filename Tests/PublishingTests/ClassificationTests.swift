import Foundation
import Testing
import WallTime

@testable import Publishing

@Suite struct ClassificationTests {
    let now = Date(timeIntervalSince1970: 1_795_316_400)  // 2026-11-22T03:00:00Z

    func classify(_ status: Int, _ body: String = "", headers: [String: String] = [:]) -> DeliveryOutcome {
        ResponseClassifier.classify(
            HTTPReply(status: status, headers: headers, body: Data(body.utf8)), now: now,
            redactor: Redactor(), remoteID: { $0.jsonID })
    }

    @Test func statusCodesDecideNotMessages() {
        #expect(classify(200, #"{"id":"5"}"#) == .delivered(remoteID: "5"))
        #expect(classify(201) == .delivered(remoteID: nil))
        #expect(classify(204) == .delivered(remoteID: nil))
        for status in [408, 425, 429, 500, 502, 503, 504] {
            guard case .retryable = classify(status, #"{"error":"ok, this text says success"}"#) else {
                Issue.record("\(status) should be retryable")
                continue
            }
        }
        for status in [400, 401, 403, 404, 409, 410, 413, 422] {
            guard case .permanent = classify(status, "Too many requests, try again") else {
                Issue.record("\(status) should be permanent")
                continue
            }
        }
    }

    @Test func retryAfterForms() {
        #expect(classify(429, headers: ["Retry-After": "7"]) == .retryable(reason: "HTTP 429", retryAfter: 7))
        #expect(
            classify(503, headers: ["Retry-After": "Sun, 22 Nov 2026 03:01:30 GMT"])
                == .retryable(reason: "HTTP 503", retryAfter: 90, unconfirmed: true))
        #expect(
            classify(429, headers: ["X-RateLimit-Reset": "2026-11-22T03:05:00.000000Z"])
                == .retryable(reason: "HTTP 429", retryAfter: 300))
        #expect(
            classify(429, headers: ["x-rate-limit-reset": "1795316460"])
                == .retryable(reason: "HTTP 429", retryAfter: 60))
        #expect(classify(429, headers: ["RateLimit-Reset": "30"]) == .retryable(reason: "HTTP 429", retryAfter: 30))
        #expect(
            classify(429, headers: ["X-RateLimit-Reset-After": "2.5"])
                == .retryable(reason: "HTTP 429", retryAfter: 2.5))
        #expect(
            classify(429, #"{"errcode":"M_LIMIT_EXCEEDED","retry_after_ms":1500}"#)
                == .retryable(reason: "HTTP 429: M_LIMIT_EXCEEDED", retryAfter: 1.5))
        // An HTTP-date may come in any of its three forms (RFC 9110 §5.6.7): IMF-fixdate, RFC 850, asctime.
        for date in ["Sunday, 22-Nov-26 03:01:30 GMT", "Sun Nov 22 03:01:30 2026", "Sun Nov  2 03:01:30 2026"] {
            let expected: TimeInterval = date.contains("Nov  2") ? 0 : 90
            #expect(
                classify(503, headers: ["Retry-After": date])
                    == .retryable(reason: "HTTP 503", retryAfter: expected, unconfirmed: true), "\(date)")
        }
        #expect(classify(429, headers: ["Retry-After": "soon"]) == .retryable(reason: "HTTP 429", retryAfter: nil))
        #expect(classify(503) == .retryable(reason: "HTTP 503", retryAfter: nil, unconfirmed: true))
        // A reset in the past means "now", never a negative wait.
        #expect(
            classify(429, headers: ["x-rate-limit-reset": "1795316000"])
                == .retryable(reason: "HTTP 429", retryAfter: 0))
    }

    @Test func serverMessagesAreShownAndRedacted() {
        #expect(
            classify(422, #"{"error":"Validation failed: Text can't be blank"}"#)
                == .permanent(reason: "HTTP 422: Validation failed: Text can't be blank"))
        #expect(
            classify(400, #"{"error":"InvalidRequest","message":"Invalid rkey"}"#)
                == .permanent(reason: "HTTP 400: InvalidRequest Invalid rkey"))
        #expect(classify(404, "channel_not_found\n") == .permanent(reason: "HTTP 404: channel_not_found"))
        let leaked = ResponseClassifier.classify(
            HTTPReply(status: 400, body: Data(#"{"error":"bad request to /x?access_token=abc123def&x=1"}"#.utf8)),
            now: now, redactor: Redactor(), remoteID: { _ in nil })
        #expect(leaked == .permanent(reason: "HTTP 400: bad request to /x?access_token=[REDACTED]&x=1"))
    }

    /// Servers shape their error answers differently: a field of another shape than the one read (FastAPI's `detail`
    /// list, a wait written as text) reads as absent, and hides neither the other fields nor the answer.
    @Test func fieldsOfAnotherShapeReadAsAbsent() {
        #expect(
            classify(422, #"{"detail":[{"loc":["body"],"msg":"bad"}],"message":"Text is too long"}"#)
                == .permanent(reason: "HTTP 422: Text is too long"))
        #expect(
            classify(400, #"{"error":{"code":17,"message":"Invalid token"}}"#)
                == .permanent(reason: "HTTP 400: Invalid token"))
        #expect(
            classify(400, #"{"errors":[{"code":187,"message":"Status is a duplicate."}],"title":""}"#)
                == .permanent(reason: "HTTP 400: Status is a duplicate."))
        let wait = HTTPReply(status: 429, body: Data(#"{"retry_after_ms":"soon","retry_after":2.5}"#.utf8))
        #expect(ResponseClassifier.retryAfter(wait, now: now) == 2.5)
    }
}

@Suite struct RedactorTests {
    @Test func knownSecretsAndCommonPatterns() {
        let r = Redactor(secrets: ["s3cr3t-token", "https://hooks.example/abc"])
        #expect(r.redact("token s3cr3t-token and s3cr3t%2Dtoken") == "token [REDACTED] and [REDACTED]")
        #expect(r.redact("Authorization: Bearer eyJabc.def") == "Authorization: [REDACTED]")
        #expect(r.redact("sent with bearer s3cr3t-token") == "sent with bearer [REDACTED]")
        // A server's words after "Bearer" are not a secret (Takahē's answer to a bad token).
        #expect(r.redact("HTTP 401: Invalid Bearer token") == "HTTP 401: Invalid Bearer token")
        #expect(
            r.redact("GET https://ntfy.example/steps?auth=QmFzaWMg&x=1")
                == "GET https://ntfy.example/steps?auth=[REDACTED]&x=1")
        #expect(r.redact("PUT /send?access_token=syt_abc") == "PUT /send?access_token=[REDACTED]")
        #expect(
            r.redact("POST https://discord.com/api/webhooks/123/AbC-tok_en?wait=true")
                == "POST https://discord.com/api/webhooks/123/[REDACTED]?wait=true")
        #expect(
            r.redact("https://hooks.slack.com/services/T00/B00/XXXX failed")
                == "https://hooks.slack.com/services/[REDACTED] failed")
        #expect(
            r.redact(#"{"accessJwt":"eyJ.a.b","did":"did:plc:x"}"#) == #"{"accessJwt":"[REDACTED]","did":"did:plc:x"}"#)
        #expect(r.redact(#"{"i": "misskey-token", "text": "hi"}"#) == #"{"i": "[REDACTED]", "text": "hi"}"#)
        #expect(r.redact("error at https://hooks.example/abc") == "error at [REDACTED]")
        // OAuth 2.0: a refresh request's form, a token answer, Basic client credentials.
        #expect(
            r.redact("refresh_token=rt-1&grant_type=refresh_token&client_id=cid&client_secret=cs-2")
                == "refresh_token=[REDACTED]&grant_type=refresh_token&client_id=cid&client_secret=[REDACTED]")
        #expect(
            r.redact(#"{"access_token":"at-1","refresh_token":"rt-2","expires_in":7200,"client_secret":"cs"}"#)
                == #"{"access_token":"[REDACTED]","refresh_token":"[REDACTED]","expires_in":7200,"client_secret":"[REDACTED]"}"#
        )
        #expect(r.redact("Authorization: Basic Y2lkOmNzLTI=") == "Authorization: [REDACTED]")
        #expect(Redactor.origin(of: URL(string: "https://discord.com/api/webhooks/1/tok")!) == "https://discord.com/…")
    }
}

@Suite struct BackoffTests {
    @Test func exponentialWithEqualJitter() {
        #expect(Backoff.delay(attempt: 1, retryAfter: nil, base: 30, random: { 0 }) == 15)
        #expect(Backoff.delay(attempt: 1, retryAfter: nil, base: 30, random: { 0.999999 }) < 30)
        #expect(Backoff.delay(attempt: 3, retryAfter: nil, base: 30, random: { 0 }) == 60)
        #expect(Backoff.delay(attempt: 3, retryAfter: nil, base: 30, random: { 0.5 }) == 90)
        #expect(Backoff.delay(attempt: 30, retryAfter: nil, base: 30, cap: 3600, random: { 0 }) == 1800)
        #expect(Backoff.delay(attempt: 0, retryAfter: nil, base: 10, random: { 0 }) == 5)
    }

    @Test func theServersWishWinsWithALittleJitter() {
        #expect(Backoff.delay(attempt: 5, retryAfter: 120, random: { 0 }) == 120)
        #expect(Backoff.delay(attempt: 5, retryAfter: 120, random: { 1 }) == 125)
        #expect(Backoff.delay(attempt: 1, retryAfter: 7200, cap: 3600, random: { 0 }) == 7200)
        #expect(Backoff.delay(attempt: 1, retryAfter: -3, random: { 0.5 }) == 0)
    }
}

@Suite struct IdempotencyKeyTests {
    @Test func keyIsDeterministicFromTheWindow() {
        let start = Instant(secondsSinceEpoch: 1_795_316_400)
        let window = TimeWindow(start: start, end: start + .seconds(1800))
        #expect(Post.idempotencyKey(for: window) == "steps-20261122T030000Z-20261122T033000Z")
        #expect(
            Post.idempotencyKey(for: TimeWindow(start: start + .milliseconds(250), end: window.end))
                == "steps-20261122T030000.250Z-20261122T033000Z")
        #expect(Post(text: "t", window: window).idempotencyKey == Post.idempotencyKey(for: window))
    }
}

@Suite struct TextGateTests {
    @Test func reasonsSayWhatIsWrong() {
        #expect(
            TextGate(rule: .x).prepare(String(repeating: "a", count: 281))
                == .failure(
                    Stop(
                        .permanent(
                            reason: "text too long for X (280 weighted): 281 > 280 (set shorten = true to cut it)"))))
        #expect(
            TextGate(rule: .bluesky).prepare(String(repeating: "👨‍👩‍👧", count: 170))
                == .failure(
                    Stop(
                        .permanent(
                            reason:
                                "text too long for Bluesky (300 graphemes, 3000 bytes): 3060 bytes > 3000 (set shorten = true to cut it)"
                        ))))
        #expect(
            TextGate(rule: .x).prepare("a\u{FFFE}")
                == .failure(
                    Stop(.permanent(reason: "text refused by X (280 weighted): it contains U+FFFE, U+FEFF or U+FFFF"))))
        #expect(TextGate(rule: nil).prepare("") == .failure(Stop(.permanent(reason: "empty text"))))
        #expect(
            TextGate(rule: .x, shorten: true).prepare(String(repeating: "a", count: 300))
                == .success(String(repeating: "a", count: 278) + "…"))
    }
}
