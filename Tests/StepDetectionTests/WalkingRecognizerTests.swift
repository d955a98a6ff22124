import Foundation
import StepDetection
import TestSupport
import Testing
import WallTimeCore

/// Issue #36's two slow signals, magnitude only, 60 s at `rate` Hz with noise of 0.2 m/s²: a slow walk as a wrist's |a|
/// follows the arm's pendulum (a sine at the step rate and a smaller one at the stride), and a clap train at the same
/// rate (an impact 30 ms wide and 12 m/s² high, nothing between).
enum SlowRhythm {
    static let seconds = 60.0

    static func walk(rate: Double, stepHz: Double, seed: UInt64) -> [(timeNs: Int64, magnitude: Double)] {
        signal(rate: rate, seed: seed) { t in
            2.5 * sin(2 * .pi * stepHz * t) + 0.8 * sin(.pi * stepHz * t + 0.3)
        }
    }

    static func clapTrain(rate: Double, clapHz: Double, seed: UInt64) -> [(timeNs: Int64, magnitude: Double)] {
        signal(rate: rate, seed: seed) { t in
            let k = ((t - 1) * clapHz).rounded() / clapHz + 1  // the nearest clap, the first at 1 s
            let d = (t - k) / 0.03
            return 12 * exp(-d * d)
        }
    }

    static func signal(rate: Double, seed: UInt64, _ motion: (Double) -> Double)
        -> [(timeNs: Int64, magnitude: Double)]
    {
        var random = SeededRandom(seed: seed)
        return (0..<Int(seconds * rate)).map { i in
            let t = Double(i) / rate
            return (Int64((t * 1e9).rounded()), standardGravity + motion(t) + random.noise(0.2))
        }
    }
}

@Suite struct WalkingRecognizerTests {
    /// How far before a walk the clapping that precedes it may count with it: its last seconds share the walk's
    /// first 10.24 s windows, or lean towards walking and join the run the walk confirms.
    static let sharedLeadNs: Int64 = 12_000_000_000

