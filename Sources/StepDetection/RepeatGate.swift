/// The repeat gate (issue #47, h47fold): with three axes, a window whose motion repeats neither as a stride of gait
/// does in |a| nor as a step does along gravity cannot make a run of steps walking.
///
/// A body stepping repeats itself: |a| a stride later (the same foot, the same arm swing) and the push along gravity a
/// step later (each heel strike). Folding clothes (and dressing, tidying) moves the hands rhythmically enough for the
/// rhythm gate and smoothly enough for the trees, which never saw it out of dataset, with part of its energy along
/// gravity; but each motion differs from the last. Windows over WISDM folding-clothes false steps out of dataset:
/// `r_stride` 0.21 and `along_step` 0.16 (medians), gait's 0.4-0.9 and 0.2-0.9 (bench/fold_paths_result.md).
///
/// It lowers only the probability a run becomes walking on (`enter`): a walk already counting keeps its `stay` over a
/// stretch that does not repeat (a landing on the stairs, the last steps of a walk), and a short bout is judged on the
/// probability as it was (a window over a few steps is mostly what surrounds them, which repeats nothing). Only the
/// trees' part is lowered, never a physical path's evidence: it refuses, it never opens.
extension StepDetector {
    /// 0-1: how much of the trees' probability a window keeps to become walking on: 1 without axes that say more than
    /// |a| or with the gate off; else the larger of `rStride` and `alongStep` against
    /// `DetectorParameters.minGaitRepeat`, through the gravity gate's ramp of ±0.05.
    func gaitRepeatFactor(_ f: WindowFeatures) -> Double {
        guard parameters.minGaitRepeat > Self.gaitRepeatOff, Self.axesSayMore(f) else { return 1 }
        let repeats = max(f.rStride, f.alongStep)
        return ((repeats - parameters.minGaitRepeat) / RecognizerParameters.alongShareRamp).rampedAcrossThreshold
    }

    /// 0-1: the hands gate's share of the trees' probability to become walking on (issue #47, h47clap): 1 without axes
    /// that say more than |a| or with `RecognizerParameters.handsMaxOwnShare` 0; else the larger of the own share
    /// along gravity and the arm swing against their bars, each through a ramp of ±0.05. Clapping repeats as gait does
    /// (the repeat gate passes it) but its motion along gravity is the projection of one tilted line (own share 0.17,
    /// gait's 5th percentile 0.25) and its motion across gravity repeats each clap instead of reversing half a stride
    /// later (`armSwing` −0.12, gait's 5th percentile −0.07); a walk lacking both mostly walks by a physical path
    /// (DSADS's arm held on a rail), which this gate never lowers.
    func handMotionFactor(_ f: WindowFeatures) -> Double {
        let r = parameters.recognizer
        guard r.handsMaxOwnShare > 0, Self.axesSayMore(f) else { return 1 }
        let byOwn = (f.alongOwnShare - r.handsMaxOwnShare) / RecognizerParameters.alongShareRamp
        let bySwing = (f.armSwing - r.handsMaxArmSwing) / RecognizerParameters.alongShareRamp
        return max(byOwn, bySwing).rampedAcrossThreshold
    }

    /// 0-1: the most of the trees' probability to become walking on that the vector repeat gate leaves (issue #47,
    /// h47fold35): 1 without axes that say more than |a| or with the gate off; else `vectorRepeatCeiling` for a window
    /// whose whole moving acceleration does not repeat a stride later (`vectorStride` under `minVectorRepeat`), whose
    /// motion along gravity does not either (`alongStride` under `vectorRepeatAlongOpens`) and whose strides vary
    /// (`strideCV` over `vectorRepeatSteadyStride`), through a ramp of ±0.05 to 1. Folding clothes passes the repeat
    /// gate near its bar (|a| repeats a little as each stroke lifts), but the strokes go each their own way. A ceiling,
    /// not a factor: a window that said little already keeps it for a run's mean (Bangle.js 150_4: a walk entered on a
    /// mean of 0.707).
    ///
    /// A coarse sensor's rounding adds white noise to each axis that dilutes both autocorrelations (h47round35): a
    /// window the gate would lower reads them without it (`SensorRounding.axisTickVariance`: its variance along
    /// gravity, three times it in the whole vector), as `heldArmEvidence` reads `rStride`.
    func vectorRepeatAllowance(_ f: WindowFeatures) -> Double {
        guard parameters.minVectorRepeat > Self.gaitRepeatOff, Self.axesSayMore(f) else { return 1 }
        var byVector = vectorRepeatMargin(vector: f.vectorStride, along: f.alongStride, f)
        // Most windows pass as they are: the rounding is read only under the ramp's top.
        if byVector < 0.5 {
            let rounding = recognizer.rounding.axisTickVariance(sampleNs: filter.cachedDtNs)
            byVector = vectorRepeatMargin(
                vector: f.vectorStride.withoutRounding(windowVariance: f.movingVariance, rounding: 3 * rounding),
                along: f.alongStride.withoutRounding(windowVariance: f.alongVariance, rounding: rounding), f)
        }
        let ceiling = parameters.vectorRepeatCeiling
        return ceiling + (1 - ceiling) * byVector.rampedAcrossThreshold
    }

    /// How far a window passes the vector repeat gate, in ramps (0.5 and more: it passes whole).
    private func vectorRepeatMargin(vector: Double, along: Double, _ f: WindowFeatures) -> Double {
        max(
            vector - parameters.minVectorRepeat, along - parameters.vectorRepeatAlongOpens,
            parameters.vectorRepeatSteadyStride - f.strideCV) / RecognizerParameters.alongShareRamp
    }

    /// The decision with the probability to become walking on, where the repeat and hands gates lower it.
    /// With `DetectorParameters.gatedStay` on, also the probability to stay on: the gated trees or the path's
    /// evidence for `stay` (its own, or a remembered walk's: PathContinuity.swift).
    func gatedForRepeat(
        _ decision: WindowDecision, trees: Double, pathEvidence path: (own: Double, toStay: Double),
        _ f: WindowFeatures
    ) -> WindowDecision {
        let gatedTrees = min(trees * gaitRepeatFactor(f) * handMotionFactor(f), vectorRepeatAllowance(f))
        let toEnter = max(gatedTrees, path.own)
        var gated = decision
        if toEnter < decision.probability { gated.enterProbability = toEnter }
        if parameters.gatedStay > 0 {
            let toStay = max(gatedTrees, path.toStay)
            if toStay < decision.probability { gated.stayProbability = toStay }
        }
        return gated
    }

    /// `minGaitRepeat` at or below this: off (autocorrelations are at least −1).
    static let gaitRepeatOff = -1.0
}

extension HeldEvent {
    /// Adds a scored window that contains the step.
    mutating func add(_ d: WindowDecision) {
        probabilitySum += d.probability
        windows += 1
        if let toEnter = d.enterProbability { enterShortfall = (enterShortfall ?? 0) + d.probability - toEnter }
        if let toStay = d.stayProbability { stayShortfall = (stayShortfall ?? 0) + d.probability - toStay }
    }

    /// The mean probability of the windows that contain the step (0 without any), and the mean to become walking on.
    var meanProbability: Double { windows > 0 ? probabilitySum / Double(windows) : 0 }
    var meanEnterProbability: Double {
        windows > 0 ? (probabilitySum - (enterShortfall ?? 0)) / Double(windows) : 0
    }
    var meanStayProbability: Double {
        windows > 0 ? (probabilitySum - (stayShortfall ?? 0)) / Double(windows) : 0
    }
}
