import Foundation
import SensorInput
import StepDetection
import TestSupport
import Testing
import WallTime

/// A new file with `contents` in the running test's temporary folder (its suite has `.temporaryFolder`).
func temporaryFile(_ contents: [UInt8], name: String = "input.csv") throws -> String {
    try TemporaryFolder.file(Data(contents), name: name)
}

@Suite(.temporaryFolder) struct NumberParsingTests {
    func parse(_ s: String) -> Double? {
        let bytes = Array(s.utf8)
        return bytes.withUnsafeBufferPointer { NumberParsing.parseDouble($0.baseAddress!, 0, bytes.count) }
    }

    @Test(arguments: [
        "0", "-0.24660", "4.41251", "8.33541", "1e-3", "-2.5E+2", ".5", "123456789.123", "0.1",
        "1763686800.020", "9.80665", "+3.25",
    ])
    func matchesFoundation(_ text: String) {
        #expect(parse(text) == Double(text.hasPrefix("+") ? String(text.dropFirst()) : text))
    }

    @Test func refusesNonNumbers() {
        for s in ["", "abc", "1.2.3", "1e", "--1", "1,5", "-"] { #expect(parse(s) == nil, "\(s)") }
    }

    @Test func randomNumbersInEveryStyleMatchFoundation() {
        var rng = SeededRandom(seed: 42)
        for _ in 0..<10_000 {  // 50,000 numbers
            let magnitude = Double(rng.next() % 1_000_000_000) / 1000 * (rng.next() % 2 == 0 ? 1 : -1)
            let scaled = magnitude * [1e-9, 1e-3, 1, 1e3, 1e9, 1e15][Int(rng.next() % 6)]
            for text in [
                String(scaled), String(format: "%.5f", scaled), String(format: "%.9E", scaled),
                String(format: "%.17g", scaled), String(format: "%.21f", scaled),
            ] {
                #expect(parse(text) == Double(text), "\(text)")
            }
        }
        #expect(parse("1505898000005677056") == 1_505_898_000_005_677_056)
        #expect(parse("0.011023999999999999") == 0.011023999999999999)
        #expect(parse("-12345678901234567890.5") == -12345678901234567890.5)
    }

    @Test func specialsAndQuotes() {
        #expect(parse("NaN")!.isNaN)
        #expect(parse("-inf") == -.infinity)
        #expect(parse("\"1.5\"") == 1.5)
        #expect(parse("  2 ") == 2)
    }
}

@Suite(.temporaryFolder) struct LineReaderTests {
    func lines(_ bytes: [UInt8], chunk: Int = 4096) throws -> [(String, Int, Bool)] {
        let path = try temporaryFile(bytes)
        var out: [(String, Int, Bool)] = []
        try LineReader.forEachLine(path: path, chunkSize: chunk) { line, n, complete in
            out.append((String(decoding: line, as: UTF8.self), n, complete))
            return true
        }
        return out
    }

    @Test func bomCRLFAndUnterminatedLastLine() throws {
        let got = try lines([0xEF, 0xBB, 0xBF] + Array("a,b\r\n1,2\r\n3,4".utf8))
        #expect(got.map(\.0) == ["a,b", "1,2", "3,4"])
        #expect(got.map(\.1) == [1, 2, 3])
        #expect(got.map(\.2) == [true, true, false])
    }

    @Test func linesLongerThanTheChunk() throws {
        let long = String(repeating: "x", count: 10_000)
        let got = try lines(Array("\(long)\nshort\n\(long)".utf8), chunk: 4096)
        #expect(got.map(\.0) == [long, "short", long])
    }
}

@Suite(.temporaryFolder) struct GenericCSVTests {
    func read(_ text: String, options: ReadOptions = ReadOptions()) throws -> (ReadSummary, [AccelerationSample]) {
        let path = try temporaryFile(Array(text.utf8))
        var samples: [AccelerationSample] = []
        let summary = try AccelerationInput.read(path: path, options: options) { samples.append($0) }
        return (summary, samples)
    }

    @Test func gUnitsAreDetectedAndConverted() throws {
        var csv = "time (s);X;Y;Z\n"
        for i in 0..<300 { csv += "\(Double(i) * 0.01);0;0;1\n" }
        let (summary, samples) = try read(csv)
        #expect(summary.unit == .g)
        #expect(summary.samples == 300)
        #expect(samples[1].time.nanosecondsSinceEpoch == 10_000_000)
        #expect(abs(samples[0].z - standardGravity) < 1e-9)
        #expect(!summary.absoluteTime)
    }

    @Test func magnitudeColumnAndEpochMilliseconds() throws {
        var csv = "timestamp,magnitude\n"
        for i in 0..<50 { csv += "\(1_763_686_800_000 + i * 40),9.81\n" }
        let (summary, samples) = try read(csv)
        #expect(summary.absoluteTime)
        #expect(summary.hasAxes == false)
        #expect(samples[0].time.nanosecondsSinceEpoch == 1_763_686_800_000_000_000)
        #expect(samples[0].x == 9.81)
    }

    @Test func relativeTimesAreAnchoredAtStart() throws {
        let (summary, samples) = try read(
            "t_ms,x,y,z\n0,0,0,9.8\n20,0,0,9.8\n",
            options: ReadOptions(start: Instant(nanosecondsSinceEpoch: 5_000_000_000)))
        #expect(summary.absoluteTime)
        #expect(samples.map(\.time.nanosecondsSinceEpoch) == [5_000_000_000, 5_020_000_000])
    }

    @Test func wrongFieldCountIsSkippedWithLine() throws {
        let (summary, samples) = try read("t_ms,x,y,z\n0,0,0,9.8\n20,0\n40,0,0,9.8\n")
        #expect(samples.count == 2)
        #expect(summary.skippedLines == 1)
        #expect(summary.issues.first?.line == 3)
        #expect(throws: InputError.self) {
            try read("t_ms,x,y,z\n0,0,0,9.8\n20,0\n", options: ReadOptions(strict: true))
        }
    }

    @Test func headerlessFileIsRefused() throws {
        #expect(throws: InputError.self) { try read("0,1,2,3\n") }
    }
}
