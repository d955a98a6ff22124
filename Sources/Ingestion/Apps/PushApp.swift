import Foundation
import HTTPTypes
import SensorInput

/// One phone app (or kind of sender) that pushes to the receiver, declared in one file: its payload format (how a
/// body is recognised and parsed) and how it must be answered (`AppConvention`). Adding an app is that file and one
/// line in `PushApps.all`; `PushAppConformanceTests` fails until the app has its case there: a sample in
/// fixtures/push/NAME/ recognised and parsed, its answers declared, its route reached on a real receiver.
protocol PushApp: Sendable {
    /// The format's name: `?format=NAME`, the answer's `format`, the format `status` shows for its devices.
    var name: String { get }
    /// One line for the docs and errors: the app and the shape recognised.
    var about: String { get }
    /// Whether the body has this format's shape (a cheap look at the top-level keys, never a full check).
    func recognises(_ body: PayloadBody) -> Bool
    /// The body's items, with those that cannot be read left out and listed (`Payload.refused`); throws a
    /// `PayloadError` when the body cannot be read as this format's payload at all.
    func parse(_ body: PayloadBody) throws -> Payload
    /// Paths of arrays that may be long (keys, `*` for any key or index), read one element at a time.
    var longArrays: [[String]] { get }
    /// Whether a body is one JSON document, so that a body named as this format that is not JSON is told why
    /// (false for JSON lines).
    var isOneJSONDocument: Bool { get }
    /// How the app must be answered beyond the receiver's plain JSON answers: each app declares it, `.plain` when
    /// nothing.
    var convention: AppConvention { get }
}

extension PushApp {
    var longArrays: [[String]] { [] }
    var isOneJSONDocument: Bool { true }
}

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
