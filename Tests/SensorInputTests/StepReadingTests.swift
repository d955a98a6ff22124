import SensorInput
import TestSupport
import Testing

/// `StepReading`'s one rule for where a reading's steps fall: what `count`, `preview` and `fetch` share.
@Suite struct StepReadingTests {
    let second: Int64 = 1_000_000_000

    @Test func anyPartitionOfAReadingAddsUpToItsSteps() {
        var random = SeededRandom(seed: 7)
        for _ in 0..<500 {
            let start = Int64.random(in: -2 * second...1_800_000_000 * second, using: &random)
            let reading = StepReading(
                startNs: start, endNs: start + Int64.random(in: 1...86_400 * second, using: &random),
                steps: Int.random(in: 0...50_000, using: &random))
            var cuts = (0..<Int.random(in: 1...12, using: &random)).map { _ in
                Int64.random(in: reading.startNs - second...reading.endNs + second, using: &random)
            }
            cuts += [reading.startNs - 1, reading.endNs + 1]
            cuts.sort()
            let parts = zip(cuts, cuts.dropFirst()).map { reading.steps(fromNs: $0, toNs: $1) }
            #expect(parts.reduce(0, +) == reading.steps)
            #expect(parts.allSatisfy { $0 >= 0 })
        }
    }

    @Test func stepsAreSpreadEvenlyAndRoundedHalfUp() {
        let minute = StepReading(startNs: 0, endNs: 60 * second, steps: 100)
        #expect(minute.steps(fromNs: 0, toNs: 30 * second) == 50)
        #expect(minute.steps(fromNs: 0, toNs: 15 * second) == 25)
        // 100 × 1/60 = 1.67 → 2; 100 × 2/60 = 3.33 → 3: the second second holds 1.
        #expect(minute.steps(fromNs: 0, toNs: second) == 2)
        #expect(minute.steps(fromNs: second, toNs: 2 * second) == 1)
        #expect(minute.steps(fromNs: -60 * second, toNs: 0) == 0)
        #expect(minute.steps(fromNs: 60 * second, toNs: 120 * second) == 0)
    }

    @Test func aDayOfManyStepsDoesNotOverflow() {
        // 86,400 s in ns times 200,000 steps is about 1.7 × 10^19, past Int64.max.
        let day = StepReading(startNs: 0, endNs: 86_400 * second, steps: 200_000)
        #expect(day.steps(fromNs: 0, toNs: 43_200 * second) == 100_000)
        #expect(day.steps(before: 86_400 * second - 1) == 200_000)
    }

    @Test func aPointReadingFallsAtItsTime() {
        let point = StepReading(startNs: 90 * second, endNs: 90 * second, steps: 42)
        #expect(point.steps(fromNs: 60 * second, toNs: 90 * second) == 0)
        #expect(point.steps(fromNs: 90 * second, toNs: 91 * second) == 42)
        var seconds: [Int64: Int] = [:]
        point.stepsPerSecond { seconds[$0] = $1 }
        #expect(seconds == [90: 42])
    }

    @Test func stepsPerSecondFollowTheSameRule() {
        // A reading that starts and ends inside seconds, before and after the epoch.
        for start in [-2_500_000_000 as Int64, 1_700_000_000_300_000_000] {
            let reading = StepReading(startNs: start, endNs: start + 7_400_000_000, steps: 23)
            var seconds: [Int64: Int] = [:]
            reading.stepsPerSecond { seconds[$0, default: 0] += $1 }
            #expect(seconds.values.reduce(0, +) == 23)
            for (s, n) in seconds {
                #expect(reading.steps(fromNs: s * second, toNs: (s + 1) * second) == n)
            }
            #expect(seconds.keys.min() == StepReading.floorSecond(start))
        }
    }
}
