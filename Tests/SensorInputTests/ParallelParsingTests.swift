import Foundation
import StepDetection
import TestSupport
import Testing

@testable import SensorInput

/// The chunked, parallel CSV path must give exactly what one thread gives: the same samples bit for bit, the same
/// skipped lines with the same line numbers, wherever the range boundaries fall.
@Suite(.temporaryFolder) struct ParallelParsingTests {
    /// Everything a read yields, to compare two reads.
    struct Outcome: Equatable {
        var samples: [AccelerationSample]
        var count: Int
        var skipped: Int
        var issues: [String]
        var firstNs: Int64?
        var lastNs: Int64?
        var unit: AccelerationUnit
    }

    func read(_ path: String, jobs: Int, chunkBytes: Int = 1 << 18, strict: Bool = false) throws -> Outcome {
        var options = ReadOptions(strict: strict)
        options.jobs = jobs
        options.chunkBytes = chunkBytes
        options.maxReportedIssues = 50
        var samples: [AccelerationSample] = []
        let s = try AccelerationInput.read(path: path, options: options) { samples.append($0) }
        return Outcome(
            samples: samples, count: s.samples, skipped: s.skippedLines, issues: s.issues.map(\.description),
            firstNs: s.first?.nanosecondsSinceEpoch, lastNs: s.last?.nanosecondsSinceEpoch, unit: s.unit)
    }

    /// A recording past the 256 rows that decide the units, with what real files hold: CRLF line ends, blank lines,
    /// spaces, quotes, exponents, junk, short rows, time going backwards, an absurd value, and `lastLine` (no newline
    /// after it when `unterminated`).
    func recording(rows: Int = 700, unterminated: Bool) -> String {
        var random = SeededRandom(seed: 7)
        var csv = "t_ms,x,y,z\n"
        for i in 0..<rows {
            let t = Double(i) * 10 + 0.125
            let x = String(format: "%.5f", random.noise(2))
            let y = String(format: "%.4f", 9.8 + random.noise(1))
            var line = "\(t),\(x),\(y),0.5"
            switch i % 97 {
            case 300 % 97 where i > 300: line = "\(t),abc,\(y),0.5"
            case 11 where i > 256: line += "\r"
            case 23 where i > 256: line = ""
            case 31 where i > 256: line = "\(t), \(x) ,\"\(y)\",5e-1"
            case 47 where i > 256: line = "\(t),\(x)"
            case 59 where i > 256: line = "\(t - 50),\(x),\(y),0.5"
            case 71 where i > 256: line = "\(t),9999,\(y),0.5"
            default: break
            }
            csv += line + "\n"
        }
        csv += "99999.5,0.25,9.75,0.5"
        if !unterminated { csv += "\n" }
        return csv
    }

    @Test(arguments: [false, true])
    func rangeBoundariesAnywhereGiveTheSameSamplesAndLineNumbers(unterminated: Bool) throws {
        let path = try temporaryFile(Array(recording(unterminated: unterminated).utf8))
        let reference = try read(path, jobs: 1)
        #expect(reference.count > 600)
        #expect(reference.skipped >= 15)  // every kind of bad line above is in it, several times
        #expect(reference.issues.contains { $0.contains("time goes backwards") })
        #expect(reference.issues.contains { $0.contains("not a number") })
        #expect(reference.issues.contains { $0.contains("expected 4 fields") })
        #expect(reference.issues.contains { $0.contains("over 50 g") })
        #expect(reference.samples.last?.x == 0.25)
        // Ranges of 1 byte put a boundary on every byte: inside numbers, on the comma, on the \r of a CRLF, on the \n,
        // on blank lines and on the last line without a newline; 7 and 40 bytes hold parts of lines and whole lines.
        for chunkBytes in [1, 7, 40, 4096] {
            for jobs in [1, 3] {
                let got = try read(path, jobs: jobs, chunkBytes: chunkBytes)
                #expect(got == reference, "jobs \(jobs), ranges of \(chunkBytes) bytes")
            }
        }
    }

    /// The outcome with `file` (the path that issues name) written `FILE`, to compare a file with its zip.
    func naming(_ o: Outcome, _ file: String) -> Outcome {
        var o = o
        o.issues = o.issues.map { $0.replacingOccurrences(of: file, with: "FILE") }
        return o
    }

