import Foundation
import StepDetection
import TestSupport
import Testing
import WallTimeCore

/// The bout look-back (BoutLookBack.swift), bouts of a few steps, running cadences and the sensitivities.
@Suite struct BoutLookBackTests {
    /// The standard parameters with the look-back off: the detector before it.
    static let withoutLookBack: DetectorParameters = {
        var p = DetectorParameters.standard
        p.lookBackSeconds = 0
        return p
    }()

    /// A walk whose first three steps are weak (the arm swing building up): under `minSwing`, so the rhythm gate
    /// opens the bout at the fourth step; the look-back finds the three on the bout's rhythm.
    static func walkStartingWeakly(rate: Double) -> SyntheticWalk {
        SyntheticWalk(rate: rate, steps: 40, interval: 0.55, seed: 5, faded: 0..<3, fadedFactor: 0.3)
    }

    @Test(arguments: [12.5, 25, 100, 400])
    func aWalkIsCountedFromItsFirstWeakStep(rate: Double) {
        let walk = Self.walkStartingWeakly(rate: rate)
        let before = detect(walk.samples(), parameters: Self.withoutLookBack)
        #expect(before.detector.counters.steps == 37, "rate \(rate) Hz: without the look-back the walk starts late")
        let (detector, events) = detect(walk.samples())
        #expect(detector.counters.steps == 40, "rate \(rate) Hz")
        let truth = walk.stepTimes
        expectEachStepNearATrueOne(events, truth)
        let started = events.compactMap { if case .boutStarted(let t) = $0 { t.nanosecondsSinceEpoch } else { nil } }
        #expect(started.count == 1)
        #expect(started.first.map { abs($0 - truth[0]) <= 100_000_000 } == true, "the bout starts at its first step")
    }

    @Test func theLookBackReachesNoFurtherThanItsSeconds() {
        // Twenty weak steps (11 s) before the walk shows: only those of the last `lookBackSeconds` are recovered.
        let walk = SyntheticWalk(rate: 50, steps: 60, interval: 0.55, seed: 6, faded: 0..<20, fadedFactor: 0.3)
        let steps = detect(walk.samples()).detector.counters.steps
        let reach = Int(DetectorParameters.standard.lookBackSeconds / 0.55)
        #expect(steps >= 40 + reach - 1 && steps <= 40 + reach + 1, "counted \(steps)")
    }

    @Test func gesturesBeforeABoutOffItsRhythmAreNotSteps() {
        // Hand gestures 1.4-1.9 s apart, the last 1.5 s before a walk at 0.5 s: none lies one or two step intervals
        // before the next, so the look-back takes none; it does take the walk's first steps, which the gestures
        // kept the rhythm gate from seeing as a regular run.
        var samples: [(timeNs: Int64, magnitude: Double)] = []
        let gestures = [1.0, 2.7, 4.1, 6.0, 7.5]
        var random = SeededRandom(seed: 11)
        for i in 0..<(9 * 50) {
            let t = Double(i) / 50
            let bump = gestures.map { abs(t - $0) <= 0.15 ? 2.5 * cos(.pi * (t - $0) / 0.3) : 0 }.reduce(0, +)
            samples.append((Int64((t * 1e9).rounded()), standardGravity + bump + random.noise(0.15)))
        }
        var walk = SyntheticWalk(rate: 50, steps: 30, lead: 0, seed: 12)
        walk.startNs = 9_000_000_000 - 250_000_000  // the first step at 9.0 s, 1.5 s after the last gesture
        samples += walk.samples()
        let with = detect(samples).detector.counters.steps
        let without = detect(samples, parameters: Self.withoutLookBack).detector.counters.steps
        #expect(without < 30)
        #expect(with == 30, "counted \(with) of the walk's 30 steps")
    }

