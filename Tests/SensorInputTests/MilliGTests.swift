import Foundation
import SensorInput
import StepDetection
import TestSupport
import Testing

/// Acceleration in thousandths of g (Polar Sensor Logger's `X [mg]`, many loggers' exports). Read as m/s², every
/// row was over 50 g: each line skipped as absurd and the walk counted 0 steps. Stated (`[mg]`) or told from the data
/// (|a| resting at about 1000), it is mg.
@Suite(.temporaryFolder) struct MilliGTests {
    /// The committed 60 s walk (`t_ms,x,y,z` in m/s²) with `header` and its values in mg.
    static func walkInMilliG(header: String) throws -> (text: String, rows: [[Double]]) {
        let rows = try SharedData.numbers(atPath: SharedData.fixture("demo_walk_50hz.csv"))
        let scale = 1000 / standardGravity
        let lines = rows.map { r in
            String(format: "%.3f,%.2f,%.2f,%.2f", r[0], r[1] * scale, r[2] * scale, r[3] * scale)
        }
        return (header + "\n" + lines.joined(separator: "\n") + "\n", rows)
    }

    func read(_ text: String) throws -> (ReadSummary, [AccelerationSample]) {
        let path = try temporaryFile(Array(text.utf8))
        var samples: [AccelerationSample] = []
        let summary = try AccelerationInput.read(path: path) { samples.append($0) }
        return (summary, samples)
    }

    @Test(arguments: ["t_ms,x [mg],y [mg],z [mg]", "t_ms,x,y,z"])
    func milliGIsReadAsMilliG(header: String) throws {
        let (text, rows) = try Self.walkInMilliG(header: header)
        let (summary, samples) = try read(text)
        #expect(summary.unit == .milliG)
        #expect(summary.skippedLines == 0)
        #expect(samples.count == rows.count)
        // Back in m/s², to the 0.01 mg the file was written with.
        for (s, r) in zip(samples, rows) {
            #expect(abs(s.x - r[1]) < 1e-4 && abs(s.y - r[2]) < 1e-4 && abs(s.z - r[3]) < 1e-4)
        }
    }

    @Test func aStatedMetrePerSecondSquaredThatRestsAt1000IsMilliG() throws {
        let (text, _) = try Self.walkInMilliG(header: "t_ms,x (m/s^2),y (m/s^2),z (m/s^2)")
        let (summary, samples) = try read(text)
        #expect(summary.unit == .milliG)
        #expect(summary.notes.contains { $0.contains("read as mg") }, "\(summary.notes)")
        #expect(abs(samples[0].magnitude - 9.4) < 0.5, "\(samples[0].magnitude)")
    }

    @Test func metresPerSecondSquaredAndGAreToldAsBefore() {
        #expect(AccelerationUnit.told(byMedianMagnitude: 9.8) == .metersPerSecondSquared)
        #expect(AccelerationUnit.told(byMedianMagnitude: 40) == .metersPerSecondSquared)
        #expect(AccelerationUnit.told(byMedianMagnitude: 1.02) == .g)
        #expect(AccelerationUnit.told(byMedianMagnitude: 1010) == .milliG)
    }
}
