import Foundation
import StepDetection

/// The app (or kind of sender) whose payload format a body was read as: what the receiver keys its answers on (how
/// each app must be answered, Agent's `AppConventions`), so that nothing outside this module matches format names.
/// Its raw value is the format's name (`?format=NAME`, the answer's `format`).
public enum PayloadApp: String, Sendable, CaseIterable {
    /// Health Auto Export (iOS), REST API automation.
    case healthAutoExport = "health-auto-export"
    /// Sensor Logger (iOS and Android), HTTP push.
    case sensorLogger = "sensor-logger"
    /// Health Connect webhook apps (Android).
    case healthConnect = "health-connect"
    /// OwnTracks (iOS), HTTP mode.
    case ownTracks = "owntracks"
    /// Our step log, pushed by scripts and other tools.
    case stepLog = "steplog"
}

/// What one pushed payload holds, per device and stream, before any state (dedup, reorder, differencing) is applied.
public struct Payload: Sendable, Equatable {
    /// The app whose format the payload was read as.
    public var app: PayloadApp
    /// The format's name: `health-auto-export`, `sensor-logger`, `health-connect`, `owntracks`, `steplog`.
    public var format: String { app.rawValue }
    public var items: [PayloadItem]
    /// What was recognised and deliberately not used, for the answer: e.g. "metric heart_rate (12 points)",
    /// "3 workouts".
    public var ignored: [String]
    /// A test message (Sensor Logger "Tap to test", Health Connect `"test": true`): answered 200, nothing stored.
    public var isTest: Bool
    /// Why none of the payload's data can be used, in words for the phone's user (Sensor Logger shows the text of a
    /// 499 answer): e.g. an iOS accelerometer without gravity. Nil when its data is used, or it carries none.
    public var problem: String?
    /// An OwnTracks steps report was among the messages (with steps, or -1 from a phone without a pedometer): the
    /// answer to a `reportSteps` command, which must not be answered with another.
    public var isStepsReport = false
    /// The items that could not be read and were left out (a point, a reading, a record, a message, a line), each
    /// naming its field: the first `refusedKept` of them, so that a body of bad items holds no error per item.
    /// The rest of the payload is read and used: one bad point must not keep its neighbours out, since the phone
    /// sends the same point again for days.
    public var refused: [PayloadError] = []
    /// How many items were left out, all of them.
    public var refusedCount = 0
    /// When the app says it sent the payload (Health Connect's top-level `timestamp`), in ns: a reading it holds does
    /// not replace one from a later send. Nil when the app does not say: the last received replaces.
    public var sentNs: Int64?
    /// How many refusals `refused` keeps.
    public static let refusedKept = 20

    public init(app: PayloadApp, items: [PayloadItem] = [], ignored: [String] = [], isTest: Bool = false) {
        self.app = app
        self.items = items
        self.ignored = ignored
        self.isTest = isTest
    }

    /// Leaves an item out for `error`.
    mutating func refuse(_ error: PayloadError) {
        refusedCount += 1
        if refused.count < Self.refusedKept { refused.append(error) }
    }

    /// Leaves an item out when `read` throws, naming `device` when the error names none. Item readers throw only
    /// `PayloadError`s; anything else is kept as its description.
    mutating func refusingItem(device: @autoclosure () -> String? = nil, _ read: (inout Payload) throws -> Void) {
        do {
            try read(&self)
        } catch {
            var refusal = error as? PayloadError ?? PayloadError(path: "", message: String(describing: error))
            if refusal.device == nil { refusal.device = device() }
            refuse(refusal)
        }
    }

    /// "stored 18 items, left out 2 that cannot be read": what the receiver did with the payload (its items are
    /// stored; a test message's are none).
    public var refusalHeadline: String {
        "stored \(counted(items.count, "item")), left out \(refusedCount) that cannot be read"
    }

    /// The first `limit` refusals, "field: why" each (with `devices`, "device: field: why" where the item named one),
    /// joined with "; ", and "and N more" for the rest.
    public func refusalSummary(naming limit: Int, devices: Bool = true) -> String {
        var parts = refused.prefix(limit).map { e in
            guard devices, let device = e.device else { return e.description }
            return "\(device): \(e)"
        }
        if refusedCount > parts.count { parts.append("and \(refusedCount - parts.count) more") }
        return parts.joined(separator: "; ")
    }
}

/// One thing a payload says about a device's steps or motion.
public enum PayloadItem: Sendable, Equatable {
    /// A per-interval total that replaces any earlier reading of the device with the same key (Health Auto Export:
    /// metric and start, the device being the source; Health Connect: `start_time`; OwnTracks: `from`; a step-log
    /// line with a `seq`). `microsteps` is the exact count in millionths of a step (Health Auto Export's aggregated
    /// `qty` is fractional); `reading.steps` is it rounded half up. Sum `microsteps`, then round.
    case replacing(device: String, key: String, reading: StepReading, microsteps: Int64)
    /// A reading that adds to what the device already has (a step-log line with `steps` and no `seq`).
    case adding(device: String, reading: StepReading)
    /// An acceleration sample of a stream (Sensor Logger: device = `deviceId`, stream = `sessionId`), m/s² with
    /// gravity. A payload's samples come sorted by time per stream, each time once.
    case sample(device: String, stream: String, sample: AccelerationSample)
    /// A running step total of a stream (Sensor Logger `pedometer`, a step-log line with only `total`), to be
    /// differenced by the caller per stream; sorted by time per stream.
    case runningTotal(device: String, stream: String, timeNs: Int64, total: Int)
}

/// Why a payload, or one item of it, was refused, naming the field as a path (`data.metrics[0].data[3].date`). A body
/// that cannot be read as a payload at all is refused whole (thrown); an item that cannot be read is left out and
/// listed (`Payload.refused`), and the rest is kept.
public struct PayloadError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The app whose format the payload was read as; nil when no format recognised it.
    public var app: PayloadApp?
    /// The name of that format.
    public var format: String? { app?.rawValue }
    /// Where in the body: a field path, `line N` for JSON lines, empty for the body as a whole.
    public var path: String
    public var message: String
    /// The device a refused item was about, when the item says (Health Auto Export's `source`, Sensor Logger's
    /// `deviceId`); nil for a payload refused whole and an item that names none.
    public var device: String?

    public init(app: PayloadApp? = nil, path: String, message: String, device: String? = nil) {
        self.app = app
        self.path = path
        self.message = message
        self.device = device
    }

    public var description: String { path.isEmpty ? message : "\(path): \(message)" }
}

extension PayloadError {
    /// The error for a field that holds the wrong kind of value.
    static func expected(_ what: String, at path: String, found value: JSONTree?) -> PayloadError {
        PayloadError(path: path, message: "expected \(what), found \(value.map(\.shortDescription) ?? "nothing")")
    }
}

/// Rounds microsteps half up to whole steps.
func wholeSteps(microsteps: Int64) -> Int {
    Int(microsteps / 1_000_000 + (microsteps % 1_000_000 >= 500_000 ? 1 : 0))
}

/// How many of what, for `ignored`: "1 workout", "3 workouts".
func counted(_ n: Int, _ singular: String, _ plural: String? = nil) -> String {
    "\(n) \(n == 1 ? singular : plural ?? singular + "s")"
}
