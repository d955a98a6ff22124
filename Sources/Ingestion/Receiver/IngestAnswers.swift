import SensorInput
import Store

/// The JSON answer to a stored payload (or a test message): its format, what it changed, what it holds that was
/// deliberately not used.
struct StoredAnswer: Encodable {
    var format: String
    var test: Bool?
    var readings: Int
    var samples: Int
    var duplicates: Int?
    /// The devices the payload stored data of, comma-separated; absent (as every absent value) when it named none.
    var device: String?
    var ignored: [String]?

    init(format: String, test: Bool? = nil, readings: Int, samples: Int) {
        self.format = format
        self.test = test
        self.readings = readings
        self.samples = samples
    }

    init(_ payload: Payload, _ committed: ReceivedCommit) {
        self.init(format: payload.format, readings: committed.readings, samples: committed.samples)
        duplicates = committed.duplicates
        device = committed.deviceNames
        ignored = payload.ignored.isEmpty ? nil : payload.ignored
    }
}

/// The 422 answer to a payload stored with items left out: the stored summary, each item left out naming its field
/// (the first `Payload.refusedKept`), and how many were.
struct LeftOutAnswer: Encodable {
    /// One item left out.
    struct Item: Encodable {
        var field: String
        var reason: String
        var device: String?
    }

    var error: String
    var format: String
    var stored: Int
    var readings: Int
    var samples: Int
    var duplicates: Int
    var device: String?
    var refusedCount: Int
    var refused: [Item]
    var ignored: [String]?
    var test: Bool?

    enum CodingKeys: String, CodingKey {
        case error, format, stored, readings, samples, duplicates, device, refused, ignored, test
        case refusedCount = "refused_count"
    }

    init(_ payload: Payload, _ committed: ReceivedCommit) {
        error = "\(payload.refusalHeadline): \(payload.refusalSummary(naming: 3))"
        format = payload.format
        stored = payload.items.count
        readings = committed.readings
        samples = committed.samples
        duplicates = committed.duplicates
        device = committed.deviceNames
        refusedCount = payload.refusedCount
        refused = payload.refused.map { Item(field: $0.path, reason: $0.message, device: $0.device) }
        ignored = payload.ignored.isEmpty ? nil : payload.ignored
        test = payload.isTest ? true : nil
    }
}

extension ReceivedCommit {
    /// `device` of an answer: the devices, comma-separated, or nil when the payload was about none (no step data).
    var deviceNames: String? { devices.isEmpty ? nil : devices.joined(separator: ", ") }
}
