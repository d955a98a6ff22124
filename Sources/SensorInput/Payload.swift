import Foundation
import StepDetection
import WallTime

/// What one pushed payload holds, per device and stream, before any state (dedup, reorder, differencing) is applied.
public struct Payload: Sendable, Equatable {
    /// The name of the format the payload was read as (Ingestion's push app): `health-auto-export`,
    /// `sensor-logger`, `health-connect`, `owntracks`, `steplog`.
    public var format: String
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
    /// When the app says it sent the payload (Health Connect's top-level `timestamp`): a reading it holds does not
    /// replace one from a later send. Nil when the app does not say: the last received replaces.
    public var sent: Instant?
    /// The app sends its totals again over intervals that may have moved (Health Connect's day so far from a new
    /// local midnight, Health Auto Export's buckets on new local hours after a zone change): a reading of this
    /// payload also replaces the part of its device's earlier readings of its kind that it covers (Store's
    /// `ReceivedOverlap`). False: a reading replaces only the one with its key.
    public var replacesOverlaps = false
    /// How many refusals `refused` keeps.
    public static let refusedKept = 20

    public init(format: String, items: [PayloadItem] = [], ignored: [String] = [], isTest: Bool = false) {
        self.format = format
        self.items = items
        self.ignored = ignored
        self.isTest = isTest
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
    /// The name of the format the payload was read as; nil when no format recognised it.
    public var format: String?
    /// Where in the body: a field path, `line N` for JSON lines, empty for the body as a whole.
    public var path: String
    public var message: String
    /// The device a refused item was about, when the item says (Health Auto Export's `source`, Sensor Logger's
    /// `deviceId`); nil for a payload refused whole and an item that names none.
    public var device: String?

    public init(format: String? = nil, path: String, message: String, device: String? = nil) {
        self.format = format
        self.path = path
        self.message = message
        self.device = device
    }

    public var description: String { path.isEmpty ? message : "\(path): \(message)" }
}
