/// The carried arm (issue #47, acc46): a hand held on a treadmill's rail that the body carries along once a stride.
///
/// DSADS p3's 15° walks hold the rail without the body's sway the held-arm path reads (BodySway.swift), and along
/// gravity their motion is matched by hundreds of windows of clapping and brushing teeth
/// (bench/p3_conflict37_result.md). What they have is the stride: the whole moving vector (0.6-3.5 Hz) repeats a
/// stride later (median 0.89) and hardly around half of it (0.29: the other foot's step moves the arm another way),
/// while |a| still jolts at each step (its autocorrelation at half the stride 0.28-0.77). Half-way through the stride
/// the vector is near 0 (-0.2 to 0.27), not reversed: the step's jolt lies beside the stride's loop. A hand clapping
/// or brushing at a stride's period goes to and fro, reversed half-way (-0.6 to -0.93); one repeating at each clap
/// repeats half-way as well; rowing repeats at its stroke without a jolt in |a| half-way through it. `WindowFeatures.carriedStep` and `carriedJolt` measure it; the carried-arm path reads them with
/// `vectorStride` (`StepDetector.carriedArmEvidence`, `DetectorParameters.carriedArmStride`).
extension WalkingRecognizer {
    /// Least `vectorStride` at which a window's carried-arm features are measured (-1 below it): the path needs
    /// `carriedArmStride` (0.75, ramp ±0.05; its plateau 0.7-0.8), and most windows are spared the four extra lags.
    static let carriedNeedsStride = 0.6

    /// `carriedStep` and `carriedJolt` at `stride` (8-20 ticks, where the vector repeats best): the best of `vector`
    /// (its autocorrelation by lag, 4-20 ticks) over lags of 0.4-0.6 of the stride, and `magnitude` (|a|'s at lags
    /// 4-11) at half of it (at an odd stride, the mean of the two lags around the half).
    @inline(__always)
    static func carried(stride: Int, vector: (Int) -> Double, magnitude: SIMD8<Double>) -> (step: Double, jolt: Double)
    {
        // ceil(0.4 · stride) ... floor(0.6 · stride): 4...4 at 8 ticks, 8...12 at 20.
        let (shortest, longest) = ((2 * stride + 4) / 5, 3 * stride / 5)
        var step = -1.0
        for lag in shortest...longest { step = max(step, vector(lag)) }
        let (low, high) = (stride / 2, (stride + 1) / 2)
        return (step, (magnitude[low - 4] + magnitude[high - 4]) / 2)
    }
}

extension StepDetector {
    /// How surely a window is a body stepping with a hand the body carries along once a stride, 0-1
    /// (`DetectorParameters.carriedArmStride`, `carriedArmContrast`, `carriedArmStepFloor`, `carriedArmJolt`): the
    /// whole moving vector repeats at its best stride, more than around half of it but without reversing there (a
    /// hand to and fro), and |a| repeats at half of it (each step's jolt), with its motion across gravity
    /// (`carriedArmAlongShare`); each through a ramp of ±0.05.
    func carriedArmEvidence(_ f: WindowFeatures) -> Double {
        let p = parameters
        guard Self.axesSayMore(f), p.carriedArmStride <= 1, f.carriedJolt > -1,
            f.vectorStride > p.carriedArmStride - RecognizerParameters.alongShareRamp
        else { return 0 }
        let ramp = RecognizerParameters.alongShareRamp
        return min(
            (f.vectorStride - p.carriedArmStride) / ramp,
            (f.vectorStride - f.carriedStep - p.carriedArmContrast) / ramp,
            (f.carriedStep - p.carriedArmStepFloor) / ramp,
            (f.carriedJolt - p.carriedArmJolt) / ramp,
            (p.carriedArmAlongShare - f.alongShare) / ramp
        ).rampedAcrossThreshold
    }
}
