/// Features of one window of motion that tell walking from hand activity.
///
/// The magnitude features come from the detector's low-passed |a| resampled at `WalkingRecognizer.tickHz`, mean
/// removed (`y`): amplitude, how smooth the motion is at one and two ticks, how alike the signal is to itself one
/// step, one stride and two strides later (periodicity and cycle similarity), and how impulsive it is (claps, taps).
/// With three axes, three more say whether the watch's orientation stays steady (walking) or wanders (dressing,
/// folding, eating): how well the direction of gravity and of the whole acceleration hold over the window, and how far
/// gravity turned from its start to its end. Three more split the motion into its part along gravity and the rest
/// (issue #47): walking puts its rhythmic energy along gravity (the heel strike, the body's rise and fall), brushing,
/// combing, clapping and folding put it across; one more says whether the motion across gravity swings as an arm
/// does in gait, and one how much of the motion along gravity is its own rather than the projection of a motion
/// across it (a hand moving along one tilted line), and one whether the motion traces a walking body's figure of eight
/// (a hand held on a rail). None of the nine depends on which way the device's axes point.
public struct WindowFeatures: Sendable, Equatable {
    /// Names in the order of `values`, as `steptweet eval --features` writes them and the training script reads them.
    public static let magnitudeNames = [
        "log_std", "r1", "r2", "r_step", "r_stride", "r_two_strides", "log_kurtosis",
        "crest", "crossings_hz", "log_impulse", "peak_rate", "stride_cv",
    ]
    public static let axisNames = [
        "gravity_steadiness", "direction_steadiness", "gravity_turn", "along_share", "along_step", "stride_turn",
        "arm_swing", "along_own_share", "body_sway",
    ]
    public static let names = magnitudeNames + axisNames
    /// The version of these features: their order, and what each one measures. A saved model refers to features by
    /// their index in `names`, so it is only valid for the feature set it was trained on. Raise it whenever a feature
    /// is added, removed, reordered or changes what it measures (and `FEATURE_SET` in scripts/train_walking.py).
    /// 1: the first trees' ten magnitude features (never written down); 2: `peak_rate` and `stride_cv` added, `r1` and
    /// `r2` against the candidates' rate, `crossings_hz` capped; 3: the axis features of a window without axes are
    /// missing (NaN in `values`), no longer 0; 4: `along_share`, `along_step` and `stride_turn` added; 5: `arm_swing`
    /// added; 6: `along_own_share` added; 7: `body_sway` added; 8: `log_impulse` reads each tick's mean excess (its
    /// largest sample before, which grew with the sample rate).
    public static let featureSet = 8

    /// The index of `log_impulse` in `names`: the one feature set 8 changed.
    public static let logImpulseIndex = 9