    @Test(arguments: [0.05, 0.12, 0.2, 0.35, 0.6])
    func resumingInsideAWeakStartEqualsOnePass(fraction: Double) throws {
        let samples = Self.walkStartingWeakly(rate: 50).samples()
        let onePass = detect(samples)
        let resumed = try detectResuming(samples, at: Int(Double(samples.count) * fraction), checkingState: true)
        #expect(resumed.events == onePass.events)
        #expect(resumed.detector.counters == onePass.detector.counters)
    }

    @Test func aStateSavedBeforeTheLookBackResumes() throws {
        // An earlier release saved no `recentPeaks`: the state decodes, and the walk goes on being counted.
        let samples = Self.walkStartingWeakly(rate: 50).samples()
        let resumed = try detectResuming(samples, at: samples.count / 2) { $0["recentPeaks"] = nil }
        #expect(resumed.detector.counters.steps == detect(samples).detector.counters.steps)
    }

    @Test func theSettledTimeCoversTheLookBack() {
        // Whenever the detector says steps before T are final, no step it reports later is before T: the look-back
        // reports steps up to `lookBackSeconds` before a bout it credits later.
        var d = StepDetector()
        var settled = Int64.min
        var late = 0
        var counted = 0
        let count: (DetectorEvent) -> Void = { event in
            if case .step(let t) = event {
                counted += 1
                if t.nanosecondsSinceEpoch < settled { late += 1 }
            }
        }
        for s in Self.walkStartingWeakly(rate: 50).samples() {
            d.push(time: Instant(nanosecondsSinceEpoch: s.timeNs), magnitude: s.magnitude, count)
            settled = max(settled, d.settled?.nanosecondsSinceEpoch ?? .min)
        }
        d.finish(count)
        #expect(counted == 40)
        #expect(late == 0)
    }
}

@Suite struct CadenceAndSensitivityTests {
    /// The rhythm gate alone (the walking recognizer judges a run by its model, which is not this suite's concern).
    static let rhythmOnly: DetectorParameters = {
        var p = DetectorParameters.standard
        p.recognizer.enabled = false
        return p
    }()

    @Test(arguments: [2.5, 2.8, 3.2], [25.0, 50, 100])
    func theRhythmCountsARunWithinFivePercent(stepsPerSecond: Double, rate: Double) {
        // A minute of running: short intervals, big impacts.
        let steps = Int(60 * stepsPerSecond)
        let run = SyntheticWalk(rate: rate, steps: steps, interval: 1 / stepsPerSecond, amplitude: 8, seed: 21)
        let counted = detect(run.samples(), parameters: Self.rhythmOnly).detector.counters.steps
        #expect(abs(counted - steps) * 20 <= steps, "\(counted) of \(steps) at \(stepsPerSecond)/s, \(rate) Hz")
    }

    @Test(arguments: [25.0, 50, 100])
    func aBoutOfEightStepsAfterRestCountsWhenSlow(rate: Double) {
        // 8 steps at 100 a minute after 10 s of rest, and rest after: a walk across a room.
        let bout = SyntheticWalk(rate: rate, steps: 8, interval: 0.6, lead: 10, tail: 10, seed: 8)
        #expect(detect(bout.samples(), parameters: Sensitivity.slow.parameters).detector.counters.steps >= 7)
        // The standard rhythm needs `minBoutSteps` (10) before a run is a walk.
        #expect(detect(bout.samples(), parameters: Self.rhythmOnly).detector.counters.steps == 0)
    }

    @Test func eachSensitivityHasItsParameterSet() {
        #expect(Sensitivity.normal.parameters == .standard)
        let slow = Sensitivity.slow.parameters
        #expect(slow != .standard)
        #expect(slow.recognizer.enabled && slow.recognizer.model.leaves.isEmpty)
        #expect(slow.maxStepInterval > DetectorParameters.standard.maxStepInterval)
        #expect(Sensitivity(rawValue: "slow") == .slow && Sensitivity(rawValue: "fast") == nil)
    }

