import Foundation
import StepDetection
import TestSupport
import Testing

@testable import SensorInput

/// One row whose time jumps far ahead (a flipped digit) used to make every later row "go backwards": the rest of the
/// file was dropped. Now that row alone is skipped, named by its line, and a real gap loses nothing.
@Suite(.temporaryFolder) struct AheadTimeTests {
    struct Outcome: Equatable {
        var times: [Int64]
        var issues: [String]
    }

    func read(_ path: String, jobs: Int = 1, chunkBytes: Int = 1 << 18) throws -> Outcome {
        var options = ReadOptions()
        options.jobs = jobs
        options.chunkBytes = chunkBytes
        options.maxReportedIssues = 50
        var times: [Int64] = []
        let s = try AccelerationInput.read(path: path, options: options) { times.append($0.time.nanosecondsSinceEpoch) }
        return Outcome(times: times, issues: s.issues.map(\.description))
    }

    /// A 50 Hz `t_ms,x,y,z` recording of `rows` rows, its time column as `time(i)` gives it.
    func csv(rows: Int, time: (Int) -> Double) -> String {
        var text = "t_ms,x,y,z\n"
        for i in 0..<rows { text += "\(time(i)),0.5,\(9.8 + Double(i % 7) * 0.1),0.25\n" }
        return text
    }

    @Test func aRowFarAheadIsSkippedAndTheRowsAfterItKept() throws {
        // Past the rows that decide the units (read line by line) and in the chunked part: both paths hold the row.
        for bad in [100, 600] {
            let path = try temporaryFile(
                Array(csv(rows: 1000, time: { $0 == bad ? 9_000_000 + Double($0) * 20 : Double($0) * 20 }).utf8))
            let got = try read(path)
            #expect(got.times.count == 999, "row \(bad): \(got.times.count) samples")
            #expect(!got.times.contains(9_000_000_000_000 + Int64(bad) * 20_000_000))
            #expect(got.issues.count == 1, "\(got.issues)")
            #expect(got.issues.first?.contains(":\(bad + 2): time jumps 2.5 h ahead of the rows around it") == true)
            // Wherever the byte ranges fall, on one thread or three: the same samples and the same line named.
            for chunkBytes in [1, 7, 40, 4096] {
                for jobs in [1, 3] {
                    #expect(try read(path, jobs: jobs, chunkBytes: chunkBytes) == got, "\(jobs) jobs, \(chunkBytes) B")
                }
            }
        }
    }

    @Test func aRealGapLosesNothing() throws {
        // 10 s of recording, 2 min of nothing, 10 s more; and a recording whose last row is alone far ahead.
        let gap = try temporaryFile(
            Array(csv(rows: 1000, time: { Double($0) * 20 + ($0 >= 500 ? 120_000 : 0) }).utf8), name: "gap.csv")
        let gapRead = try read(gap, jobs: 3, chunkBytes: 40)
        #expect(gapRead.times.count == 1000 && gapRead.issues.isEmpty, "\(gapRead.issues)")
        #expect(gapRead.times == gapRead.times.sorted())
        let last = try temporaryFile(
            Array(csv(rows: 400, time: { $0 == 399 ? 3_600_000 : Double($0) * 20 }).utf8), name: "last.csv")
        let lastRead = try read(last)
        #expect(lastRead.times.count == 400 && lastRead.times.last == 3_600_000_000_000, "\(lastRead.issues)")
    }

    @Test func rowsEachFarAheadOfTheOneBeforeAreAllKept() throws {
        // A logger writing every 10 s: every row is held and the next one releases it, through the head read line by
        // line, the chunks at every range size, and a line format.
        let path = try temporaryFile(Array(csv(rows: 1000, time: { Double($0) * 10_000 }).utf8))
        for (jobs, chunkBytes) in [(1, 1 << 18), (1, 7), (3, 40)] {
            let got = try read(path, jobs: jobs, chunkBytes: chunkBytes)
            #expect(got.times == (0..<1000).map { Int64($0) * 10_000_000_000 } && got.issues.isEmpty, "\(got.issues)")
        }
        var text = ""
        for i in 0..<300 {
            text += "1,Walking,\(1_505_898_000_000_000_000 + Int64(i) * 10_000_000_000),0.5,9.8,0.25;\n"
        }
        let wisdm = try read(try temporaryFile(Array(text.utf8), name: "sparse_wisdm_raw.txt"))
        #expect(wisdm.times.count == 300 && wisdm.issues.isEmpty, "\(wisdm.issues)")
    }

    @Test func aRowThatGoesBackAfterAGapIsTheOneSkipped() throws {
        // A gap, then one row from before it: that row is the wrong one; the gap's rows are all kept.
        let path = try temporaryFile(
            Array(csv(rows: 600, time: { $0 == 401 ? 10 : Double($0) * 20 + ($0 >= 400 ? 60_000 : 0) }).utf8))
        let got = try read(path)
        #expect(got.times.count == 599)
        #expect(
            got.issues.count == 1 && got.issues.first?.contains(":403: time goes backwards") == true, "\(got.issues)")
    }

    @Test func aLineFormatHoldsTheRowToo() throws {
        // WISDM's raw layout goes through the line parsers, not the chunked CSV path.
        var text = ""
        for i in 0..<400 {
            let ns = 1_505_898_000_000_000_000 + Int64(i) * 50_000_000 + (i == 200 ? 86_400_000_000_000 : 0)
            text += "1,Walking,\(ns),0.5,\(9.8 + Double(i % 5) * 0.1),0.25;\n"
        }
        let path = try temporaryFile(Array(text.utf8), name: "wisdm_raw.txt")
        let got = try read(path)
        #expect(got.times.count == 399, "\(got.issues)")
        #expect(
            got.issues.count == 1 && got.issues.first?.contains(":201: time jumps 24.0 h ahead") == true,
            "\(got.issues)")
    }
}
