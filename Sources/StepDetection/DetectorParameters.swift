/// Tunable constants of the detector. One set serves every placement and sampling rate; every filter is defined in
/// seconds or hertz, never in samples.
public struct DetectorParameters: Sendable, Equatable, Codable {
    /// Cut-off of the two-pole low-pass filter on the acceleration magnitude, in Hz.
    public var lowPassHz: Double = 3.0
    /// Smallest swing (peak minus trough of the filtered magnitude) that can be a step, in m/s². Also the floor of the
    /// hysteresis that separates one peak from the next.
    public var minSwing: Double = 1.2
    /// Inside a walking bout, a peak this large (m/s²) at the bout's rhythm is a step too: the arm swing of a slow or
    /// careful walk weakens for a few strides without the walk stopping. `minSwing` or more: off (the detector before).
    public var minSwingInWalk: Double = 0.5
    /// Shortest and longest plausible time between steps, in seconds.
    public var minStepInterval: Double = 0.25
    public var maxStepInterval: Double = 2.0
    /// Candidate steps in a row, at a regular rhythm, needed to confirm a walking bout.
    public var confirmSteps: Int = 3
    /// Steps a bout needs before any of them is credited: shorter bursts of regular motion are not walking.
    public var minBoutSteps: Int = 10
    /// Irregular intervals (off the bout's rhythm by more than `rhythmTolerance`, and not a missed step) a bout may
    /// have before it is credited; one more and the run was not walking.
    public var irregularIntervalsAllowed: Int = 2
    /// Largest ratio between the longest and the shortest stride of a run (or between an interval and the bout's
    /// step interval) that still counts as regular.
    public var rhythmTolerance: Double = 1.5
    /// Largest ratio between the largest and the smallest swing of a run that still counts as a consistent amplitude.
    public var swingTolerance: Double = 4.0
    /// An interval about twice the rhythm (1.7-2.4 times) counts two steps: one step was too weak to see (typical on
    /// the wrist, where one arm swing per stride dominates).
    public var fillMissedSteps = true
    /// The longest interval (seconds) that may hold a missed step; 0: any. A walk seen once a stride on the wrist
    /// swings its arm at 100 steps a minute or more (Bangle.js: gaps of 1.0-1.2 s); a slow walker's steps, 1.2-2.5 s
    /// apart, are each their own peak, and filling them would count a slow walk twice (`slowWalking` only).
    public var maxMissedStepGap = 0.0
    /// Tells a short-long gait from missed steps: an interval that repeats the one before the last, right after a
    /// short one, is the long half of an uneven stride (a phone in one front pocket) and is not filled.
    public var shortLongGait = true
    /// A bout just confirmed from peaks a stride apart (one arm swing each) whose next peak comes half a stride later
    /// (the walk now shows every step): each of its earlier intervals held a step too.
    public var fillStrideStart = true
    /// A bout just confirmed from peaks 0.8-1.4 s apart whose arm swings once per interval (the vector across
    /// gravity reverses half-way, the motion along gravity repeats at it) was seen once a stride: it is halved. The
    /// span (seconds) of the newest ticks read; 0: off (ArmStride.swift).
    public var armStrideSeconds = 5.12
    /// The arm stride's bars: the autocorrelation of the vector across gravity at half the interval at most this (the
    /// arm reversing), and of the motion along gravity at the interval at least `armStrideAlong` (a hand's does not
    /// repeat). Swept in bench/h47stride36_result.md.
    public var armStrideAcross = -0.6
    public var armStrideAlong = 0.4
    /// A short bout ending uncredited at 0.8-1.4 s a step whose own seconds (its first step − 0.3 s to the end)
    /// show the arm stride by these bars was seen once a stride: it is halved before it is judged (acc41b). Above 1: off.
    public var boutEndArmAcross = -0.6
    public var boutEndArmAlong = 0.4
    /// A gap in the data longer than this (seconds) resets the filters and ends the bout.
    public var maxSampleGap: Double = 2.0
    /// An all-zero sample (x, y, z = 0, or |a| = 0) is a logger's missing value: it repeats the valid sample before
    /// it (its time kept), and a run of zeros reaching more than this (seconds) past the last valid sample is a gap
    /// (ZeroHold.swift). Below 0: off (a zero is a reading of |a| = 0, the detector before).
    public var zeroHoldSeconds: Double = 2.0
    /// When a bout is credited, the peaks of up to this many seconds before its first step that keep its rhythm are
    /// its steps too (a walk's first steps are weaker or less even than the rest; the rhythm needed them to lock).
    /// 0: off (the detector before).
    public var lookBackSeconds: Double = 6.0
    /// A short bout is judged on its own when it ends (issue #47): a rhythm bout of `shortBoutMinSteps` to
    /// `shortBoutMaxSteps` steps (look-back included) that no window accepted counts whole when its best window
    /// reached `shortBoutEnter` with three axes and at least `shortBoutAlongShare` of its moving energy along gravity,
    /// its cadence is a walk's and its intervals vary by at most `shortBoutIntervalCV` (WalkingGate.swift). Its 10 s
    /// windows are mostly the rest around it (sitting, standing up, turning), so their probability stays under
    /// `enter`. 0 steps: off.
    public var shortBoutMinSteps: Int = 7
    public var shortBoutMaxSteps: Int = 24
    public var shortBoutEnter: Double = 0.25
    public var shortBoutAlongShare: Double = 0.3
    public var shortBoutIntervalCV: Double = 0.3
    /// Short bouts a few seconds apart are judged as one group (issue #47: pottering about, a few steps at a time):
    /// a rhythm bout that kept its rhythm and ended with at least `boutGroupMinSteps` steps waits up to
    /// `boutGroupGapSeconds` for the next; the group is judged like one short bout (cadence and spread over the
    /// intervals inside its bouts, the best window over its span) once it has `shortBoutMinSteps` steps, and each
    /// later bout of the group counts on the same judgement. 0 seconds: off (each short bout judged alone).
    public var boutGroupMinSteps: Int = 4
    public var boutGroupGapSeconds: Double = 8
    /// A bout of `boutGroupMinSteps` to `shortBoutMinSteps` − 1 steps whose group's next bout never comes counts alone
    /// when at least this share of the moving energy over its own seconds lies along gravity (and it passes the
    /// short-bout judgement: cadence, spread, its best window): its 10 s windows are mostly the rest around it, but
    /// the share over its own ticks is energy-weighted, so the rest dilutes it little. Walking's lone bouts spliced
    /// from ../shared put a median 0.52-0.78 of it along gravity, hand bursts of as many regular peaks 0.18-0.21
    /// (90th percentile ≤ 0.39; bench/accuracy.md, h47ends). Above 1: off (a lone bout never counts, as before).
    public var loneBoutAlongShare: Double = 0.5
    /// The least best-window probability of such a lone bout (0-1), or below 0: minus the bar of a bout of
    /// `shortBoutMinSteps` (the fewest judged on windows alone; −0.25: `shortBoutEnter`'s), scaled by the bout's steps
    /// over `shortBoutMinSteps`. A 10.24 s window over n steps is n step intervals of walking and the rest of whatever
    /// surrounds them, so the walking evidence a window can show shrinks with n (4 steps: 0.14, 5: 0.18, 6: 0.21;
    /// bench/h47short36_result.md). 0.25: the detector before.
    public var loneBoutEnter: Double = -0.25
    /// The short-bout judgement's spread leaves out the one longest interval of a bout or group of at least three
    /// intervals when it lies within this fraction of them from their middle (0.25: the middle half; 0: never; 0.5:
    /// wherever it lies): a timed up and go is two legs of a walk and a turn between them, whose one long interval is a
    /// pause, not an uneven step, and a short walk's slowest interval is often its last or first, the walker stopping
    /// or setting off (issue #47: bout ends); a hand's burst is uneven throughout. Measured (bench/accuracy.md):
    /// 0.15-0.3 a plateau for the turn (h47own); 0.5 (h47slow35) takes a short walk's end too: spliced 3-axis 10 s
    /// stretches under 100 steps/min 74.4 → 76.2 % found, pooled false steps 119.0 → 122.8/h.
    public var shortBoutTurnFromMiddle = 0.5
    /// A short bout of `shortBoutMinSteps` to `shortBoutMaxSteps` steps whose own seconds (± 0.3 s) show a body
    /// stepping passes the short-bout judgement's window test (ShortBoutBody.swift, issue #47, sw37): at least
    /// `shortBoutBodyShare` of their moving energy along gravity, that motion along gravity repeating a stride later
    /// (autocorrelation ≥ `shortBoutBodyStride`) and |a| moving by at least `shortBoutBodyMotion` m/s² (standard
    /// deviation of the low-passed |a|). A timed up and go's 10 s windows hold the stand-up, the turn and the sit-down
    /// and its |a| cannot repeat a stride over them (bench/tug37_result.md). Above 1: off.
    public var shortBoutBodyShare = 0.3
    public var shortBoutBodyStride = 0.3
    public var shortBoutBodyMotion = 1.0
    /// A lone bout of `boutGroupMinSteps` to `shortBoutMinSteps` − 1 steps (4-6) whose own seconds (± 0.3 s) show a
    /// body stepping by stricter bars than a longer short bout's counts alone without its window test and its
    /// `loneBoutAlongShare` (ShortBoutBody.swift, issue #47, acc38), when its cadence and the spread of all its
    /// intervals (none left out as a turn: `shortBoutTurnFromMiddle` judges bouts with a window) are a walk's: at least
    /// `loneBoutBodyShare` of the moving energy along gravity, that motion repeating a stride later (autocorrelation ≥
    /// `loneBoutBodyStride`) and |a| moving by at least `loneBoutBodyMotion` m/s². Four to six steps hold two or three
    /// strides, so the repeat is asked twice as high as `shortBoutBodyStride`: a hand's burst of as many regular peaks
    /// in ../shared repeats its motion along gravity a stride later at a median 0.32 (90th percentile 0.6), a short
    /// walk's lone bouts at 0.70-0.80 (bench/acc38_result.md). Above 1: off.
    public var loneBoutBodyShare = 0.35
    public var loneBoutBodyStride = 0.65
    public var loneBoutBodyMotion = 1.0
    /// A bout of 4-6 steps in a group (another bout within `boutGroupGapSeconds`) whose own seconds show a body
    /// stepping (ShortBoutBody.swift, issue #47, acc39: `groupBoutBodyShare` of the moving energy along gravity, that
    /// motion repeating a stride later at `groupBoutBodyStride`, |a| moving by `loneBoutBodyMotion`) gives its group
    /// the short-bout window test's evidence, as a longer short bout's own seconds do (`shortBoutBodyShare`); the group
    /// is still judged on the cadence and spread of the intervals inside its bouts. The repeat is the lone bars' (two
    /// or three strides a bout); the share lies between hand bursts' median (0.18) and short walks' 10th percentile
    /// (0.29): a pottering wrist swings hard across gravity. Out of dataset no false step is added at shares 0.2-0.4
    /// and repeats 0.45-0.8 (bench/acc39_result.md). Above 1: off (such a group judged on its windows, as before).
    public var groupBoutBodyShare = 0.25
    public var groupBoutBodyStride = 0.65
    /// A bout of `threeStepBoutSteps` to `boutGroupMinSteps` − 1 steps (3; issue #47, acc40) joins a group only when
    /// its own seconds show a body stepping (`threeStepBoutShare` of the moving energy along gravity, that motion
    /// repeating a stride later at `threeStepBoutStride`, |a| moving by `loneBoutBodyMotion`): the rhythm credits three
    /// steps of a pottering bout of four or five, at its start or end, yet a hand's burst has three regular peaks more
    /// often than four. It never counts alone; without that evidence its steps are refused and its group waits on.
    /// Without three axes no such bout joins. At or above `boutGroupMinSteps`, or a share above 1: off. Out of
    /// dataset no count moves at shares 0.25-0.5 and repeats 0.55-0.85; 0.3, not the group's 0.25, since at 0.25
    /// cheap sensor copies of WISDM eating count 20 more false steps (bench/acc40_result.md).
    public var threeStepBoutSteps = 3
    public var threeStepBoutShare = 0.3
    public var threeStepBoutStride = 0.65
    /// The gate look-back (issue #47, GateLookBack.swift): when a run becomes walking, the steps the walking gate
    /// refused in the `startLookBackSeconds` before its first accepted step count too, read backwards while each
    /// step's own seconds (± 0.3 s) put at least `startLookBackAlongShare` of the moving energy along gravity: a
    /// walk's first steps, whose 10 s windows were mostly the rest before them, and not a hand's motion across gravity
    /// before a walk. 0 seconds, or a share above 1: off. Measured (bench/accuracy.md, h47start): no share separates
    /// a walk's refused start (its own share 0.12-0.29 a data set) from a hand's (0.23), so the standard set reads
    /// back 5 s with a share of 0: every refused step of the run's rhythm bout that moved with three axes. Out of
    /// dataset, 4-7 s is a plateau (Oxford MAPE 1.58-1.60 %), at 4.9 false steps an hour of hand activity.
    public var startLookBackSeconds: Double = 5
    public var startLookBackAlongShare: Double = 0
    /// The steady-stride path (issue #47, WalkingGate.swift): with three axes, a window whose |a| repeats a stride
    /// later at least this well (`WindowFeatures.rStride`) and whose moving energy lies at least
    /// `steadyStrideAlongShare` along gravity is walking whatever the trees say (a ramp of ±0.05 on each). A body
    /// stepping at a steady stride does that wherever the device is carried: a runner whose arm does not swing, a phone
    /// in a back pocket. Brushing teeth comes closest (one WISDM person: r_stride 0.9, share 0.45); clapping and an
    /// elevator standing still reach 0.8 and 0.35 (bench/accuracy.md). Above 1: off.
    public var steadyStride: Double = 0.85
    public var steadyStrideAlongShare: Double = 0.45
    /// The held-arm path (issue #47, WalkingGate.swift): with three axes, a window whose moving acceleration traces a
    /// walking body's figure of eight at least this well (`WindowFeatures.bodySway`) and whose |a| repeats a stride
    /// later at least `heldArmStride` is walking whatever the trees and the gravity gates say (a ramp of ±0.05 on
    /// each). A hand on a treadmill's rail or a stepper's handles moves along one tilted line, as a clapping hand
    /// does, but carries the body's sway beside it (bench/accuracy.md). Above 1: off.
    public var heldArmSway: Double = 0.15
    public var heldArmStride: Double = 0.75
    /// The carried-arm path (issue #47, acc46, CarriedStride.swift, WalkingGate.swift): with three axes, a window
    /// whose whole moving acceleration (the 3-D vector) repeats at its best stride at least `carriedArmStride`
    /// (`WindowFeatures.carriedStride`), repeats there by at least `carriedArmContrast` more than around half of it
    /// (`carriedStep`: lags of 0.4-0.6 of that stride) but not reversed there (`carriedStep` at least
    /// `carriedArmStepFloor`), and whose |a| repeats at half of it by `carriedArmJolt` (`carriedJolt`) is walking
    /// whatever the trees and the gravity gates say (a ramp of ±0.05 on each). A hand on a treadmill's rail that the
    /// body carries along once a stride, without the sway the held-arm path reads (DSADS p3's 15° walks), repeats its
    /// whole motion at the stride and not at the step (its step's jolt beside the stride's loop: near 0 half-way),
    /// while |a| still jolts at each step; a hand clapping or brushing at that period goes to and fro (reversed
    /// half-way: -0.6 to -0.93), one that repeats at each clap has no contrast, and rowing has no jolt at half its
    /// stroke (bench/acc46_result.md). `carriedArmStride` above 1: off.
    public var carriedArmStride: Double = 0.75
    public var carriedArmContrast: Double = 0.3
    public var carriedArmStepFloor: Double = -0.4
    public var carriedArmJolt: Double = 0.2
    /// The carried-arm path takes only a window with at most this share of its moving energy along gravity (a ramp of
    /// ±0.05): a hand on a rail moves across gravity (p3's rail windows: 0.04-0.14), while a purse swinging from the
    /// shoulder at a walk's start repeats at the stride with 0.24-0.30 along it and was taken too (Oxford
    /// Pixel_Jamie_Hard_Purse_2 +5 steps over its truth; bench/rail43_result.md). Measured 0.15-0.3: the rail walks
    /// keep their counts from 0.2, the purse is left out up to 0.25.
    public var carriedArmAlongShare: Double = 0.2
    /// While the latest scored window is walking by a physical path (the steady-stride or the held-arm path's
    /// evidence at least this, 0-1), a peak of the weak tracker (`minSwingInWalk`) may open a bout too (RhythmGate
    /// .swift). A hand held on a treadmill's rail carries the body's rise and fall at a third of a free arm's swing:
    /// its steps' |a| swings stay under `minSwing`, which keeps a hand's small motions out of the rhythm, but the
    /// window's axes already say the body steps (bench/accuracy.md). Above 1: off.
    public var weakPeaksOpenAtPathEvidence: Double = 0.5
    /// Path continuity (issue #47, PathContinuity.swift): for this many seconds after the end of the latest window
    /// whose own physical-path evidence reached `weakPeaksOpenAtPathEvidence`, a window keeps that evidence for `stay`
    /// (not for `enter`), a weak peak may open a bout, and a step that holds `stay` continues a walk whose last step
    /// counted at most as long before it, if that window saw the step. A hand held on a treadmill's rail shows the
    /// held-arm path in a third to a half of a walk's windows, scattered: judged window by window, the walk kept
    /// breaking and having to reach `enter` again. Measured (bench/accuracy.md, h47rail3): false steps flat 0-20 s,
    /// Oxford ≤ 1.6 % up to 7 s (a walk's end takes the handling after it from 8 s); the same in `slowWalking` (its
    /// counts do not move). 0: off (each window alone).
    public var pathContinuitySeconds: Double = 5
    /// The rail bridge (issue #47, RailBridge.swift): while the latest window the held-arm or carried-arm path called
    /// walking with under `minAlongShare` of its moving energy along gravity ended at most `pathContinuitySeconds`
    /// before a bout's last step, a gap after that step too long for a missed step and of up to this many seconds
    /// holds as many steps as the bout's step interval fits in it, when it moved as the walk does. A hand on a
    /// treadmill's rail feels each step only through the body's carry: its |a| peaks stray ±0.2 s from the steps and
    /// vanish for seconds, so the rhythm kept breaking a walk the window already called walking into bouts 2-3 s apart
    /// (DSADS p3's 15° walks: 51 and 40 of about 80 steps a minute; bench/rail43_result.md). 0: off.
    public var railBridgeSeconds: Double = 5
    /// The repeat gate (issue #47, RepeatGate.swift): with three axes, a window whose |a| repeats a stride later
    /// (`WindowFeatures.rStride`) and whose motion along gravity repeats a step later (`alongStep`) both under this
    /// gives none of the trees' probability to a run becoming walking (`enter`; a ramp of ±0.05): a body stepping
    /// repeats one or the other, hands folding clothes neither. Out of dataset, gait rows hold from 0.1 to 0.25
    /// (bench/accuracy.md, h47fold). −1 or less: off.
    public var minGaitRepeat: Double = 0.2
    /// The vector repeat gate (issue #47, h47fold35, RepeatGate.swift): with three axes, a window whose whole moving
    /// acceleration (the 3-D vector, `WindowFeatures.vectorStride`) repeats a stride later less than this says at most
    /// `vectorRepeatCeiling` to a run becoming walking (a ramp of ±0.05), unless its motion along gravity repeats a
    /// stride later (`vectorRepeatAlongOpens`) or its strides keep their length (`vectorRepeatSteadyStride`). A body
    /// stepping repeats its push, its arm's swing and the watch's turn stride after stride; hands folding clothes
    /// move each stroke another way (WISDM folding's counted windows: 0.10, gait's 0.33-0.93). Out of dataset every
    /// gait row holds from 0.125 to 0.2 (0.225: WISDM 1609_stairs 40/min; bench/h47fold35_result.md). −1 or less: off.
    public var minVectorRepeat: Double = 0.175
    /// A window whose motion along gravity alone repeats a stride later (`WindowFeatures.alongStride`) at least this
    /// passes the vector repeat gate (a ramp of ±0.05): a walk whose arm does something else keeps its steps' push.
    /// Above 1: never.
    public var vectorRepeatAlongOpens: Double = 0.4
    /// A window whose candidate strides vary by at most this (`WindowFeatures.strideCV`) passes the vector repeat gate
    /// (a ramp of ±0.05): a steady stride is a body's; folding's strides vary (its counted windows: 0.23-0.44, 10th to
    /// 90th percentile). Below 0: never.
    public var vectorRepeatSteadyStride: Double = 0.2
    /// What the vector repeat gate leaves a window that fails it, at most, of the trees' probability to become walking
    /// on: under `recognizer.enter`, so that such windows alone never make a run walking, but a window that already
    /// said less keeps its part of a run's mean (0: none). 0.5 cost the Bangle.js walks' cheap-sensor copies (6 bits:
    /// MAPE 3.79 → 5.03 %), whose rounding dilutes `vectorStride`.
    public var vectorRepeatCeiling: Double = 0.6
    /// The gated stay (issue #47, hand37, RepeatGate.swift): a step of a walking run stays walking only if its
    /// windows' probability after the repeat, hands and vector repeat gates (or a physical path's evidence for `stay`)
    /// holds this on average, besides the trees' `recognizer.stay`. Out of dataset, WISDM clapping and folding enter a
    /// run on windows that pass the gates narrowly (a mean of 0.70-0.74), then hold `stay` on the trees alone for
    /// minutes while the gates say a median 0.4 (gait: 0.9-1.0). Out of dataset every gait row holds from 0.05 to 0.15
    /// (0.175: WISDM 1609_stairs 92 → 64/min; its 6-bit copy at 0.125); bench/hand37_result.md. 0: off.
    public var gatedStay: Double = 0.075
    /// The step-band opening of the gravity gate (issue #47, StepBandGate.swift): with three axes, a window whose
    /// moving energy above the stride band (two high-passes at 1.2 Hz) lies at least this share along gravity passes
    /// the share gate (`recognizer.minAlongShare`) whatever its share over the whole band (a ramp of ±0.05): a loosely
    /// worn watch sways across gravity at a slow walk's stride, its steps still push along it. Above 1: off.
    public var stepBandOpens: Double = 0.4
    /// The walking recognizer: which windows of motion are walking, so that only steps inside them count.
    public var recognizer: RecognizerParameters = WalkingModel.trained