    @Test func slowCountsNoRhythmOfSwingsSmallerThanAStep() {
        // 40 s of a rhythm at 1.2/s whose filtered swings reach about 1.4 m/s² (hands at work, or a step's second,
        // smaller impact): the standard rhythm alone would count it; slow, with no recognizer, needs a step's swing.
        let hands = SyntheticWalk(rate: 50, steps: 48, interval: 0.83, amplitude: 1.7, seed: 12)
        #expect(detect(hands.samples(), parameters: Self.rhythmOnly).detector.counters.steps >= 40)
        #expect(detect(hands.samples(), parameters: Sensitivity.slow.parameters).detector.counters.steps == 0)
        // A slow step of 2.5 m/s² still counts (`aSlowWalkCountsOnlyWhenSlow`).
    }

    @Test func aSlowWalkCountsOnlyWhenSlow() {
        // Steps 2.1-2.3 s apart, longer than the standard rhythm allows.
        var walk = SyntheticWalk(rate: 25, steps: 30, interval: 2.2, amplitude: 2.5, seed: 27)
        walk.lead = 5
        #expect(detect(walk.samples()).detector.counters.steps == 0)
        let slow = detect(walk.samples(), parameters: Sensitivity.slow.parameters).detector.counters.steps
        #expect(slow * 4 >= 30 * 3 && slow <= 31, "counted \(slow) of 30")
    }
}

/// Short bouts judged on their own when they end (issue #47): a few steps between rests, as in a timed up and go,
/// whose 10 s windows are mostly the rest around them.
@Suite struct ShortBoutTests {
    /// The standard parameters without the short-bout judgement: the detector before it.
    static let withoutShortBouts: DetectorParameters = {
        var p = DetectorParameters.standard
        p.shortBoutMinSteps = 0
        return p
    }()

    /// `steps` steps at 100 a minute after 10 s of rest, and rest after.
    static func bout(rate: Double, steps: Int = 8) -> SyntheticWalk {
        SyntheticWalk(rate: rate, steps: steps, interval: 0.6, lead: 10, tail: 10, seed: 8)
    }

    @Test(arguments: [25.0, 50, 100])
    func eightStepsAfterRestCount(rate: Double) {
        let walk = SyntheticMotion.walk3D(Self.bout(rate: rate))
        let counted = SyntheticMotion.count(walk).steps
        #expect(counted >= 7 && counted <= 8, "counted \(counted) of 8 at \(rate) Hz")
        #expect(SyntheticMotion.count(walk, parameters: Self.withoutShortBouts).steps == 0)
    }

    /// Parameters whose model says 0.5 for every window: under `enter`, over `shortBoutEnter`. Without the
    /// steady-stride and held-arm paths, which would take these synthetic walks for walking whatever the model says.
    static let undecidedModel: DetectorParameters = {
        var p = DetectorParameters.standard(treesSaying: 0)
        p.steadyStride = 2
        p.heldArmSway = 2
        p.carriedArmStride = 2
        return p
    }()

    @Test func aShortBoutCountsOnItsBestWindowOnlyWithAxes() {
        // Every window at 0.5: the hysteresis alone never enters; the bout counts whole when judged on its own, with
        // three axes whose motion lies along gravity. |a| alone says nothing of gravity: no judgement.
        let walk = SyntheticMotion.walk3D(Self.bout(rate: 50))
        #expect(SyntheticMotion.count(walk, parameters: Self.undecidedModel).steps == 8)
        var off = Self.undecidedModel
        off.shortBoutMinSteps = 0
        #expect(SyntheticMotion.count(walk, parameters: off).steps == 0)
        #expect(SyntheticMotion.count(walk, magnitudeOnly: true, parameters: Self.undecidedModel).steps == 0)
        // |a| on one axis (how bench/sensor_logger_replay.py sends a magnitude-only recording) is no more than |a|.
        let oneAxis: [SyntheticMotion.Sample] = walk.map { s in
            (s.timeNs, 0, 0, (s.x * s.x + s.y * s.y + s.z * s.z).squareRoot())
        }
        #expect(SyntheticMotion.count(oneAxis, parameters: Self.undecidedModel).steps == 0)
        // A bout longer than `shortBoutMaxSteps` is not short: its windows decide, as before.
        let long = SyntheticMotion.walk3D(Self.bout(rate: 50, steps: 30))
        #expect(SyntheticMotion.count(long, parameters: Self.undecidedModel).steps == 0)
    }