    /// A CSV in a zip is cut into ranges as it is inflated: the same samples, skipped lines and line numbers as the
    /// unzipped file, deflated or stored, on one thread or three, wherever the ranges fall.
    @Test(arguments: [false, true])
    func aZippedRecordingGivesWhatTheFileGives(unterminated: Bool) throws {
        let csv = Array(recording(unterminated: unterminated).utf8)
        let path = try temporaryFile(csv)
        let reference = naming(try read(path, jobs: 1), path)
        for deflate in [true, false] {
            var zip = ZipBuilder()
            zip.add("Walk/input.csv", csv, deflate: deflate)
            let zipPath = try temporaryFile(zip.bytes(), name: deflate ? "deflated.zip" : "stored.zip")
            for chunkBytes in [1, 7, 40, 4096, 1 << 18] {
                for jobs in [1, 3] {
                    let got = naming(try read(zipPath, jobs: jobs, chunkBytes: chunkBytes), zipPath + ":Walk/input.csv")
                    #expect(got == reference, "deflate \(deflate), jobs \(jobs), ranges of \(chunkBytes) bytes")
                }
            }
            for (jobs, chunkBytes) in [(1, 1 << 18), (2, 5), (3, 777)] {
                let e = try #require(throws: InputError.self) {
                    try read(zipPath, jobs: jobs, chunkBytes: chunkBytes, strict: true)
                }
                let plain = try #require(throws: InputError.self) { try read(path, jobs: 1, strict: true) }
                #expect(e.line == plain.line && e.message == plain.message && e.file == zipPath + ":Walk/input.csv")
            }
        }
    }

    /// The ranges end at the entry's last newline, before the reader has seen its end: the entry is still read to
    /// its end and checked, so a damaged one is an error, never a short or altered count.
    @Test(arguments: [1, 2])
    func aDamagedZippedRecordingIsAnError(jobs: Int) throws {
        let csv = Array(recording(unterminated: false).utf8)
        var zip = ZipBuilder()
        zip.add("input.csv", csv, deflate: false)
        var bytes = zip.bytes()
        let last = Array("99999.5,0.25".utf8)  // the last row's 0.25 becomes 0.35: the same length
        let at = try #require((0..<(bytes.count - last.count)).first { Array(bytes[$0..<($0 + last.count)]) == last })
        bytes[at + 10] = UInt8(ascii: "3")
        let zipPath = try temporaryFile(bytes, name: "damaged.zip")
        let e = try #require(throws: InputError.self) { try read(zipPath, jobs: jobs, chunkBytes: 4096) }
        #expect(e.message.contains("entry input.csv") && e.message.contains("CRC-32 mismatch"), "\(e)")
        // Cut short: the error names the entry.
        var cut = ZipBuilder()
        cut.add("input.csv", csv, deflate: true)
        var short = cut.bytes()
        let entry = try #require(ZipArchive(bytes: short, name: "x").entries.first)
        let dataEnd = 30 + "input.csv".utf8.count + Int(entry.compressedSize)
        for k in (dataEnd - 200)..<dataEnd { short[k] = 0 }
        let damaged = try temporaryFile(short, name: "cut.zip")
        let d = try #require(throws: InputError.self) { try read(damaged, jobs: jobs, chunkBytes: 97) }
        #expect(d.message.contains("entry input.csv"), "\(d)")
    }

    @Test func strictModeStopsAtTheSameLineWhateverTheJobs() throws {
        let path = try temporaryFile(Array(recording(unterminated: false).utf8))
        func firstError(jobs: Int, chunkBytes: Int) -> String? {
            do {
                _ = try read(path, jobs: jobs, chunkBytes: chunkBytes, strict: true)
                return nil
            } catch { return "\(error)" }
        }
        let reference = try #require(firstError(jobs: 1, chunkBytes: 1 << 18))
        #expect(reference.contains("input.csv:"))
        for chunkBytes in [5, 64, 777] { #expect(firstError(jobs: 2, chunkBytes: chunkBytes) == reference) }
    }

    @Test func aHeaderLongerThanARangeIsNeverSplit() throws {
        // The header and the rows that decide the units are read line by line; ranges start after them.
        let names = (0..<40).map { "extra_column_\($0)" }.joined(separator: ",")
        var csv = "time_ms,x,y,z,\(names)\n"
        let filler = String(repeating: ",", count: 40)
        for i in 0..<600 { csv += "\(i * 10),0.1,9.8,\(Double(i % 9) * 0.25)\(filler)\n" }
        let path = try temporaryFile(Array(csv.utf8))
        let reference = try read(path, jobs: 1)
        #expect(reference.count == 600 && reference.skipped == 0)
        for chunkBytes in [1, 16, 100] { #expect(try read(path, jobs: 2, chunkBytes: chunkBytes) == reference) }
    }

    @Test func aFileSmallerThanOneRange() throws {
        let path = try temporaryFile(Array("t_ms,x,y,z\n0,0.1,9.8,0\n10,0.2,9.7,0\r\n20,0.3,9.9,0".utf8))
        let one = try read(path, jobs: 1)
        #expect(one.count == 3 && one.samples.map(\.time.nanosecondsSinceEpoch) == [0, 10_000_000, 20_000_000])
        #expect(try read(path, jobs: 2) == one)
        #expect(try read(path, jobs: 2, chunkBytes: 1) == one)
    }

    @Test func aFileOfSampleRowsPastTheUnitProbe() throws {
        // 300 rows: 256 decide the units, the rest are read in ranges; a range of exactly one line and of several.
        var csv = "t_ms,x,y,z\n"
        for i in 0..<300 { csv += "\(i * 10),0.1,9.8,0\n" }
        let path = try temporaryFile(Array(csv.utf8))
        let one = try read(path, jobs: 1)
        #expect(one.count == 300)
        for chunkBytes in [1, 13, 14, 15, 1 << 20] { #expect(try read(path, jobs: 2, chunkBytes: chunkBytes) == one) }
    }

    @Test func anEmptyFileAndAHeaderOnly() throws {
        for (contents, message) in [("", "file is empty"), ("t_ms,x,y,z\n", nil)] {
            let path = try temporaryFile(Array(contents.utf8))
            for jobs in [1, 2] {
                do {
                    let got = try read(path, jobs: jobs, chunkBytes: 1)
                    #expect(message == nil && got.count == 0, "jobs \(jobs)")
                } catch {
                    #expect(message.map { "\(error)".contains($0) } == true, "jobs \(jobs): \(error)")
                }
            }
        }
    }

    @Test func slicedFollowReadsWithRangesDeliverEachLineOnce() throws {
        // The agent's path: complete lines only, a byte limit per slice, a cursor in between.
        let text = recording(unterminated: true)
        let path = try temporaryFile(Array(text.utf8))
        var options = ReadOptions()
        options.jobs = 2
        options.chunkBytes = 97
        options.byteLimit = 4000
        var sliced: [AccelerationSample] = []
        var cursor: SourceCursor?
        var lastLines: [Int] = []
        for _ in 0..<100 {
            let before = cursor?.offset
            (_, cursor) = try SourceReader.readNew(path: path, options: options, cursor: cursor) { item in
                if case .sample(let s) = item { sliced.append(s) }
            }
            lastLines.append(cursor?.lineNumber ?? 0)
            if cursor?.offset == before { break }
        }
        let whole = try read(path, jobs: 1)
        // The unterminated last line is left until its newline arrives.
        #expect(sliced == Array(whole.samples.dropLast()))
        #expect(lastLines.last == text.utf8.filter { $0 == 0x0A }.count)  // every complete line, counted once
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("\n".utf8))
        try handle.close()
        _ = try SourceReader.readNew(path: path, options: options, cursor: cursor) { item in
            if case .sample(let s) = item { sliced.append(s) }
        }
        #expect(sliced == whole.samples)
    }

    @Test func runsHandedOverTogetherAreTheSameSamplesInTheSameOrder() throws {
        let path = try temporaryFile(Array(recording(unterminated: true).utf8))
        for strict in [false, true] {
            for chunkBytes in [7, 500, 1 << 17] {
                var options = ReadOptions(strict: strict)
                options.jobs = 2
                options.chunkBytes = chunkBytes
                var one: [AccelerationSample] = []
                var runs: [AccelerationSample] = []
                var oneError: String?
                var runsError: String?
                do {
                    _ = try AnyInput.read(path: path, options: options) {
                        if case .sample(let s) = $0 { one.append(s) }
                    }
                } catch { oneError = "\(error)" }
                var runCount = 0
                do {
                    _ = try AnyInput.read(
                        path: path, options: options,
                        batch: { run in
                            runCount += 1
                            runs.append(contentsOf: run)
                        }
                    ) { if case .sample(let s) = $0 { runs.append(s) } }
                } catch { runsError = "\(error)" }
                #expect(runs == one, "strict \(strict), ranges of \(chunkBytes)")
                #expect(runsError == oneError)
                #expect(runCount > 0 && runCount < one.count)  // handed over in runs, not one by one
            }
        }
    }
}
