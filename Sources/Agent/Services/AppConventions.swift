import Foundation
import HTTPTypes
import SensorInput

/// How one phone app must be answered, beyond the receiver's plain JSON answers (push-sources.md): where it shows
/// its user a refusal, what it reads in a 200, which empty body it sends. A nil member is the plain answer.
struct AppConvention: Sendable {
    /// How the app shows its user why a message was not kept, or not all of it (the text given, as the answer): used
    /// for a refused payload, one with items left out, a payload whose data cannot be used (`Payload.problem`) and
    /// one that cannot be stored. Nil: JSON with its status (400, 422, or 503), which the app may retry but shows
    /// nobody, and a payload with a problem is stored as any other.
    var tellUser: (@Sendable (String) -> HTTPAnswer)?
    /// The answer to a stored payload; nil: the JSON summary (`format`, `readings`, `samples`, …).
    var stored: (@Sendable (Payload) -> HTTPAnswer)?
    /// An empty body the app sends and waits for a 2xx to: answered as stored, holding nothing but `note` in
    /// `ignored`. Whether a request is the app's is told from its headers (`sentBy`) or its `?format=NAME`.
    var emptyBody: EmptyBody?
    /// The app holds its queue until a 2xx and resends the same message forever on anything else, so a message it
    /// cannot fix (one that cannot be read, items left out) is answered 2xx lest it block every later one: with
    /// `stored` for a payload read with items left out, with `unreadable` for a body refused whole. What was left
    /// out is logged and kept for `status`. A token it can fix is still a 401, and a state that cannot be written a
    /// 503, which it sends again.
    var unreadable: (@Sendable () -> HTTPAnswer)?

    struct EmptyBody: Sendable {
        var sentBy: @Sendable (HTTPFields) -> Bool
        var note: String
    }

    /// Answered as the README says every app is, with nothing of its own.
    static let plain = AppConvention()
}

/// The table of app answer conventions, one entry per app that needs one (adding an app is one case here); keyed by
/// the app its payload format declares (`PayloadFormat.app`), never by a format name.
enum AppConventions {
    static func of(_ app: PayloadApp?) -> AppConvention {
        switch app {
        case .sensorLogger?:
            // PUSHING.md: the text of a 499 answer is shown to the user (once per recording), nothing of any other.
            // The app sends no message again (push-sources.md), so a 503's "send again" would reach nobody.
            return AppConvention(tellUser: sensorLoggerNotice)
        case .ownTracks?:
            // OwnTracks' HTTP booklet: a 200's body is a JSON array of messages for the phone, and a zero-length
            // body is posted when a friend is deleted. Its queue is held until a 2xx (owntracks/ios#663: "the app
            // waits for a positive response before it continues to the next message"), so what it cannot fix is
            // answered 200 with no command: asking a phone whose steps report is unreadable to report again loops.
            return AppConvention(
                stored: ownTracksAnswer,
                emptyBody: .init(
                    sentBy: isOwnTracks, note: "empty body (OwnTracks sends one when a friend is deleted)"),
                unreadable: { ownTracksMessages([]) })
        case .healthAutoExport?, .healthConnect?, .stepLog?, nil:
            // None blocks on a refusal: Health Auto Export sends its period again at its next run whatever the
            // answer; health-connect-webhook retries only a 5xx (three times) and its next sync repeats the records;
            // the step log's senders are scripts that read the 422.
            return .plain
        }
    }

    /// A 499 with `text` in plain text: what Sensor Logger shows its user, once per recording (PUSHING.md).
    static func sensorLoggerNotice(_ text: String) -> HTTPAnswer {
        HTTPAnswer(
            status: HTTPAnswer.status(499, "Refused"), headerFields: [.contentType: "text/plain; charset=utf-8"],
            body: Data(text.utf8))
    }

    /// OwnTracks reads a 200's body as a JSON array of messages for the phone (its HTTP booklet), and reports steps
    /// only when a `reportSteps` command asks (push-sources.md): in HTTP mode the answer to a POST is the only way to
    /// ask. Every message but a steps report is answered with that command (no `from`/`to`: today's total so far,
    /// which replaces the day's earlier report); a steps report is answered `[]`, so nothing loops.
    static func ownTracksAnswer(_ payload: Payload) -> HTTPAnswer {
        ownTracksMessages(payload.isStepsReport ? [] : [["_type": "cmd", "action": "reportSteps"]])
    }

    /// A 200 whose body is `messages` as OwnTracks reads them: a JSON array.
    static func ownTracksMessages(_ messages: [[String: Any]]) -> HTTPAnswer {
        let data = (try? JSONSerialization.data(withJSONObject: messages, options: [.sortedKeys])) ?? Data("[]".utf8)
        return HTTPAnswer(status: .ok, headerFields: [.contentType: "application/json"], body: data)
    }

    /// Whether the request comes from OwnTracks by its headers: its `User-Agent`, or its `X-Limit-U`/`X-Limit-D`
    /// headers (user and device).
    static func isOwnTracks(_ fields: HTTPFields) -> Bool {
        fields[HTTPField.Name("X-Limit-U")!] != nil || fields[HTTPField.Name("X-Limit-D")!] != nil
            || fields[.userAgent]?.lowercased().hasPrefix("owntracks") == true
    }
}