    @Test func aShortBurstAcrossGravityIsNotWalking() {
        // The same |a|, its motion across gravity (a hand at work): the bout is refused.
        let burst = SyntheticMotion.acrossGravity(Self.bout(rate: 50).samples())
        #expect(SyntheticMotion.count(burst, parameters: Self.undecidedModel).steps == 0)
    }

    @Test func aShortBurstFasterThanAWalkIsNotAShortBout() {
        // Eight impacts 0.3 s apart (200 a minute: no walk's cadence) between rests.
        let burst = SyntheticWalk(rate: 50, steps: 8, interval: 0.3, lead: 10, tail: 10, seed: 8)
        #expect(SyntheticMotion.count(SyntheticMotion.walk3D(burst), parameters: Self.undecidedModel).steps == 0)
    }

    @Test(arguments: [0.3, 0.45, 0.52, 0.6, 0.7])
    func resumingAroundAShortBoutEqualsOnePass(fraction: Double) throws {
        // Saved while the bout's refused steps wait for its end: the resumed detector judges it alike.
        let run = try SyntheticMotion.expectResumingEqualsOnePass(
            SyntheticMotion.walk3D(Self.bout(rate: 50)), at: fraction, parameters: Self.undecidedModel)
        #expect(run.onePassCounters.steps == 8)
    }

    @Test func aStateSavedBeforeShortBoutsResumes() throws {
        let (d, saved) = try SyntheticMotion.savedHalfWay(SyntheticMotion.walk3D(Self.bout(rate: 50)))
        var json = saved
        for key in ["shortBoutOpen", "parkedRefused", "shortBoutEvidence"] {
            #expect(json[key] != nil)
            json[key] = nil
        }
        #expect(try SyntheticMotion.decoded(json).counters == d.counters)
    }

    @Test(arguments: [2.5, 2.8, 3.2])
    func aRunCountsWithinFivePercent(stepsPerSecond: Double) {
        // A minute of running with three axes, through the whole detector (the recognizer judges it).
        let steps = Int(60 * stepsPerSecond)
        let run = SyntheticWalk(rate: 50, steps: steps, interval: 1 / stepsPerSecond, amplitude: 8, seed: 21)
        let counted = SyntheticMotion.count(SyntheticMotion.walk3D(run)).steps
        #expect(abs(counted - steps) * 20 <= steps, "\(counted) of \(steps) at \(stepsPerSecond)/s")
    }
}

/// Issue #47's "Done when": a cheaper sensor's copy of the same walk counts within 3 % at each quantisation and range.
@Suite struct SensorQualityTests {
    @Test(arguments: [(6, 1.5), (6, 2.0), (8, 1.5), (8, 2.0)])
    func aQuantisedClippedCopyCountsWithin3Percent(bits: Int, range: Double) throws {
        let walk = try AxisFeatureTests.fixture("bangle_wrist_walk_150.csv")
        let counted = SyntheticMotion.count(walk).steps
        let cheap = AxisFeatureTests.degraded(walk, bits: bits, range: range)
        let cheapCount = SyntheticMotion.count(cheap).steps
        #expect(
            abs(Double(cheapCount - counted)) <= 0.03 * Double(counted),
            "\(bits) bits, ±\(range) g: \(cheapCount) of \(counted)")
    }
}