    @Test(arguments: [12.5, 25, 50, 100, 200])
    func walkingAt16To22HzCountsWithin2Percent(rate: Double) {
        for hz in [1.6, 1.9, 2.2] {
            let walk = SyntheticWalk(rate: rate, steps: Int(60 * hz), interval: 1 / hz, seed: UInt64(rate * 10))
            let truth = walk.steps
            for magnitudeOnly in [true, false] {
                let counted = SyntheticMotion.count(SyntheticMotion.walk3D(walk), magnitudeOnly: magnitudeOnly).steps
                let error = abs(Double(counted - truth)) / Double(truth)
                #expect(
                    error <= 0.02,
                    "\(rate) Hz sampling, \(hz) steps/s, magnitude only \(magnitudeOnly): \(counted) of \(truth)")
            }
        }
    }

    @Test(arguments: [12.5, 25])
    func aSlowWalkAt36To48StepsAMinuteCountsWithin5Percent(rate: Double) {
        for stepHz in [0.6, 0.7, 0.8] {
            let truth = Int(SlowRhythm.seconds * stepHz)
            let counted = detect(SlowRhythm.walk(rate: rate, stepHz: stepHz, seed: UInt64(stepHz * 10))).detector
                .counters.steps
            #expect(
                abs(Double(counted - truth)) <= 0.05 * Double(truth),
                "\(rate) Hz sampling, \(stepHz) steps/s: \(counted) of \(truth)")
        }
    }

    @Test func treesJoinedFromPartsScoreAsOneModel() {
        // The generated model comes in parts, a file each (WalkingModelTrees1-3.swift): joined in order, they are the
        // one model the trainer fitted, every tree's leaf added to the one base.
        let first = WalkingTrees(depth: 1, base: 0, features: [0], thresholds: [0], leaves: [-1, 0.25])
        let second = WalkingTrees(depth: 1, base: 0, features: [1], thresholds: [0], leaves: [0.125, -0.5])
        let joined = WalkingTrees(base: 0.5, joining: [first, second])
        #expect(
            joined
                == WalkingTrees(
                    depth: 1, base: 0.5, features: [0, 1], thresholds: [0, 0], leaves: [-1, 0.25, 0.125, -0.5]))
        var f = WindowFeatures()
        f.logStd = -1  // below the first tree's threshold: its left leaf, −1
        f.r1 = 1  // above the second's: its right leaf, −0.5
        let z = 0.5 - 1 - 0.5
        #expect(abs(joined.probability(f) - 1 / (1 + Foundation.exp(-z))) < 1e-12)
    }

    @Test func theBuiltInModelNeverRisesAsMotionGetsRougher() {
        // The trees are fitted monotone in r1 and r2 (scripts/train_walking.py): from any window, smoother motion at
        // its own rhythm may only raise P. Probed from 500 random windows across the features' ranges.
        var random = SeededRandom(seed: 21)
        let trees = WalkingModel.trained.model
        for _ in 0..<500 {
            var f = WindowFeatures()
            f.logStd = Double.random(in: -2...2, using: &random)
            f.rStep = Double.random(in: -1...1, using: &random)
            f.rStride = Double.random(in: -1...1, using: &random)
            f.rTwoStrides = Double.random(in: -1...1, using: &random)
            f.logKurtosis = Double.random(in: 0...4, using: &random)
            f.crest = Double.random(in: 1...8, using: &random)
            f.crossingsHz = Double.random(in: 0...4.5, using: &random)
            f.logImpulse = Double.random(in: 0...3, using: &random)
            f.peakRate = Double.random(in: 0...2, using: &random)
            f.strideCV = Double.random(in: 0...1, using: &random)
            f.r2 = Double.random(in: -1.5...0.5, using: &random)
            for r1 in stride(from: -1.5, through: 0.5, by: 0.05) {
                var smoother = f
                f.r1 = r1
                smoother.r1 = r1 + 0.05
                #expect(trees.probability(smoother) >= trees.probability(f), "r1 \(r1) in \(f)")
                smoother = f
                smoother.r2 = f.r2 + 0.1
                #expect(trees.probability(smoother) >= trees.probability(f), "r2 \(f.r2) in \(f)")
            }
        }
    }

    @Test(arguments: [12.5, 25, 50])
    func aClapTrainAtASlowWalksRateCountsNothing(rate: Double) {
        // As regular as the slow walk, but impacts rather than a swing: the recognizer's probability may only fall as
        // |a| gets rougher (r1, r2) or more impulsive (kurtosis, crest, impulse), so it refuses this train even
        // where no training window looked like it.
        for clapHz in [0.6, 0.7, 0.8] {
            let counted = detect(SlowRhythm.clapTrain(rate: rate, clapHz: clapHz, seed: UInt64(clapHz * 10)))
                .detector.counters.steps
            #expect(counted == 0, "\(rate) Hz sampling, \(clapHz) claps/s: \(counted) steps")
        }
    }

    @Test func aWalkRightAfterClappingIsCountedFromItsFirstConfirmedStep() throws {
        // Subject 1601's clapping, which the recognizer refuses: the point is where the walk after it starts.
        let clapping = try SyntheticMotion.clapping()
        var walk = SyntheticWalk(rate: 20, steps: 100, interval: 0.55, lead: 0)
        walk.startNs = (clapping.last?.timeNs ?? 0) + 50_000_000
        let (steps, times) = SyntheticMotion.count(clapping + SyntheticMotion.walk3D(walk))
        let alone = SyntheticMotion.count(SyntheticMotion.walk3D(walk)).steps
        #expect(alone >= 98)
        let walkSteps = times.filter { $0 >= walk.startNs }
        #expect(walkSteps.count >= alone - 2, "the clapping before the walk costs it no steps")
        let truth = walk.stepTimes
        #expect(
            walkSteps.first.map { $0 <= truth[2] + 100_000_000 } == true, "counting starts at the walk's first steps")
        // Only the last seconds of the clapping may count with the walk.
        let claps = times.filter { $0 < walk.startNs }
        #expect(claps.count == steps - walkSteps.count)
        #expect(
            claps.allSatisfy { $0 >= walk.startNs - Self.sharedLeadNs },
            "claps counted with the walk, seconds before it: \(claps.map { Double(walk.startNs - $0) / 1e9 })")
    }

    @Test(arguments: [0.2, 0.45, 0.5, 0.7, 0.9])
    func resumingMidRecognitionEqualsOnePass(fraction: Double) throws {
        let clapping = try SyntheticMotion.clapping()
        var walk = SyntheticWalk(rate: 20, steps: 80, interval: 0.5, lead: 0, jitter: 0.3, seed: 4)
        walk.startNs = (clapping.last?.timeNs ?? 0) + 50_000_000
        let run = try SyntheticMotion.expectResumingEqualsOnePass(clapping + SyntheticMotion.walk3D(walk), at: fraction)
        let counted = run.onePass.compactMap { if case .step(let t) = $0 { t.nanosecondsSinceEpoch } else { nil } }
        #expect((78...80).contains(counted.filter { $0 >= walk.startNs }.count), "the walk's 80 steps")
        #expect(counted.allSatisfy { $0 >= walk.startNs - Self.sharedLeadNs }, "only the clapping's last seconds")
        #expect(run.onePassCounters.refused > 100, "the clapping was refused")
    }

    @Test func aStateSavedWithTheEarlierLinearModelResumesWithTodaysTrees() throws {
        // States saved by 0.3.0 carry the recognizer's logistic regressions; they resume with the built-in trees.
        var detector = StepDetector()
        let walk = SyntheticWalk(rate: 50, steps: 40)
        for s in walk.samples() {
            detector.push(time: Instant(nanosecondsSinceEpoch: s.timeNs), magnitude: s.magnitude) { _ in }
        }
        var json = try #require(
            try JSONSerialization.jsonObject(with: JSONEncoder().encode(detector)) as? [String: Any])
        var parameters = try #require(json["parameters"] as? [String: Any])
        var recognizer = try #require(parameters["recognizer"] as? [String: Any])
        #expect(recognizer["model"] == nil, "the built-in model is not saved")
        let linear: [String: Any] = [
            "bias": -4.37, "weights": [2.4, 6.2], "lower": [-1.1, -0.2], "upper": [1.3, 0.8],
        ]
        recognizer["magnitudeModel"] = linear
        recognizer["threeAxisModel"] = linear
        parameters["recognizer"] = recognizer
        json["parameters"] = parameters
        let resumed = try JSONDecoder().decode(StepDetector.self, from: JSONSerialization.data(withJSONObject: json))
        #expect(resumed.parameters.recognizer == WalkingModel.trained)
        #expect(resumed.counters == detector.counters)
    }

    @Test func aStateSavedBeforeTheWeakPeaksResumesAsOnePass() throws {
        // States saved before the weak peaks hold the one tracker as four keys at the top and no weak tracker; cut
        // mid-walk, such a state resumes and counts as one pass (the weak tracker starts where the strong one is).
        let samples = SyntheticWalk(rate: 50, steps: 60, interval: 0.6).samples()
        let onePass = detect(samples)
        let (resumed, events) = try detectResuming(samples, at: samples.count / 2) { json in
            let peaks = try #require(json.removeValue(forKey: "peaks") as? [String: Any])
            json.removeValue(forKey: "weakPeaks")
            json.removeValue(forKey: "weakPeakNs")
            json.removeValue(forKey: "lastStepWeak")
            for key in ["seekingPeak", "extremeValue", "extremeNs", "troughValue"] {
                let value: Any = try #require(peaks[key])
                json[key] = value
            }
        }
        #expect(events == onePass.events)
        #expect(resumed.counters.steps == 60)
    }

    @Test func aStateSavedBeforeTheRhythmFeaturesResumesMidWalk() throws {
        // States saved before `peak_rate` and `stride_cv` have no candidate ring: the windows after the cut see only
        // the candidates that come after it, and the walk still counts in full.
        let samples = SyntheticWalk(rate: 50, steps: 60, interval: 0.55).samples()
        let resumed = try detectResuming(samples, at: samples.count / 2) { json in
            var recognizer = try #require(json["recognizer"] as? [String: Any])
            #expect(recognizer.removeValue(forKey: "peakTimes") != nil)
            #expect(recognizer.removeValue(forKey: "peakHead") != nil)
            json["recognizer"] = recognizer
        }.detector
        #expect(resumed.counters.steps == 60)
    }

    @Test func aSavedStateCarriesTheModelOnlyWhenItIsNotTheBuiltInOne() throws {
        let standard = String(decoding: try JSONEncoder().encode(StepDetector()), as: UTF8.self)
        #expect(!standard.contains("\"model\""), "the built-in model is not saved: an upgrade brings its own")
        #expect(try JSONDecoder().decode(StepDetector.self, from: Data(standard.utf8)).parameters == .standard)
        var custom = DetectorParameters.standard
        custom.recognizer.model = WalkingTrees(depth: 1, base: 0.5, features: [3], thresholds: [0.4], leaves: [-2, 2])
        let saved = try JSONEncoder().encode(StepDetector(parameters: custom))
        #expect(try JSONDecoder().decode(StepDetector.self, from: saved).parameters == custom)
    }

    @Test func treesWhoseArraysDoNotFitAreRefused() throws {
        let good = String(decoding: try JSONEncoder().encode(WalkingModel.trained.model), as: UTF8.self)
        #expect(try JSONDecoder().decode(WalkingTrees.self, from: Data(good.utf8)) == WalkingModel.trained.model)
        for bad in [#""depth":3"#: #""depth":4"#, #""features":["#: #""features":[99,"#] {
            let text = good.replacingOccurrences(of: bad.key, with: bad.value)
            #expect(text != good)
            #expect(throws: DecodingError.self) { try JSONDecoder().decode(WalkingTrees.self, from: Data(text.utf8)) }
        }
    }

    @Test func treesTrainedOnAnotherFeatureSetAreRefused() throws {
        // Trees name features by index; an index means another feature once the set changes (session 12 made index
        // 10 `peak_rate` where it was `gravity_steadiness`), so trees of another set, or of none, must not load.
        let saved = try JSONEncoder().encode(WalkingModel.trained.model)
        let good = try #require(try JSONSerialization.jsonObject(with: saved) as? [String: Any])
        #expect(good["featureSet"] as? Int == WindowFeatures.featureSet)
        for (set, message) in [(nil, "without a featureSet"), (1, "trained on feature set 1;")] as [(Int?, String)] {
            var trees = good
            trees["featureSet"] = set
            let text = try JSONSerialization.data(withJSONObject: trees)
            let error = #expect(throws: DecodingError.self) { try JSONDecoder().decode(WalkingTrees.self, from: text) }
            guard case .dataCorrupted(let context)? = error else {
                Issue.record("\(String(describing: error))")
                continue
            }
            #expect(context.debugDescription.contains(message) && context.debugDescription.contains("retrain"))
        }
    }

    @Test func aMissingAxisFeatureGoesRightAtEverySplit() {
        // One tree on direction_steadiness: at or above 0.9 walking, below not. Without axes the feature is missing
        // and goes right, as the training script trains it; as 0 it would read as the least steady wrist.
        let index = WindowFeatures.names.firstIndex(of: "direction_steadiness")!
        let trees = WalkingTrees(depth: 1, base: 0, features: [index], thresholds: [0.9], leaves: [-3, 3])
        var unsteady = WindowFeatures()
        unsteady.hasAxes = true
        unsteady.directionSteadiness = 0.5
        var noAxes = unsteady
        noAxes.hasAxes = false
        #expect(trees.probability(unsteady) < 0.1)
        #expect(trees.probability(noAxes) > 0.9)
        #expect(noAxes.values[index].isNaN && unsteady.values[index] == 0.5)
        #expect(trees.usesAxes)
    }

    @Test func setTwoTreesLoadOnlyWhenTheySplitOnNoAxisFeature() throws {
        // Set 3 changed only the axis features of windows without axes (0 before, missing now).
        let magnitude = #"{"featureSet":2,"depth":1,"base":0,"features":[3],"thresholds":[0.4],"leaves":[-2,2]}"#
        let loaded = try JSONDecoder().decode(WalkingTrees.self, from: Data(magnitude.utf8))
        #expect(loaded.featureSet == WindowFeatures.featureSet && loaded.features == [3])
        let axis = magnitude.replacingOccurrences(of: #""features":[3]"#, with: #""features":[13]"#)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(WalkingTrees.self, from: Data(axis.utf8)) }
    }

    @Test func treesOfAnEarlierSetLoadOnlyWhenTheySplitOnNoLogImpulse() throws {
        // Set 8 changed what `log_impulse` measures (a tick's mean excess, not its largest sample): trees of sets 3-7
        // that split on it would read another feature, the others mean the same.
        let index = WindowFeatures.logImpulseIndex
        #expect(WindowFeatures.names[index] == "log_impulse")
        let other = #"{"featureSet":7,"depth":1,"base":0,"features":[3],"thresholds":[0.4],"leaves":[-2,2]}"#
        #expect(try JSONDecoder().decode(WalkingTrees.self, from: Data(other.utf8)).features == [3])
        let impulse = other.replacingOccurrences(of: #""features":[3]"#, with: "\"features\":[\(index)]")
        for set in [2, 3, 7] {
            let text = impulse.replacingOccurrences(of: #""featureSet":7"#, with: "\"featureSet\":\(set)")
            #expect(throws: DecodingError.self) { try JSONDecoder().decode(WalkingTrees.self, from: Data(text.utf8)) }
        }
        let current = impulse.replacingOccurrences(of: #""featureSet":7"#, with: #""featureSet":8"#)
        #expect(try JSONDecoder().decode(WalkingTrees.self, from: Data(current.utf8)).features == [index])
    }

    @Test func everyWindowIsScoredAndFeaturesAreFinite() {
        let walk = SyntheticWalk(rate: 100, steps: 60)
        var everyWindow = DetectorParameters.standard
        everyWindow.recognizer.confident = 2  // no skipping inside a confident walk
        var d = StepDetector(parameters: everyWindow, axisFeatures: true)
        var plain = StepDetector(parameters: everyWindow)
        var decisions: [(WalkingDecision, WindowFeatures)] = []
        var plainDecisions: [WalkingDecision] = []
        for s in SyntheticMotion.walk3D(walk) {
            d.push(s) {
                if case .decision(let w, let f) = $0 { decisions.append((w, f)) }
            }
            plain.push(s) {
                if case .decision(let w, let f) = $0 {
                    plainDecisions.append(w)
                    #expect(f.hasAxes == WalkingModel.trained.usesAxes)
                }
            }
        }
        // Following the axes for `eval --features` changes no decision.
        #expect(plainDecisions == decisions.map(\.0))
        // One window every 0.96 s once 10.24 s of signal are in.
        #expect(decisions.count == Int((walk.duration - 10.24) / 0.96) + 1)
        for (w, f) in decisions {
            #expect(w.end.nanosecondsSinceEpoch - w.start.nanosecondsSinceEpoch == 10_240_000_000)
            #expect((0...1).contains(w.probability))
            #expect(f.values.allSatisfy { $0.isFinite })
            #expect(f.hasAxes)
        }
    }

    @Test func aConfidentWalkScoresEveryOtherWindowAndCountsTheSame() {
        // Long walks at several rates and lengths: inside the walk, a window after a confident one is skipped; the
        // steps, and those of the walk's last second (whose window may be the skipped one), are the same.
        var everyWindow = DetectorParameters.standard
        everyWindow.recognizer.confident = 2
        for (rate, steps, tail) in [(12.5, 150, 3.0), (20.0, 151, 3.0), (50.0, 152, 3.0), (100.0, 153, 3.0)]
            + (0..<25).map({ (50.0, 150, -0.08 * Double($0)) })
        {  // the stream ends inside the walk, tick by tick over two hops
            var walk = SyntheticWalk(rate: rate, steps: steps)
            walk.tail = tail
            func run(_ p: DetectorParameters) -> (steps: [Int64], decisions: [WalkingDecision]) {
                var d = StepDetector(parameters: p)
                var steps: [Int64] = []
                var decisions: [WalkingDecision] = []
                let emit: (DetectorEvent) -> Void = {
                    switch $0 {
                    case .step(let t): steps.append(t.nanosecondsSinceEpoch)
                    case .decision(let w, _): decisions.append(w)
                    default: break
                    }
                }
                for s in SyntheticMotion.walk3D(walk) {
                    d.push(s, emit)
                }
                d.finish(emit)
                return (steps, decisions)
            }
            let skipping = run(.standard)
            let all = run(everyWindow)
            #expect(skipping.steps == all.steps, "\(rate) Hz, \(steps) steps, tail \(tail) s")
            #expect(all.steps.count >= steps - 4)
            // Never two due windows in a row skipped; in this clear walk about half are.
            #expect(skipping.decisions.count * 2 >= all.decisions.count - 2)
            #expect(
                skipping.decisions.count * 10 <= all.decisions.count * 7,
                "\(skipping.decisions.count) of \(all.decisions.count)")
            for (a, b) in zip(skipping.decisions, skipping.decisions.dropFirst()) {
                #expect(
                    b.end.nanosecondsSinceEpoch - a.end.nanosecondsSinceEpoch <= 2 * 960_000_000 || a.probability < 0.9)
            }
        }
    }

    @Test func resumingInsideAConfidentWalkEqualsOnePass() throws {
        // Cut every 0.24 s over two hops of a long walk: some states are saved with a window to skip next.
        let walk = SyntheticWalk(rate: 50, steps: 120)
        let samples = SyntheticMotion.walk3D(walk)
        func events(cut: Int?) throws -> [DetectorEvent] {
            var d = StepDetector()
            var out: [DetectorEvent] = []
            for (i, s) in samples.enumerated() {
                if i == cut { d = try JSONDecoder().decode(StepDetector.self, from: JSONEncoder().encode(d)) }
                d.push(s) { out.append($0) }
            }
            d.finish { out.append($0) }
            return out
        }
        let whole = try events(cut: nil)
        #expect(whole.filter { if case .step = $0 { true } else { false } }.count >= 118)
        for cut in stride(from: 40 * 50, to: 44 * 50, by: 12) {
            #expect(try events(cut: cut) == whole, "cut at sample \(cut)")
        }
    }

    @Test func theRecognizerOffGivesTheRhythmAlone() throws {
        var p = DetectorParameters.standard
        p.recognizer.enabled = false
        let clapping = try SyntheticMotion.clapping()
        var d = StepDetector(parameters: p)
        var decisions = 0
        for s in clapping {
            d.push(s) {
                if case .decision = $0 { decisions += 1 }
            }
        }
        d.finish { _ in }
        #expect(decisions == 0)
        #expect(d.counters.refused == 0)
        #expect(d.counters.steps > 100, "the rhythm alone counts the claps")
    }
}

/// The recognizer on the WISDM watch recordings of `../shared/data/activities` (`make eval`).
@Suite(.sharedData) struct WalkingRecognizerSharedDataTests {
    @Test func realClappingAndFoldingLoseNearlyAllTheirFalseSteps() throws {
        // WISDM watch recordings (20 Hz, three minutes each) of twelve people: the rhythm alone finds 100-400
        // "steps" in each; with the recognizer at most a tenth of them remain.
        var rhythm = DetectorParameters.standard
        rhythm.recognizer.enabled = false
        var withRecognizer = 0
        var rhythmOnly = 0
        for subject in 1600...1611 {
            for activity in ["clapping", "folding-clothes"] {
                let samples = try SyntheticMotion.recording("data/activities/wisdm_watch/\(subject)_\(activity).csv")
                withRecognizer += SyntheticMotion.count(samples).steps
                rhythmOnly += SyntheticMotion.count(samples, parameters: rhythm).steps
            }
        }
        #expect(rhythmOnly > 3000)
        #expect(withRecognizer * 10 <= rhythmOnly, "\(withRecognizer) of the rhythm's \(rhythmOnly)")
    }
}
