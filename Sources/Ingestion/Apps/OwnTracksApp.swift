import Foundation
import HTTPTypes
import SensorInput
import WallTime

/// OwnTracks (iOS), HTTP mode: one message per request (an array of them is read too). Only `{"_type": "steps",
/// "tst": 1700000000, "steps": 4321, "from": 1699999200, "to": 1700000000}` (the answer to a `reportSteps` command)
/// holds steps: the total over `from`-`to` (epoch seconds). It replaces an earlier report of the same `from`, so a
/// resend, or a report of the same day asked again later, is never added twice. `steps` -1 (not supported by the
/// phone) and every other `_type` (location, transition, …) are listed as ignored; a message that cannot be read is
/// left out and refused, the others of an array kept. The body names no device: the
/// device is `owntracks` (the receiver may qualify it, e.g. by OwnTracks' `X-Limit-D` header).
struct OwnTracksApp: PushApp {
    static let name = "owntracks"
    var name: String { Self.name }
    /// The latest second a report may name (2100-01-01).
    static let latestSecond: Int64 = 4_102_444_800

    let about =
        "OwnTracks HTTP: {\"_type\": \"steps\", \"tst\", \"steps\", \"from\", \"to\"} (epoch seconds)"

    func recognises(_ body: PayloadBody) -> Bool {
        guard case .success(let tree) = body.document else { return false }
        if case .string? = tree["_type"] { return true }
        if case .string? = tree[0]?["_type"] { return true }
        return false
    }

    func parse(_ body: PayloadBody) throws -> Payload { try Self.parse(body) }

    /// OwnTracks' HTTP booklet: a 200's body is a JSON array of messages for the phone, and a zero-length body is
    /// posted when a friend is deleted. Its queue is held until a 2xx (owntracks/ios#663: "the app waits for a
    /// positive response before it continues to the next message"), so what it cannot fix is answered 200 with no
    /// command: asking a phone whose steps report is unreadable to report again loops.
    var convention: AppConvention {
        AppConvention(
            stored: Self.answer,
            emptyBody: .init(sentBy: Self.sent, note: "empty body (OwnTracks sends one when a friend is deleted)"),
            unreadable: { Self.messages([]) })
    }

    /// One message for the phone, as OwnTracks reads it.
    struct Command: Encodable, Equatable {
        var type: String
        var action: String

        enum CodingKeys: String, CodingKey {
            case type = "_type"
            case action
        }
    }

    /// OwnTracks reports steps only when a `reportSteps` command asks (push-sources.md): in HTTP mode the answer to
    /// a POST is the only way to ask. Every message but a steps report is answered with that command (no
    /// `from`/`to`: today's total so far, which replaces the day's earlier report); a steps report is answered `[]`,
    /// so nothing loops.
    static func answer(_ payload: Payload) -> HTTPAnswer {
        messages(payload.isStepsReport ? [] : [Command(type: "cmd", action: "reportSteps")])
    }

    /// A 200 whose body is `messages` as OwnTracks reads them: a JSON array.
    static func messages(_ messages: [Command]) -> HTTPAnswer {
        HTTPAnswer(
            status: .ok, headerFields: [.contentType: "application/json"], body: HTTPAnswer.jsonData(messages, "[]"))
    }

    /// Whether the request comes from OwnTracks by its headers: its `User-Agent`, or its `X-Limit-U`/`X-Limit-D`
    /// headers (user and device).
    static func sent(_ fields: HTTPFields) -> Bool {
        fields[HTTPField.Name("X-Limit-U")!] != nil || fields[HTTPField.Name("X-Limit-D")!] != nil
            || fields[.userAgent]?.lowercased().hasPrefix("owntracks") == true
    }

    static func parse(_ body: PayloadBody) throws -> Payload {
        let root = try body.document.get()
        var payload = Payload(format: name)
        var others: [String: Int] = [:]
        let messages: [(JSONTree, String)]
        if case .array(let list) = root {
            messages = list.enumerated().map { ($1, "[\($0)]") }
        } else {
            messages = [(try root.object(at: ""), "")]
        }
        for (message, prefix) in messages {
            payload.refusingItem(device: name) { payload in
                try read(message, at: prefix, into: &payload, others: &others)
            }
        }
        payload.ignored += others.sorted { $0.key < $1.key }.map { "\($0.key) (\(counted($0.value, "message")))" }
        return payload
    }

    /// One message (`prefix`: its index in an array, empty for a lone one): a steps report into items, any other
    /// `_type` counted into `others`.
    static func read(
        _ message: JSONTree, at prefix: String, into payload: inout Payload, others: inout [String: Int]
    ) throws {
        func at(_ key: String) -> String { prefix.isEmpty ? key : "\(prefix).\(key)" }
        _ = try message.object(at: prefix)
        let type = try message.member("_type", at: at("_type")).text(at: at("_type"))
        guard type == "steps" else {
            others[type, default: 0] += 1
            return
        }
        payload.isStepsReport = true
        let steps = try message.member("steps", at: at("steps")).integer(at: at("steps"))
        let from = try second(message, "from", at: at("from"))
        let to = try second(message, "to", at: at("to"))
        if message["tst"] != nil { _ = try second(message, "tst", at: at("tst")) }
        guard to >= from else { throw PayloadError(path: at("to"), message: "before from") }
        guard steps != -1 else {
            payload.ignored.append("steps report: not supported by the phone (-1)")
            return
        }
        guard steps >= 0, steps < StepReading.countLimit else {
            throw PayloadError(path: at("steps"), message: "\(steps) is not a step count (0 to 2^40, or -1)")
        }
        payload.items.append(
            .replacing(
                device: name, key: "steps from \(from)",
                reading: StepReading(
                    start: Instant(nanosecondsSinceEpoch: from * 1_000_000_000),
                    end: Instant(nanosecondsSinceEpoch: to * 1_000_000_000), steps: Int(steps)),
                microsteps: steps * 1_000_000))
    }

    /// An epoch second from 1970 to 2100.
    static func second(_ message: JSONTree, _ key: String, at path: @autoclosure () -> String) throws -> Int64 {
        let v = try message.member(key, at: path()).integer(at: path())
        guard (0...latestSecond).contains(v) else {
            throw PayloadError(path: path(), message: "\(v) is not a time in seconds between 1970 and 2100")
        }
        return v
    }
}
