import Foundation
import SensorInput
import StepDetection
import TestSupport
import Testing

/// Shimmer Consensys exports (fixtures/formats/shimmer: the shared 60 s walk laid out as Consensys writes it), Excel's
/// `sep=` line in any CSV, and a stated unit checked against the data.
@Suite(.temporaryFolder) struct ShimmerTests {
    static let export = ShimmerFixture.path

    @Test func aConsensysExportIsReadWithoutFlags() throws {
        let (s, items) = try readAll(Self.export)
        #expect(s.format == "shimmer")
        #expect(s.samples == 3072 && s.skippedLines == 0 && s.issues.isEmpty)
        #expect(s.unit == .metersPerSecondSquared && s.hasAxes && s.absoluteTime)
        #expect(s.notes.isEmpty)
        let all = samples(items)
        // The first row: 1505898000000.000 ms since the epoch, x -0.2466, y 4.4125, z 8.3354 (m/s²).
        #expect(all.first?.time.nanosecondsSinceEpoch == 1_505_898_000_000_000_000)
        #expect(abs((all.first?.x ?? 0) + 0.2466) < 1e-9 && abs((all.first?.z ?? 0) - 8.3354) < 1e-9)
        #expect(abs((s.rateHz ?? 0) - 51.2) < 0.01)
    }

    /// Labelled m/s² but in g (the values divided by 9.80665): read as g, with a note saying so, and delivered as the
    /// same m/s² as the correctly labelled file.
    @Test func aFileLabelledMetresPerSecondSquaredWhoseMagnitudeRestsAtOneIsInG() throws {
        let dir = try TempDir()
        let path = try dir.write("in_g.csv", try ShimmerFixture.inGLabelledMetresPerSecondSquared())
        let (s, items) = try readAll(path)
        #expect(s.format == "shimmer" && s.unit == .g && s.samples == 3072)
        let note = try #require(s.notes.first)
        #expect(note.hasPrefix("the file says its acceleration is in m/s^2, but |a| rests at 1."))
        #expect(note.hasSuffix("gravity in g: read as g"))
        let right = samples(try readAll(Self.export).1)
        let corrected = samples(items)
        #expect(zip(right, corrected).allSatisfy { abs($0.x - $1.x) < 1e-4 && abs($0.z - $1.z) < 1e-4 })
    }

    /// The stated unit stands when the data agrees, or cannot tell: acceleration without gravity (|a| mostly small)
    /// labelled m/s² is not taken for g.
    @Test func aStatedUnitStandsWhenTheDataCannotContradictIt() throws {
        var csv = "t_ms,x (m/s^2),y (m/s^2),z (m/s^2)\n"
        for k in 0..<400 {
            let a = 1.2 * sin(Double(k) / 8)
            csv += "\(k * 20),\(a),\(0.3 * a),0.1\n"
        }
        let dir = try TempDir()
        let (s, _) = try readAll(try dir.write("linear.csv", csv))
        #expect(s.unit == .metersPerSecondSquared && s.notes.isEmpty)
    }

    /// Excel's `sep=` line names the delimiter of any CSV, quoted or not: a bar, which nothing else would find.
    @Test(arguments: ["sep=|", "\"sep=|\""])
    func aSepLineNamesTheDelimiter(line: String) throws {
        var csv = line + "\nt_ms|x|y|z\n"
        for k in 0..<300 { csv += "\(k * 20)|0.1|0.2|9.8\n" }
        let dir = try TempDir()
        let (s, items) = try readAll(try dir.write("bar.csv", csv))
        #expect(s.format == "generic-csv" && s.samples == 300 && s.skippedLines == 0, "\(s)")
        #expect(samples(items).count == 300 && samples(items).last?.time.nanosecondsSinceEpoch == 5_980_000_000)
    }

    /// A Shimmer export without an accelerometer says what to do, on the names row's line.
    @Test func anExportWithoutAnAccelerometerSaysWhatToDo() throws {
        let csv = "\"sep=\t\"\nS_Timestamp_Unix_CAL\tS_GSR_Skin_Conductance_CAL\t\nms\tuS\t\n1505898000000\t2.5\t\n"
        let dir = try TempDir()
        let path = try dir.write("gsr.csv", csv)
        let error = #expect(throws: InputError.self) { try readAll(path) }
        #expect("\(error.map(String.init(describing:)) ?? "")".contains("\(path):2: a Shimmer export without"))
        #expect("\(error.map(String.init(describing:)) ?? "")".contains("enable the accelerometer in Consensys"))
    }
}
