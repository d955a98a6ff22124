import Foundation
import SensorInput
import TestSupport
import Testing
import WallTime

/// `StepReading`'s one rule for where a reading's steps fall: what `count`, `preview` and `fetch` share.
@Suite struct StepReadingTests {
    let second: Int64 = 1_000_000_000

    @Test func anyPartitionOfAReadingAddsUpToItsSteps() {
        var random = SeededRandom(seed: 7)
        for _ in 0..<500 {
            let start = Int64.random(in: -2 * second...1_800_000_000 * second, using: &random)
            let reading = StepReading(
                start: Instant(nanosecondsSinceEpoch: start),
                end: Instant(nanosecondsSinceEpoch: start + Int64.random(in: 1...86_400 * second, using: &random)),
                steps: Int.random(in: 0...50_000, using: &random))
            var cuts = (0..<Int.random(in: 1...12, using: &random)).map { _ in
                Int64.random(
                    in: reading.start.nanosecondsSinceEpoch - second...reading.end.nanosecondsSinceEpoch + second,
                    using: &random)
            }
            cuts += [reading.start.nanosecondsSinceEpoch - 1, reading.end.nanosecondsSinceEpoch + 1]
            cuts.sort()
            let parts = zip(cuts, cuts.dropFirst()).map {
                reading.steps(from: Instant(nanosecondsSinceEpoch: $0), to: Instant(nanosecondsSinceEpoch: $1))
            }
            #expect(parts.reduce(0, +) == reading.steps)
            #expect(parts.allSatisfy { $0 >= 0 })
        }
    }

    @Test func stepsAreSpreadEvenlyAndRoundedHalfUp() {
        let minute = StepReading(
            start: Instant(nanosecondsSinceEpoch: 0), end: Instant(nanosecondsSinceEpoch: 60 * second), steps: 100)
        #expect(
            minute.steps(from: Instant(nanosecondsSinceEpoch: 0), to: Instant(nanosecondsSinceEpoch: 30 * second)) == 50
        )
        #expect(
            minute.steps(from: Instant(nanosecondsSinceEpoch: 0), to: Instant(nanosecondsSinceEpoch: 15 * second)) == 25
        )
        // 100 × 1/60 = 1.67 → 2; 100 × 2/60 = 3.33 → 3: the second second holds 1.
        #expect(minute.steps(from: Instant(nanosecondsSinceEpoch: 0), to: Instant(nanosecondsSinceEpoch: second)) == 2)
        #expect(
            minute.steps(from: Instant(nanosecondsSinceEpoch: second), to: Instant(nanosecondsSinceEpoch: 2 * second))
                == 1)
        #expect(
            minute.steps(from: Instant(nanosecondsSinceEpoch: -60 * second), to: Instant(nanosecondsSinceEpoch: 0)) == 0
        )
        #expect(
            minute.steps(
                from: Instant(nanosecondsSinceEpoch: 60 * second), to: Instant(nanosecondsSinceEpoch: 120 * second))
                == 0)
    }

    @Test func aDayOfManyStepsDoesNotOverflow() {
        // 86,400 s in ns times 200,000 steps is about 1.7 × 10^19, past Int64.max.
        let day = StepReading(
            start: Instant(nanosecondsSinceEpoch: 0), end: Instant(nanosecondsSinceEpoch: 86_400 * second),
            steps: 200_000)
        #expect(
            day.steps(from: Instant(nanosecondsSinceEpoch: 0), to: Instant(nanosecondsSinceEpoch: 43_200 * second))
                == 100_000)
        #expect(day.steps(before: Instant(nanosecondsSinceEpoch: 86_400 * second - 1)) == 200_000)
    }

    @Test func aPointReadingFallsAtItsTime() {
        let point = StepReading(
            start: Instant(nanosecondsSinceEpoch: 90 * second), end: Instant(nanosecondsSinceEpoch: 90 * second),
            steps: 42)
        #expect(
            point.steps(
                from: Instant(nanosecondsSinceEpoch: 60 * second), to: Instant(nanosecondsSinceEpoch: 90 * second)) == 0
        )
        #expect(
            point.steps(
                from: Instant(nanosecondsSinceEpoch: 90 * second), to: Instant(nanosecondsSinceEpoch: 91 * second))
                == 42)
        var seconds: [Int64: Int] = [:]
        point.stepsPerSecond { seconds[$0] = $1 }
        #expect(seconds == [90: 42])
    }

    @Test func stepsPerSecondFollowTheSameRule() {
        // A reading that starts and ends inside seconds, before and after the epoch.
        for start in [-2_500_000_000 as Int64, 1_700_000_000_300_000_000] {
            let reading = StepReading(
                start: Instant(nanosecondsSinceEpoch: start),
                end: Instant(nanosecondsSinceEpoch: start + 7_400_000_000), steps: 23)
            var seconds: [Int64: Int] = [:]
            reading.stepsPerSecond { seconds[$0, default: 0] += $1 }
            #expect(seconds.values.reduce(0, +) == 23)
            for (s, n) in seconds {
                #expect(
                    reading.steps(
                        from: Instant(nanosecondsSinceEpoch: s * second),
                        to: Instant(nanosecondsSinceEpoch: (s + 1) * second)) == n)
            }
            #expect(seconds.keys.min() == StepReading.floorSecond(start))
        }
    }

    /// Readings are saved (readers' states, the agent's log) under their old keys, as bare nanoseconds: one saved
    /// before the times were `Instant`s reads as the same instants and writes back byte for byte.
    @Test func aReadingSavedBeforeInstantsReadsAndWritesAsItWas() throws {
        let saved = #"{"endNs":1732000060000000000,"startNs":1732000000123456789,"steps":42}"#
        let reading = try JSONDecoder().decode(StepReading.self, from: Data(saved.utf8))
        #expect(reading.start == Instant(nanosecondsSinceEpoch: 1_732_000_000_123_456_789))
        #expect(reading.end == Instant(nanosecondsSinceEpoch: 1_732_000_060_000_000_000))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(String(decoding: try encoder.encode(reading), as: UTF8.self) == saved)
    }
}
