import Foundation
import StepDetection
import Testing
import WallTime

@testable import Agent

/// A source's saved detector when `[detect] sensitivity` changed between two fetches.
@Suite struct DetectorSensitivityTests {
    /// Half a minute of steps 0.5 s apart at 50 Hz, magnitude only, after 3 s of rest.
    func pushWalk(_ detector: inout StepDetector, seconds: Double, events: inout [DetectorEvent]) {
        for i in 0..<Int(seconds * 50) {
            let t = Double(i) / 50
            let phase = t - 3 - ((t - 3) / 0.5).rounded(.down) * 0.5
            let step = t >= 3 && abs(phase - 0.25) <= 0.1 ? 4 * sin(.pi * (phase - 0.15) / 0.2) : 0
            detector.push(
                time: Instant(nanosecondsSinceEpoch: Int64((t * 1e9).rounded())), magnitude: standardGravity + step
            ) { events.append($0) }
        }
    }

    @Test func aDetectorSavedWithTheSameParametersGoesOn() throws {
        var saved = StepDetector()
        var events: [DetectorEvent] = []
        pushWalk(&saved, seconds: 20, events: &events)
        var detected = DetectedSteps()
        let resumed = resumedDetector(saved, parameters: .standard, detected: &detected)
        #expect(detected.buckets.isEmpty)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(try encoder.encode(resumed) == encoder.encode(saved))
    }

    @Test func aDetectorSavedWithOtherParametersEndsItsWalkAndANewOneGoesOnAfterIt() throws {
        var saved = StepDetector()
        var events: [DetectorEvent] = []
        pushWalk(&saved, seconds: 20, events: &events)
        let countedBefore = events.count { if case .step = $0 { true } else { false } }
        var detected = DetectedSteps()
        var resumed = resumedDetector(saved, parameters: Sensitivity.slow.parameters, detected: &detected)
        #expect(resumed.parameters == Sensitivity.slow.parameters)
        #expect(resumed.lastSample == saved.lastSample)
        // The old detector's held steps are decided, not lost: with those counted before, the whole walk.
        let finished = detected.buckets.values.reduce(0, +)
        #expect(finished > 0)
        #expect(countedBefore + finished == 34, "17 s of steps 0.5 s apart")
        // Samples read again are refused by the new detector.
        resumed.push(time: Instant(nanosecondsSinceEpoch: 1_000_000_000), magnitude: standardGravity) { _ in }
        #expect(resumed.counters.outOfOrder == 1)
    }
}