    /// ln of the standard deviation of |a| (m/s²).
    public var logStd = 0.0
    /// Autocorrelation at one and two ticks (80 and 160 ms), less that of a sine at the candidates' rate (`peakRate`
    /// before its cap, at least 0.5/s): near 0 for motion as smooth as a sine at its own rhythm, below for jitter and
    /// impulses. (Raw, they also measure the cadence: a brisk walk would look like fast hand motion.)
    public var r1 = 0.0
    public var r2 = 0.0
    /// Largest autocorrelation at a step period (0.32-0.96 s), a stride period (0.64-2.0 s) and two strides
    /// (2.08-3.92 s): walking repeats itself step after step and stride after stride.
    public var rStep = 0.0
    public var rStride = 0.0
    public var rTwoStrides = 0.0
    /// ln of the kurtosis (E[y⁴]/E[y²]²; a sine gives ln 1.5, an impulse train much more).
    public var logKurtosis = 0.0
    /// Largest |y| over the standard deviation: peak sharpness.
    public var crest = 0.0
    /// Crossings of the mean per second, at most `crossingsCap`.
    public var crossingsHz = 0.0
    /// Where `crossingsHz` stops: two crossings a step at 2.25 steps/s. Above it the training windows are mostly hand
    /// motion, so faster rhythms all look alike to the trees and a brisk walk is judged by its other features.
    static let crossingsCap = 4.5
    /// ln(1 + the largest distance of |a| below 6 Hz from the detector's 3 Hz signal, over the standard deviation): an
    /// impact shorter than the filter (a clap, a tap on a table) stands far out of it; a step's smoother push does not.
    /// The distance is read once a tick: its mean over the tick (80 ms), each sample's distance holding until the
    /// next sample, and the window takes the largest of its 128 tick means. A mean over a fixed time is an integral:
    /// more samples in a tick refine it, they do not raise it. The largest of each tick's samples (before h47rate) did:
    /// more samples in 80 ms came nearer the crest of a brief excess, so a 104 Hz TUG run read a mean 0.064 more than
    /// its 25 Hz copy and 0.017 more than its 50 Hz copy (the tick mean: 0.028 and 0.004, the rest what the copies'
    /// averaging takes off the impacts; `bench/h47rate2_result.md`). A reading at the tick's instant, measured too,
    /// is rate-free only where samples fall on the ticks: a TUG window moved up to 0.18 to its 25 Hz copy's (90th
    /// percentile; the largest sample 0.11, the tick mean 0.05).
    public var logImpulse = 0.0
    /// The detector's candidate steps (peaks of `minSwing`) in the window, per second.
    public var peakRate = 0.0
    /// `peakRate` stops here (steps per second at a brisk walk): the shared data has no running, so a faster rhythm
    /// must not look less like walking than a brisk walk does.
    static let peakRateCap = 2.0
    /// How much the strides between those peaks (each to the next but one) vary: their standard deviation over their
    /// mean; 1 with fewer than four peaks. A walk keeps its stride however weak its peaks; hand motion does not.
    public var strideCV = 1.0
    /// Whether every tick of the window had three axes. Otherwise the axis features below are missing: NaN in
    /// `values`, which every split of `WalkingTrees` sends to its right side (0 would read as the least steady wrist).
    public var hasAxes = false
    /// Length of the mean of the unit gravity vectors (1: gravity kept its direction in the watch's frame).
    public var gravitySteadiness = 0.0
    /// Length of the mean of the unit acceleration vectors.
    public var directionSteadiness = 0.0
    /// How far gravity turned between the window's start and its end: 1 − cos of the angle (0 to 2).
    public var gravityTurn = 0.0
    /// The share of the moving acceleration's energy (0.6-3.5 Hz, gravity's low-pass removed) that lies along
    /// gravity: about 0.5-0.8 in gait on every sensor measured, 0.1-0.35 in hand activities.
    public var alongShare = 0.0
    /// The largest autocorrelation of the acceleration along gravity at a step period (0.32-0.96 s): steps repeat
    /// their vertical push; -1 without any motion.
    public var alongStep = -1.0
    /// How far gravity's direction moves over a stride (0.96 s): 1 − the mean cos of the angle between each tick's
    /// gravity and that of a stride before. A wrist in gait swings and comes back; hands at work reorient.
    public var strideTurn = 0.0
    /// How much the motion across gravity swings as an arm does in gait: the least of the vectors across gravity
    /// repeating one stride later, their reversing half a stride later, and the component along gravity repeating
    /// half a stride later (the body steps twice per arm swing), at the stride (0.64-1.6 s) where that is best; -1 to
    /// 1. A walk whose arm swing carries most of its energy across gravity (a loose or turned watch: a share along
    /// gravity under 0.3) shows it; brushing, clapping and folding do not reverse at half their period. A smooth
    /// swing of that period alone shows it too (its centripetal push, and the gravity estimate following it, put a
    /// component at twice its rate along gravity): an arm swinging without steps, rare in daily hand activity.
    public var armSwing = -1.0
    /// The share of the moving energy that lies along gravity and is not the projection of the motion across it:
    /// `alongShare` less the share along gravity that the vector across gravity predicts tick by tick
    /// (`AlongOnAcross`), at most the share across gravity (`1 − alongShare`). A hand moving to and fro along one line
    /// tilted θ from gravity has max(0, cos 2θ): none of its own beyond 45° (clapping, brushing teeth: 0.3-0.45 of
    /// its energy along gravity), most of it near gravity (a body's rise and fall carried by a held arm). Walking's
    /// push along gravity is its own motion: about its whole share.
    public var alongOwnShare = 0.0
    /// How much the moving acceleration traces a walking body's figure of eight (`WalkingRecognizer.bodySway`): its
    /// principal line repeats half a stride later (the rise and fall, once a step) while the motion off that line
    /// repeats a stride later and reverses half a stride later (the sway to the side of each foot); the least of the
    /// three at the best stride, -1 to 1. A hand held on a treadmill's rail or a stepper's handles carries it (DSADS:
    /// median 0.22); a hand clapping or brushing moves along one line with nothing beside it that alternates (WISDM:
    /// 99 % of windows with rhythm steps under 0.17).
    public var bodySway = -1.0
    /// How much the whole moving acceleration (the 3-D vector: along gravity and across it together) repeats a
    /// stride later: its autocorrelation, the best over strides of 0.64-1.6 s (8-20 ticks), -1 to 1; -1 without
    /// axes or motion (issue #47, h47fold35). A body stepping repeats its push, its arm's swing and the watch's turn
    /// stride after stride; hands folding clothes move each stroke another way. Not one of the trees' features
    /// (`names`): the vector repeat gate reads it (RepeatGate.swift).
    public var vectorStride = -1.0
    /// The stride at which `vectorStride` is best, in ticks (8-20; 0 where not measured): the rail bridge reads a
    /// rail walk's stride from it (RailBridge.swift).
    public var vectorStrideTicks = 0
    /// The same for the component along gravity alone (-1 to 1; -1 without axes or motion).
    public var alongStride = -1.0
    /// The variances `alongStride` and `vectorStride` divide by: of the component along gravity, and of the whole
    /// moving vector (along and across summed), in (m/s²)²; 0 without axes. The vector repeat gate takes a coarse
    /// sensor's rounding out of them (`SensorRounding.axisTickVariance`, h47round35).
    public var alongVariance = 0.0
    public var movingVariance = 0.0
    /// The carried arm (issue #47, acc46, CarriedStride.swift; not one of the trees' features, read by the carried-arm
    /// path): at the stride where `vectorStride` is best (8-20 ticks), the whole moving vector's best autocorrelation
    /// over lags of 0.4-0.6 of that stride (`carriedStep`: how much it repeats at a step) and |a|'s autocorrelation
    /// at half of it (`carriedJolt`: each step's jolt). A hand on a rail carried along once a stride repeats at the
    /// stride, not at the step, while |a| jolts each step. -1 each where not measured (`vectorStride` under
    /// `WalkingRecognizer.carriedNeedsStride`, or no axes).
    public var carriedStep = -1.0
    public var carriedJolt = -1.0
    /// |a|'s autocorrelations at lags of 4-11 ticks (measured with the magnitude features), for `carriedJolt`.
    var magnitudeSteps = SIMD8<Double>(repeating: -1)

    public init() {}

    /// The features in `names` order.
    public var values: [Double] { withValues(Array.init) }

    /// Calls `body` with the features in `names` order, without allocating (the one place that lists the order).
    @inline(__always)
    func withValues<R>(_ body: (UnsafeBufferPointer<Double>) -> R) -> R {
        let v = (
            logStd, r1, r2, rStep, rStride, rTwoStrides, logKurtosis, crest, crossingsHz, logImpulse,
            peakRate, strideCV, hasAxes ? gravitySteadiness : .nan, hasAxes ? directionSteadiness : .nan,
            hasAxes ? gravityTurn : .nan, hasAxes ? alongShare : .nan, hasAxes ? alongStep : .nan,
            hasAxes ? strideTurn : .nan, hasAxes ? armSwing : .nan, hasAxes ? alongOwnShare : .nan,
            hasAxes ? bodySway : .nan
        )
        return withUnsafeBytes(of: v) { body($0.bindMemory(to: Double.self)) }
    }
}