    public init() {}

    /// The parameters `steptweet` uses.
    public static let standard = DetectorParameters()
}

/// How readily steps count (`[detect] sensitivity`, `count/eval --sensitivity`); one parameter set each.
public enum Sensitivity: String, Sendable, Equatable, CaseIterable, Codable {
    /// For most people: the walking recognizer judges every run of steps (`DetectorParameters.standard`).
    case normal
    /// For people who walk slowly (older people, recovery, a walker): 30-50 steps a minute, weak and uneven, which
    /// the walking recognizer's trees cannot tell from hand activity. The rhythm decides, with room for steps up to
    /// 2.5 s apart and swings of at least 1.5 m/s², and with three axes the recognizer's gates still refuse motion
    /// across gravity or without a gait's repeat: about 171 false steps an hour of hand activity against the
    /// standard set's 45 in sample (1,400 with the rhythm alone); data of |a| alone has no gate (bench/accuracy.md,
    /// h47slow).
    case slow

    /// The parameter set of this sensitivity.
    public var parameters: DetectorParameters {
        switch self {
        case .normal: return .standard
        case .slow: return .slowWalking
        }
    }
}

extension DetectorParameters {
    /// `Sensitivity.slow`: the rhythm gate and the recognizer's gates without its trees (`slowWindowProbability`);
    /// steps up to 2.5 s apart, and bouts of six steps (a walker's trips are short: across a room, to the table). With
    /// only the gates to refuse hand motion (and nothing on |a| alone), a peak needs a swing of `slowMinSwing`
    /// (1.5 m/s², for weak peaks inside a walk too): the slow wrist walks in
    /// ../shared (|a| only) show a second, smaller impact in many steps, and hand activity swings less than a step.
    /// Those second impacts, 0.6-0.7 s after a step, can lock a bout's rhythm at half a slow step; every later gap of
    /// one slow step then looked like a missed step and was filled. A missed step is filled only in a gap of at most
    /// `slowMaxMissedStepGap` (1.2 s: a walk seen once a stride at 100 steps a minute or more; a slow walker's steps,
    /// 50 a minute or fewer, are each their own peak). Measured (bench/accuracy.md): those walks 138-184 % →
    /// 121-153 % (the swing) → 109-134 % (the gap) of their steps, false steps 1,746 → 1,433 → 1,402/h → 171/h (the
    /// gates: 195 with h47slow's, 171 with h47clap's hands gate too).
    public static let slowWalking: DetectorParameters = {
        var p = DetectorParameters()
        p.maxStepInterval = 2.5
        p.minBoutSteps = 6
        p.minSwing = slowMinSwing
        p.minSwingInWalk = slowMinSwing
        p.maxMissedStepGap = slowMaxMissedStepGap
        p.railBridgeSeconds = 0  // a slow walker's step is its own peak (`slowMaxMissedStepGap`)
        p.recognizer.model = .constant(probability: slowWindowProbability)
        return p
    }()

    /// The walking probability `slowWalking` gives every window before the recognizer's gates on the axes: out of
    /// dataset the trees refuse the slow walks' |a| even at an `enter` of 0.3 (bench/accuracy.md, h47slow); the gates
    /// judge how the motion lies along gravity and whether it repeats, not how fast. A window then enters a walk when
    /// its gates' ramps leave `enter` / 0.875 = 0.8 of it. Measured 0.75-0.999: every gait row the same; false steps
    /// 114-230/h, flat at 0.85-0.9 (189-197/h).
    static let slowWindowProbability = 0.875

    /// The longest gap in which `slowWalking` fills a missed step, in seconds.
    static let slowMaxMissedStepGap = 1.2

    /// The smallest swing of a step in `slowWalking`, in m/s².
    static let slowMinSwing = 1.5
}
