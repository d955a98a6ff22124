/// The latest window a physical path called walking (issue #47, h47rail3): its evidence (the steady-stride, held-arm or
/// carried-arm path's own, at least `DetectorParameters.weakPeaksOpenAtPathEvidence`) and when it ended (`.min`:
/// none); and when the latest window a hand-on-a-rail path (held or carried arm) called walking while its motion lay
/// across gravity ended, for the rail bridge (RailBridge.swift).
struct PathMemory: Sendable, Codable, Equatable {
    var evidence = 0.0
    var endNs = Int64.min
    var railEndNs = Int64.min
    /// That rail window's stride (where its whole motion repeats best), in nanoseconds (0: none).
    var railStrideNs: Int64 = 0

    init(evidence: Double = 0, endNs: Int64 = .min, railEndNs: Int64 = .min, railStrideNs: Int64 = 0) {
        (self.evidence, self.endNs, self.railEndNs, self.railStrideNs) = (evidence, endNs, railEndNs, railStrideNs)
    }

    /// A memory saved before the rail bridge has no `railEndNs` or `railStrideNs`: none.
    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        evidence = try c.decode(Double.self, forKey: .evidence)
        endNs = try c.decode(Int64.self, forKey: .endNs)
        railEndNs = try c.decodeIfPresent(Int64.self, forKey: .railEndNs) ?? .min
        railStrideNs = try c.decodeIfPresent(Int64.self, forKey: .railStrideNs) ?? 0
    }

    /// Whether the window ended at most `continuityNs` before `timeNs` (or after it).
    func covers(_ timeNs: Int64, continuityNs: Int64) -> Bool {
        endNs != .min && continuityNs > 0 && endNs >= Self.earliest(timeNs, continuityNs)
    }

    /// Whether the latest window a rail path called walking ended at most `continuityNs` before `timeNs` (or after
    /// it).
    func railCovers(_ timeNs: Int64, continuityNs: Int64) -> Bool {
        railEndNs != .min && continuityNs > 0 && railEndNs >= Self.earliest(timeNs, continuityNs)
    }

    /// `timeNs` less `continuityNs`, or `.min` where that would overflow (no time subtracted can overflow).
    static func earliest(_ timeNs: Int64, _ continuityNs: Int64) -> Int64 {
        let (earliest, overflow) = timeNs.subtractingReportingOverflow(continuityNs)
        return overflow ? .min : earliest
    }
}

/// Path continuity (`DetectorParameters.pathContinuitySeconds`): a walk a physical path recognised need not be proven
/// again in every window while it goes on. A hand held on a treadmill's rail shows the body's figure of eight just at
/// the held-arm path's bars (DSADS p1, p2: `r_stride` 0.72-0.82 against 0.75), in a third to a half of the walk's
/// windows, scattered; judged window by window the walk kept breaking, and each new rhythm bout had to reach `enter`
/// again (and weak peaks could open one only right after a window that showed the path). For `pathContinuitySeconds`
/// after the end of the latest window a path called walking (only a window's own evidence is remembered):
/// - a window keeps that evidence for `stay` if its own is lower (never to become walking on: `enter` reads its own);
/// - a weak peak may open a bout;
/// - a step that holds `stay` continues a walk whose last step counted at most as long before it, as if the walk had
///   not stopped, instead of having to reach `enter` again.
extension StepDetector {
    var pathContinuityNs: Int64 { Int64(max(0, min(parameters.pathContinuitySeconds, 60)) * 1e9) }

    /// A window's own physical-path evidence (the largest of the steady-stride, held-arm and carried-arm paths') and
    /// its evidence for `stay`: the same, or that of the latest window a path called walking if it ended at most
    /// `pathContinuitySeconds` before this one and said more. A window whose own evidence reaches
    /// `weakPeaksOpenAtPathEvidence` becomes the one remembered.
    mutating func pathEvidence(
        _ window: (startNs: Int64, endNs: Int64, features: WindowFeatures)
    ) -> (own: Double, toStay: Double) {
        let f = window.features
        let rail = max(heldArmEvidence(f), carriedArmEvidence(f))
        let own = max(steadyStrideEvidence(f), rail)
        guard parameters.pathContinuitySeconds > 0 else { return (own, own) }
        if own >= parameters.weakPeaksOpenAtPathEvidence {
            // A hand on a rail moves across gravity: a window the gravity gate refuses (RailBridge.swift).
            let onRail =
                rail >= parameters.weakPeaksOpenAtPathEvidence && f.alongShare < parameters.recognizer.minAlongShare
            let (railEndNs, railStrideNs) =
                onRail
                ? (window.endNs, Int64(f.vectorStrideTicks) * WalkingRecognizer.tickNs)
                : (gate.pathMemory.railEndNs, gate.pathMemory.railStrideNs)
            gate.pathMemory = PathMemory(
                evidence: own, endNs: window.endNs, railEndNs: railEndNs, railStrideNs: railStrideNs)
            // The open bout may now bridge a longer gap (RailBridge.swift).
            if rhythm.inBout { updateBoutDeadline() }
            return (own, own)
        }
        guard gate.pathMemory.covers(window.endNs, continuityNs: pathContinuityNs) else { return (own, own) }
        return (own, max(own, gate.pathMemory.evidence))
    }

    /// Whether a weak peak at `timeNs` may open a bout: the latest scored window is walking by a physical path, or
    /// one that was ended at most `pathContinuitySeconds` before it.
    func weakPeaksMayOpen(at timeNs: Int64) -> Bool {
        gate.weakPeaksOpenBouts || gate.pathMemory.covers(timeNs, continuityNs: pathContinuityNs)
    }

    /// Whether a step outside a walking run that holds `stay` (probability `p`) continues the walk: the last counted
    /// step came at most `pathContinuitySeconds` before it, and the latest window a physical path called walking ended
    /// after it (it saw the step, or began at most one window after it: a step is decided once a window beginning
    /// after it is scored).
    func continuesWalk(_ timeNs: Int64, probability p: Double) -> Bool {
        p >= parameters.recognizer.stay && gate.pathMemory.endNs >= timeNs && gate.bout.steps > 0
            && gate.bout.endNs >= PathMemory.earliest(timeNs, pathContinuityNs)
    }
}
