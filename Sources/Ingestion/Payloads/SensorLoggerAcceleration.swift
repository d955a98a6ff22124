import Foundation
import SensorInput
import StepDetection
import WallTime

/// The acceleration samples (m/s², with gravity) of one Sensor Logger message, from the best sensor it holds
/// (its pairing of accelerometer and gravity is SensorInput's, shared with the exported files).
extension SensorLoggerAcceleration {
    typealias Reading = SensorLoggerApp.Reading

    static func samples(
        _ bySensor: [String: [Reading]], notes: inout SensorLoggerApp.Notes
    ) -> [AccelerationSample] {
        var vectors: [String: [Timed]] = [:]
        for sensor in ["totalacceleration", "accelerometer", "gravity", "accelerometeruncalibrated"] {
            guard let readings = bySensor[sensor] else { continue }
            let read = readings.compactMap { r in r.vector.map { Timed(timeNs: r.timeNs, v: $0) } }
            if read.count < readings.count {
                notes.lines.append("\(sensor): \(counted(readings.count - read.count, "reading")) with null values")
            }
            vectors[sensor] = read
        }
        func unused(_ sensors: [String], _ why: String) {
            let present = sensors.compactMap { s in bySensor[s].map { "\(s) (\(counted($0.count, "reading")))" } }
            if !present.isEmpty { notes.lines.append(present.joined(separator: ", ") + ": " + why) }
        }
        var samples: [AccelerationSample]
        if let total = vectors["totalacceleration"] {
            unused(["accelerometer", "gravity", "accelerometeruncalibrated"], "totalacceleration used instead")
            samples = total.map {
                AccelerationSample(time: Instant(nanosecondsSinceEpoch: $0.timeNs), x: $0.v.x, y: $0.v.y, z: $0.v.z)
            }
        } else if let linear = vectors["accelerometer"], let gravity = vectors["gravity"] {
            unused(["accelerometeruncalibrated"], "accelerometer + gravity used instead")
            let (paired, unpaired) = pairs(linear, gravity)
            if unpaired > 0 {
                notes.lines.append("accelerometer: \(counted(unpaired, "reading")) without gravity at the same time")
            }
            samples = paired
        } else if let raw = vectors["accelerometeruncalibrated"] {
            unused(["accelerometer", "gravity"], "accelerometeruncalibrated used instead")
            samples = inMetersPerSecondSquared(raw)
        } else {
            unused(["accelerometer", "gravity"], "no acceleration with gravity can be made of it alone")
            samples = []
        }
        let plausible = samples.filter { SampleCheck.valueProblem($0) == nil }
        if plausible.count < samples.count {
            notes.lines.append("\(counted(samples.count - plausible.count, "sample")) over 50 g")
        }
        return plausible
    }

    /// `x`, `y`, `z` of a reading's `values` (at `path`, as errors name it): numbers, or null (how JavaScript writes
    /// NaN), which leaves the reading out (nil).
    static func vector(_ values: JSONTree, at path: String) throws -> Vector? {
        func axis(_ name: String) throws -> Double? {
            let v = try values.member(name, at: "\(path).\(name)")
            return v == .null ? nil : try v.number(at: "\(path).\(name)")
        }
        let (x, y, z) = (try axis("x"), try axis("y"), try axis("z"))
        guard let x, let y, let z else { return nil }
        return Vector(x: x, y: y, z: z)
    }

    /// Uncalibrated readings in m/s²: in g when their median |a| says so (iOS without "Standardise Units & Frames").
    static func inMetersPerSecondSquared(_ raw: [Timed]) -> [AccelerationSample] {
        let magnitudes = raw.map { ($0.v.x * $0.v.x + $0.v.y * $0.v.y + $0.v.z * $0.v.z).squareRoot() }.sorted()
        let unit = AccelerationUnit.told(
            byMedianMagnitude: magnitudes.isEmpty ? standardGravity : magnitudes[magnitudes.count / 2])
        let k = unit.metersPerSecondSquared
        return raw.map {
            AccelerationSample(
                time: Instant(nanosecondsSinceEpoch: $0.timeNs), x: $0.v.x * k, y: $0.v.y * k, z: $0.v.z * k)
        }
    }
}
