import SensorInput
import Testing
import WallTime

@testable import Store

/// A file read again changes the steps table a span of minutes at a time (`ReadingLedger.spread(_:of:emit:)`): the
/// spans together give what one spread of every changed minute gives, and no two spans share a minute.
@Suite struct LedgerSpreadTests {
    let base: Int64 = 1_735_711_200  // 2025-01-01T06:00:00Z

    func reading(_ from: Int64, _ seconds: Int64, _ steps: Int) -> StepReading {
        StepReading(
            start: Instant(nanosecondsSinceEpoch: (base + from) * 1_000_000_000 + 250_000_000),
            end: Instant(nanosecondsSinceEpoch: (base + from + seconds) * 1_000_000_000), steps: steps)
    }

    @Test func spansGiveWhatOneSpreadGives() throws {
        var readings: [StepReading] = []
        for walk in 0..<40 {  // two devices' readings of each walk, a walk every 7 minutes
            readings.append(reading(Int64(walk) * 420, 50, 10 + walk))
            readings.append(reading(Int64(walk) * 420 + 3, 55, 17 + walk % 5))
        }
        readings.append(reading(100, 3 * 3_600, 900))  // across many spans
        readings.append(reading(2_000, 0, 7))  // a point reading
        var deltas: [Int64: Int] = [:]
        for (i, r) in readings.enumerated() where i % 3 != 1 {
            deltas[StepReading.floorMinute(second: StepReading.floorSecond(r.start.nanosecondsSinceEpoch))] =
                i % 2 == 0 ? -(i + 1) : i + 4
        }
        deltas[StepReading.floorMinute(second: base + 9_000)] = 5  // a minute no reading has a second in
        let whole = ReadingLedger.spread(deltas, over: ReadingLedger.seconds(of: readings, in: deltas))
        #expect(whole.values.reduce(0, +) == deltas.values.reduce(0, +))
        for spanMinutes in [1, 2, 3, 7, 1_000] {
            var parts: [[Int64: Int]] = []
            try ReadingLedger.spread(deltas, of: readings, spanMinutes: spanMinutes) { parts.append($0) }
            let merged = parts.reduce(into: [Int64: Int]()) { $0.merge($1) { $0 + $1 } }
            #expect(merged == whole, "spans of \(spanMinutes) minutes")
            let minutes = parts.map { Set($0.keys.map { StepReading.floorMinute(second: $0) }) }
            #expect(minutes.reduce(0) { $0 + $1.count } == Set(minutes.joined()).count)
            #expect(parts.count == (deltas.count + spanMinutes - 1) / spanMinutes)
        }
    }
}
