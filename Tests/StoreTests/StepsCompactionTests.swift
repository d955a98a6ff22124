import Foundation
import GRDB
import TestSupport
import Testing
import WallTime

@testable import Store

/// Old per-second steps merged into minutes: every total a window, an hour, a day or a minute can ask of them stays
/// the same, the recent five weeks stay per second, and a long history is merged a day per call.
@Suite struct StepsCompactionTests {
    let day: Int64 = 86_400

    @Test func oldSecondsBecomeMinutesWithEveryTotalKept() throws {
        let dir = try TempDir()
        let store = try StateStore(path: dir.path("state.sqlite"))
        let first: Int64 = 1_763_000_000  // 2025-11-13T02:13:20Z, not on a minute
        var buckets: [Int64: Int] = [:]
        var second = first
        var n: Int64 = 0
        while second < first + 40 * day {  // 40 days, a step burst every 7 to 16 minutes
            for s: Int64 in 0..<37 {
                let count = Int((n + s) % 5)
                buckets[second + s * 3] = s == 36 ? count - 2 : count  // some rows end at 0 or below, as lowered ones
            }
            n += 1
            second += 420 + (n % 10) * 60
        }
        let postedUntil = (first + 40 * day) * 1_000_000_000
        try store.writer.write { db in
            _ = try StateStore.addBuckets(db, buckets, nowNs: first * 1_000_000_000)
            try WindowStateRecord.setPostedUntil(db, Instant(nanosecondsSinceEpoch: postedUntil))
        }
        let cutoff = StepsCompaction.minuteStart(first + 40 * day - StepsCompaction.keptSeconds)
        func snapshot() throws -> (hours: [Int], minutes: [Int], total: Int, recentRows: Int, oldRows: Int) {
            let (lo, hi) = (first * 1_000_000_000 - 3_600_000_000_000, postedUntil)
            let hours = try store.stepsPerPeriod(in: TimeWindow(fromNs: lo, toNs: hi), bucket: 3_600, offset: 20_700)
                .map(\.steps)
            let minutes = try store.stepsPerPeriod(in: TimeWindow(fromNs: lo, toNs: hi), bucket: 60).map(\.steps)
            return try store.writer.read { db in
                (
                    hours, minutes, try StateStore.steps(db, in: TimeWindow(fromNs: lo, toNs: hi)),
                    try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM steps WHERE second >= ?", arguments: [cutoff])!,
                    try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM steps WHERE second < ?", arguments: [cutoff])!
                )
            }
        }
        let before = try snapshot()
        var merged: [Range<Int64>] = []
        while let range = try store.writer.write({ db in
            try StepsCompaction.merge(db, postedUntil: Instant(nanosecondsSinceEpoch: postedUntil))
        }) {
            merged.append(range)
        }
        #expect(merged.first?.lowerBound == StepsCompaction.minuteStart(first))
        #expect(merged.last?.upperBound == cutoff)
        #expect(merged.allSatisfy { $0.count <= StepsCompaction.mostSecondsPerCall })
        #expect(zip(merged, merged.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
        let after = try snapshot()
        #expect(after.hours == before.hours)
        #expect(after.minutes.filter { $0 != 0 } == before.minutes.filter { $0 != 0 })
        #expect(after.total == before.total)
        #expect(after.recentRows == before.recentRows, "the last five weeks stay per second")
        #expect(after.oldRows * 8 < before.oldRows, "\(before.oldRows) old rows became \(after.oldRows)")
        let oddRows = try store.writer.read { db in
            try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM steps WHERE second < ? AND (second % 60 != 0 OR count = 0)",
                arguments: [cutoff])!
        }
        #expect(oddRows == 0)
        // Nothing more until the posted windows move on; then the next day is merged.
        #expect(
            try store.writer.write { db in
                try StepsCompaction.merge(db, postedUntil: Instant(nanosecondsSinceEpoch: postedUntil))
            } == nil)
        try store.writer.write { db in
            try WindowStateRecord.setPostedUntil(
                db, Instant(nanosecondsSinceEpoch: postedUntil + 2 * day * 1_000_000_000))
        }
        try store.mergeOldSteps()
        #expect(try snapshot().total == before.total)
        #expect(try snapshot().recentRows < before.recentRows)
    }

    /// A backlog received long after its time (a phone sending a year at once) is stored a row a minute from the
    /// start, not merged later; late steps are judged by where they are stored, so none is posted twice or lost.
    @Test func stepsLongPastAreStoredAtTheirMinuteAndJudgedLateThere() throws {
        let dir = try TempDir()
        let store = try StateStore(path: dir.path("state.sqlite"))
        let old: Int64 = 1_763_000_000  // 2025-11-13T02:13:20Z: 20 s into a minute
        let now = (old + 60 * day) * 1_000_000_000
        let recent = old + 59 * day + 17
        var buckets: [Int64: Int] = [:]
        for s: Int64 in 0..<180 { buckets[old + s] = Int(s % 3) }  // 180 s over four minutes
        for s: Int64 in 0..<30 { buckets[recent + s] = 1 }
        let (late, lowered) = try store.writer.write { db in
            // The last window ended 30 s into the old stretch's second minute.
            try WindowStateRecord.setPostedUntil(db, Instant(secondsSinceEpoch: old + 70))
            return try StateStore.addBuckets(db, buckets, nowNs: now)
        }
        let rows = try store.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT second, count FROM steps ORDER BY second").map {
                (second: $0["second"] as Int64, count: $0["count"] as Int)
            }
        }
        let minute = StepsCompaction.minuteStart(old)
        let oldRows = rows.filter { $0.second < recent }
        #expect(oldRows.map(\.second) == [minute, minute + 60, minute + 120, minute + 180])
        #expect(oldRows.map(\.count).reduce(0, +) == buckets.filter { $0.key < recent }.values.reduce(0, +))
        #expect(rows.filter { $0.second >= recent }.count == 30, "the last five weeks stay per second")
        // Stored before the posted end: the first two minutes' rows, all of their steps late, none lowered.
        let storedBefore = (0..<100).reduce(0) { $0 + $1 % 3 }
        #expect(late == storedBefore && lowered == 0)
        let total = buckets.values.reduce(0, +)
        // What the next window counts, with the late steps, is every step once.
        #expect(try store.steps(in: TimeWindow(fromNs: (old + 70) * 1_000_000_000, toNs: now)) + late == total)
    }

    @Test func nothingIsMergedBeforeTheFirstWindowOrWithinFiveWeeks() throws {
        let dir = try TempDir()
        let store = try StateStore(path: dir.path("state.sqlite"))
        try store.writer.write { db in
            _ = try StateStore.addBuckets(db, [1_000_000_001: 3, 1_000_000_002: 4], nowNs: 1_000_000_003_000_000_000)
        }
        try store.mergeOldSteps()
        let posted: Int64 = (1_000_000_000 + StepsCompaction.keptSeconds) * 1_000_000_000
        let (early, recent, rows) = try store.writer.write { db in
            (
                try StepsCompaction.merge(db, postedUntil: .epoch),
                try StepsCompaction.merge(db, postedUntil: Instant(nanosecondsSinceEpoch: posted)),
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM steps")
            )
        }
        #expect(early == nil && recent == nil)
        #expect(rows == 2)
    }
}

