import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Publishing

/// A minimal JSON-POST target: `{"text": ..., "idempotency_key": ...}` with an `Idempotency-Key` header, a hard
/// deadline (the request is raced against the remaining budget and cancelled), errors classified by status code.
/// Used by the demo's in-process endpoint and as the stand-in `webhook` kind until the publishing module's webhook
/// target replaces it.
public struct JSONPostPublisher: Publisher {
    public let name: String
    public let url: URL

    public init(name: String, url: URL) {
        self.name = name
        self.url = url
    }

    struct Body: Encodable {
        var text: String
        var idempotency_key: String
        var window_start: String
        var window_end: String
    }

    public func publish(_ post: Post, deadline: Date) async -> DeliveryOutcome {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/json; charset=utf-8", forHTTPHeaderField: "Content-Type")
        request.setValue(post.idempotencyKey, forHTTPHeaderField: "Idempotency-Key")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        let iso = ISO8601DateFormatter()
        guard let body = try? encoder.encode(Body(text: post.text, idempotency_key: post.idempotencyKey,
                                                  window_start: iso.string(from: post.windowStart),
                                                  window_end: iso.string(from: post.windowEnd))) else {
            return .permanent(reason: "cannot encode the post")
        }
        request.httpBody = body
        let budget = deadline.timeIntervalSinceNow
        guard budget > 0 else { return .retryable(reason: "deadline passed before sending", retryAfter: nil) }
        request.timeoutInterval = budget + 5  // the race below ends it at the deadline
        let prepared = request
        let host = url.host ?? "endpoint"
        let result = await withTaskGroup(of: DeliveryOutcome?.self) { group in
            group.addTask {
                do {
                    let (data, response) = try await URLSession.shared.data(for: prepared)
                    return Self.classify(data: data, response: response)
                } catch is CancellationError {
                    return nil
                } catch let e as URLError where e.code == .timedOut || e.code == .cancelled {
                    return nil
                } catch {
                    return .retryable(reason: "\(host): \(error.localizedDescription)", retryAfter: nil)
                }
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(budget))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        return result ?? .retryable(reason: "no answer from \(url.host ?? "endpoint") before the deadline", retryAfter: nil)
    }

    static func classify(data: Data, response: URLResponse) -> DeliveryOutcome {
        guard let http = response as? HTTPURLResponse else { return .retryable(reason: "not an HTTP response", retryAfter: nil) }
        let code = http.statusCode
        let id = (try? JSONSerialization.jsonObject(with: data) as? [String: Any])?["id"].map { "\($0)" }
        switch code {
        case 200..<300:
            return http.value(forHTTPHeaderField: "Idempotent-Replayed") == "true" ? .alreadyDelivered(remoteID: id) : .delivered(remoteID: id)
        case 408, 429, 500...599:
            let after = http.value(forHTTPHeaderField: "Retry-After").flatMap(TimeInterval.init)
            return .retryable(reason: "HTTP \(code)", retryAfter: after)
        default:
            let message = String(decoding: data.prefix(200), as: UTF8.self)
            return .permanent(reason: "HTTP \(code)" + (message.isEmpty ? "" : ": \(message)"))
        }
    }
}
