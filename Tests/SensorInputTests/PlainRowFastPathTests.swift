import Foundation
import SensorInput
import StepDetection
import TestSupport
import Testing

/// The one-pass reader for plain comma-separated rows must give exactly what the general path gives, and leave every
/// other row (spaces, exponents, quotes, long mantissas, wrong field counts, junk) to the general path.
@Suite(.temporaryFolder) struct PlainRowFastPathTests {
    @Test func sensorLoggerEpochNanosecondsReadTheSameBothWays() throws {
        // Sensor Logger: 19-digit epoch-ns times (plain integers) and z,y,x columns.
        var csv = "time,seconds_elapsed,z,y,x\n"
        for i in 0..<400 {
            csv += "\(1_763_686_800_000_000_000 + Int64(i) * 5_000_123),\(Double(i) * 0.005),9.8\(i % 10),0.1,-0.2\n"
        }
        let path = try temporaryFile(Array(csv.utf8), name: "TotalAcceleration.csv")
        var got: [AccelerationSample] = []
        _ = try AccelerationInput.read(path: path) { got.append($0) }
        #expect(got.count == 400)
        for (i, s) in got.enumerated() {
            #expect(s.time.nanosecondsSinceEpoch == Int64(Double(1_763_686_800_000_000_000 + Int64(i) * 5_000_123)))
            #expect(s.z == Double("9.8\(i % 10)")! && s.x == -0.2 && s.y == 0.1)
        }
    }

    @Test func plainAndUnusualRowsReadTheSame() throws {
        var csv = "t_ms,x,y,z,extra\n"
        var expected: [(Int64, Double, Double, Double)] = []
        func parse(_ s: String) -> Double {
            let b = Array(s.utf8)
            return b.withUnsafeBufferPointer { NumberParsing.parseDouble($0.baseAddress!, 0, b.count)! }
        }
        // 300 plain rows first, so the units are decided and the fast path is in use for what follows.
        for i in 0..<300 {
            let x = String(format: "%.5f", sin(Double(i)) * 3)
            let y = String(format: "%.6f", -9.80665 + Double(i % 7) * 0.01)
            csv += "\(i * 5).125,\(x),\(y),0.5,ignored\n"
            expected.append((Int64(i * 5) * 1_000_000 + 125_000, parse(x), parse(y), 0.5))
        }
        let unusual: [(String, (Int64, Double, Double, Double)?)] = [
            ("1500.5, 1.25,-9.5,0.5,e", (1_500_500_000, 1.25, -9.5, 0.5)),  // a space
            ("1501,1.5e0,-9.5,0.5,e", (1_501_000_000, 1.5, -9.5, 0.5)),  // an exponent
            ("1502,\"2.5\",-9.5,0.5,e", (1_502_000_000, 2.5, -9.5, 0.5)),  // quotes
            ("1503,0.12345678901234567,-9.5,0.5,e", (1_503_000_000, parse("0.12345678901234567"), -9.5, 0.5)),
            ("1504,1,-9.5,0.5,", (1_504_000_000, 1, -9.5, 0.5)),  // empty last field
            ("1505,abc,-9.5,0.5,e", nil),  // junk: skipped
            ("1506,1,-9.5", nil),  // too few fields: skipped
            ("1507,-0.0,+9.5,.5,e", (1_507_000_000, -0.0, 9.5, 0.5)),
        ]
        for (row, value) in unusual {
            csv += row + "\n"
            if let value { expected.append(value) }
        }
        let path = try temporaryFile(Array(csv.utf8))
        var got: [AccelerationSample] = []
        let summary = try AccelerationInput.read(path: path) { got.append($0) }
        #expect(summary.skippedLines == 2)
        #expect(summary.issues.map(\.line) == [307, 308])
        #expect(got.count == expected.count)
        for (s, e) in zip(got, expected) {
            #expect(s.time.nanosecondsSinceEpoch == e.0)
            #expect(s.x == e.1 && s.y == e.2 && s.z == e.3, "\(s) vs \(e)")
        }
    }
}
