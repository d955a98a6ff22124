import Foundation
import TestSupport

@testable import Ingestion
@testable import SensorInput

/// What the payload tests share: parsing text or a committed fixture, and the error a body gets.
enum PayloadTesting {
    static func parse(_ text: String, format: String? = nil) throws -> Payload {
        try PushApps.parse(body: Data(text.utf8), format: format)
    }

    /// A fixture under `fixtures/push/`.
    static func fixture(_ relative: String) throws -> Data {
        try Data(contentsOf: SharedData.packageRoot.appendingPathComponent("fixtures/push/" + relative))
    }

    static func parseFixture(_ relative: String, format: String? = nil) throws -> Payload {
        try PushApps.parse(body: fixture(relative), format: format)
    }

    /// The `PayloadError` parsing `text` throws, else the first item it leaves out; nil when all of it is read.
    static func error(_ text: String, format: String? = nil) -> PayloadError? {
        error(Data(text.utf8), format: format)
    }

    static func error(_ body: Data, format: String? = nil) -> PayloadError? {
        do {
            return try PushApps.parse(body: body, format: format).refused.first
        } catch let e as PayloadError {
            return e
        } catch {
            return PayloadError(path: "", message: "not a PayloadError: \(error)")
        }
    }

    /// The replacing items' (device, key, reading, microsteps), in order.
    static func replacing(_ payload: Payload) -> [(device: String, key: String, reading: StepReading, micro: Int64)] {
        payload.items.compactMap {
            if case .replacing(let d, let k, let r, let m) = $0 { return (d, k, r, m) }
            return nil
        }
    }

    /// The samples of each (device, stream), in order.
    static func samples(_ payload: Payload) -> [String: [AccelerationSampleValue]] {
        var out: [String: [AccelerationSampleValue]] = [:]
        for item in payload.items {
            if case .sample(let d, let s, let sample) = item {
                out[d + "/" + s, default: []].append(
                    AccelerationSampleValue(
                        timeNs: sample.time.nanosecondsSinceEpoch, x: sample.x, y: sample.y, z: sample.z))
            }
        }
        return out
    }
}

/// A sample's fields, so tests need not import StepDetection.
struct AccelerationSampleValue: Equatable {
    var timeNs: Int64
    var x, y, z: Double
}