/// A device's steps in a minute (`device_minute`) take a byte a second up to its last second with steps, and the
/// 240-byte rows written before read back the same.
@Suite struct MinuteStepsTests {
    typealias MinuteSteps = DeviceOverlap.MinuteSteps

    func minute(_ values: [Int: Int]) -> MinuteSteps {
        var m = MinuteSteps()
        for (second, steps) in values { m.add(steps, at: second) }
        return m
    }

    @Test func aByteASecondUpToTheLastStepAndTheOldFormReadsTheSame() {
        let walk = minute([0: 2, 17: 1, 41: 255])
        #expect(walk.blob.count == 42)
        #expect(MinuteSteps(blob: walk.blob).steps == walk.steps)
        var old = Data()
        for value in walk.steps { withUnsafeBytes(of: Int32(value).littleEndian) { old.append(contentsOf: $0) } }
        #expect(old.count == 240)
        #expect(MinuteSteps(blob: old).steps == walk.steps)
        for wide in [minute([3: 256, 59: 1]), minute([5: -2])] {
            #expect(wide.blob.count == 240)
            #expect(MinuteSteps(blob: wide.blob).steps == wide.steps)
        }
        #expect(MinuteSteps().blob.isEmpty && MinuteSteps(blob: Data()).isEmpty)
    }
}
