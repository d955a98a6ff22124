/// Boosted decision trees over the magnitude features: `P(walking) = 1 / (1 + e^-(base + Σ leaf))`, one leaf of each
/// tree. Every tree is complete, of the same depth, stored breadth first: node `i`'s children are `2i + 1` (feature
/// below the threshold) and `2i + 2`; a tree has `2^depth − 1` splits and `2^depth` leaves. Trees need no scaling
/// or clamping of the features and cost `trees × depth` comparisons a window. A missing feature (NaN: an axis feature
/// of a window without axes) is never below a threshold, so it goes right, as `scripts/train_walking.py` trains it.
public struct WalkingTrees: Sendable, Equatable, Codable {
    /// The `WindowFeatures.featureSet` the trees were trained on: their feature indices mean those features.
    public var featureSet: Int
    public var depth: Int
    public var base: Double
    /// Per split, tree after tree: the feature's index in `WindowFeatures.names` and its threshold.
    public var features: [Int]
    public var thresholds: [Double]
    /// Per leaf, tree after tree (the learning rate already applied).
    public var leaves: [Double]

    public init(
        depth: Int, base: Double, features: [Int], thresholds: [Double], leaves: [Double],
        featureSet: Int = WindowFeatures.featureSet
    ) {
        self.featureSet = featureSet
        self.depth = depth
        self.base = base
        self.features = features
        self.thresholds = thresholds
        self.leaves = leaves
        precondition(isValid, "WalkingTrees: the arrays do not fit together")
    }

    /// Trees one after another as one model: the generated model comes in parts, a file each, so that no source file
    /// holds more than a few hundred lines of numbers.
    public init(base: Double, joining parts: [WalkingTrees]) {
        let depth = parts.first?.depth ?? 1
        precondition(parts.allSatisfy { $0.depth == depth }, "WalkingTrees: parts of different depths")
        self.init(
            depth: depth, base: base, features: parts.flatMap(\.features), thresholds: parts.flatMap(\.thresholds),
            leaves: parts.flatMap(\.leaves))
    }

    enum CodingKeys: String, CodingKey { case featureSet, depth, base, features, thresholds, leaves }

    /// Decodes saved trees, refusing those trained on another feature set (or saved before feature sets were
    /// recorded): their indices would silently read other features.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        guard let set = try c.decodeIfPresent(Int.self, forKey: .featureSet) else {
            throw DecodingError.dataCorruptedError(
                forKey: .featureSet, in: c,
                debugDescription: "walking trees without a featureSet: saved before "
                    + "feature sets were recorded, for features this release no longer computes in that order; "
                    + "retrain them with scripts/train_walking.py")
        }
        let features = try c.decode([Int].self, forKey: .features)
        // Set 3 changed only the axis features of windows without axes: trees of set 2 that split on no axis
        // feature mean the same. Sets 4 to 7 only added features after the earlier ones, and set 8 changed only
        // `log_impulse`: trees of sets 3 to 7 that split on no `log_impulse` mean the same.
        let usesAxes = features.contains { $0 >= WindowFeatures.magnitudeNames.count }
        let usesImpulse = features.contains(WindowFeatures.logImpulseIndex)
        let sameMeaning = (3...7).contains(set) || (set == 2 && !usesAxes)
        guard set == WindowFeatures.featureSet || (sameMeaning && !usesImpulse) else {
            throw DecodingError.dataCorruptedError(
                forKey: .featureSet, in: c,
                debugDescription: "walking trees trained on feature set \(set); this "
                    + "release computes feature set \(WindowFeatures.featureSet); retrain them with "
                    + "scripts/train_walking.py")
        }
        featureSet = WindowFeatures.featureSet
        depth = try c.decode(Int.self, forKey: .depth)
        base = try c.decode(Double.self, forKey: .base)
        self.features = features
        thresholds = try c.decode([Double].self, forKey: .thresholds)
        leaves = try c.decode([Double].self, forKey: .leaves)
        guard isValid else {
            throw DecodingError.dataCorruptedError(
                forKey: .features, in: c,
                debugDescription: "walking trees: the arrays do not fit together")
        }
    }

    /// Whether the arrays fit together: whole trees, known features.
    public var isValid: Bool {
        let splits = (1 << depth) - 1
        let leafCount = 1 << depth
        return (1...6).contains(depth) && features.count == thresholds.count && features.count % splits == 0
            && leaves.count / leafCount == features.count / splits && leaves.count % leafCount == 0
            && features.allSatisfy { (0..<WindowFeatures.names.count).contains($0) }
    }

    /// No trees: every window scores `probability` (0-1, exclusive), and only the recognizer's gates on the axes (the
    /// gravity, own-share and repeat gates) tell walking from hand activity (`DetectorParameters.slowWalking`).
    public static func constant(probability: Double) -> WalkingTrees {
        WalkingTrees(
            depth: 1, base: (probability / (1 - probability)).logarithm, features: [], thresholds: [], leaves: [])
    }

    /// Whether a split uses a three-axis feature (else the recognizer need not follow the axes at all).
    public var usesAxes: Bool { features.contains { $0 >= WindowFeatures.magnitudeNames.count } }

    public func probability(_ f: WindowFeatures) -> Double {
        let splits = (1 << depth) - 1
        let leafCount = 1 << depth
        let trees = leaves.count / leafCount
        // Every index below is within these counts (the arrays are public: checked here once, not at each access).
        precondition(
            features.count >= trees * splits && thresholds.count >= trees * splits, "WalkingTrees: too few splits")
        var z = base
        f.withValues { values in
            features.withUnsafeBufferPointer { features in
                thresholds.withUnsafeBufferPointer { thresholds in
                    leaves.withUnsafeBufferPointer { leaves in
                        for tree in 0..<trees {
                            var node = 0
                            for _ in 0..<depth {
                                let k = tree &* splits &+ node
                                node = 2 &* node &+ (values[features[k]] < thresholds[k] ? 1 : 2)
                            }
                            z += leaves[tree &* leafCount &+ node &- splits]
                        }
                    }
                }
            }
        }
        return 1 / (1 + (-z).exponential)
    }
}

/// The walking recognizer's parameters: a classifier trained by `scripts/train_walking.py` on the shared recordings
/// (coefficients in `WalkingModel.swift` and its tree files) and the two probabilities of its hysteresis. A run of
/// rhythm steps becomes walking when a step's windows reach `enter` on average (its earlier steps then count too, as
/// long as they held `stay`), and stays walking while they hold `stay`. `enter` is the one parameter that trades false
/// steps in daily life against steps lost on weak walks.
public struct RecognizerParameters: Sendable, Equatable, Codable {
    /// Whether steps must lie in recognised walking to count. Off: rhythm alone decides (the detector before #10).
    public var enabled: Bool
    /// Judges a window from its magnitude features alone, with or without three axes: |a| does not depend on how the
    /// device is worn or which way its axes point, and many watches and logs give nothing else.
    public var model: WalkingTrees
    public var enter: Double
    public var stay: Double
    /// While a walk goes on and its last window scored at least this, only every other window is scored (walking
    /// is not in doubt; a change still shows within two windows): half the recognizer's work in a long walk. Above 1:
    /// every window (what the training script's feature dump uses).
    public var confident: Double

    public static let defaultConfident = 0.9
    /// With three axes, a window whose moving energy lies less than this share along gravity is not walking, whatever
    /// the trees say (issue #47): gait pushes along gravity, hands at work move across it, on every sensor measured.
    /// The probability is scaled by a ramp from `minAlongShare − 0.05` (0) to `minAlongShare + 0.05` (1), unless the
    /// arm swings as in gait (`armSwingOpens`); 0: off, as in parameters saved before it.
    public var minAlongShare: Double
    static let alongShareRamp = 0.1
    /// With three axes, a window whose motion across gravity swings as an arm does in gait (`WindowFeatures.armSwing`
    /// at least this) passes the gravity gate whatever its share along gravity: a walk with a loose or turned watch
    /// moves mostly across gravity, but its arm swings a stride and reverses each step while the body steps along
    /// gravity; hand activities do not. The same ramp of ±0.05; above 1 (`swingNeverOpens`, parameters saved before
    /// it): only the share decides.
    public var armSwingOpens: Double
    public static let swingNeverOpens = 2.0
    /// With three axes, a window whose gravity turns more than this over a stride (`WindowFeatures.strideTurn`) is not
    /// walking either, unless its arm swings as in gait: hands at work (folding, dressing) reorient the wrist every
    /// second, a walking wrist swings and comes back. A ramp of ±`strideTurnRamp`/2; 2 (parameters saved before it):
    /// off.
    public var maxStrideTurn: Double
    static let strideTurnRamp = 0.04
    /// ... unless its motion along gravity repeats at a step (`WindowFeatures.alongStep` at least this, the same ramp
    /// as the share): a walking wrist may turn, but its steps still push along gravity each step; folding and
    /// dressing reorient without that rhythm. Above 1 (parameters saved before it): a turn is refused all the same.
    public var turnOpensAlongStep: Double
    /// With three axes, a window whose moving energy along gravity is mostly the projection of a motion across it
    /// (`WindowFeatures.alongOwnShare` under this) is not walking either, unless its arm swings: a hand moving along
    /// one tilted line (clapping, brushing teeth) has a share along gravity but none of its own. The same ramp of
    /// ±0.05; 0 (parameters saved before it): off.
    public var minAlongOwnShare: Double
    /// With three axes, a window whose own share along gravity is under this and whose arm swing is under
    /// `handsMaxArmSwing` gives none of the trees' probability to a run becoming walking (RepeatGate.swift,
    /// `handMotionFactor`): clapping, one hand's motion repeating each beat. 0 (parameters saved before it): off.
    public var handsMaxOwnShare: Double
    /// The arm-swing bar of `handsMaxOwnShare`'s gate (a motion across gravity that repeats each beat instead of
    /// reversing half a stride later). The same ramps of ±0.05.
    public var handsMaxArmSwing: Double

    public init(
        enabled: Bool = true, model: WalkingTrees, enter: Double, stay: Double,
        confident: Double = Self.defaultConfident, minAlongShare: Double = 0, armSwingOpens: Double = swingNeverOpens,
        maxStrideTurn: Double = 2, turnOpensAlongStep: Double = 2, minAlongOwnShare: Double = 0,
        handsMaxOwnShare: Double = 0, handsMaxArmSwing: Double = 0
    ) {
        self.handsMaxOwnShare = handsMaxOwnShare
        self.handsMaxArmSwing = handsMaxArmSwing
        self.maxStrideTurn = maxStrideTurn
        self.turnOpensAlongStep = turnOpensAlongStep
        self.minAlongOwnShare = minAlongOwnShare
        self.minAlongShare = minAlongShare
        self.armSwingOpens = armSwingOpens
        self.enabled = enabled
        self.model = model
        self.enter = enter
        self.stay = stay
        self.confident = confident
    }

    enum CodingKeys: String, CodingKey {
        case enabled, model, enter, stay, confident, minAlongShare, armSwingOpens, maxStrideTurn, turnOpensAlongStep
        case minAlongOwnShare, handsMaxOwnShare, handsMaxArmSwing
    }

    /// Saves the model only when it is not the built-in one: a saved detector state then takes the model of the
    /// release that resumes it (10 KB less per state), and a custom model (`eval --parameters`) is kept.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(enabled, forKey: .enabled)
        if model != WalkingModel.trained.model { try c.encode(model, forKey: .model) }
        try c.encode(enter, forKey: .enter)
        try c.encode(stay, forKey: .stay)
        try c.encode(confident, forKey: .confident)
        try c.encode(minAlongShare, forKey: .minAlongShare)
        try c.encode(armSwingOpens, forKey: .armSwingOpens)
        try c.encode(maxStrideTurn, forKey: .maxStrideTurn)
        try c.encode(turnOpensAlongStep, forKey: .turnOpensAlongStep)
        try c.encode(minAlongOwnShare, forKey: .minAlongOwnShare)
        try c.encode(handsMaxOwnShare, forKey: .handsMaxOwnShare)
        try c.encode(handsMaxArmSwing, forKey: .handsMaxArmSwing)
    }

    /// Decodes saved parameters; without a model (the built-in one was in use, or a state saved with the earlier
    /// linear model) today's built-in model.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        enabled = try c.decode(Bool.self, forKey: .enabled)
        model = try c.decodeIfPresent(WalkingTrees.self, forKey: .model) ?? WalkingModel.trained.model
        enter = try c.decode(Double.self, forKey: .enter)
        stay = try c.decode(Double.self, forKey: .stay)
        confident = try c.decodeIfPresent(Double.self, forKey: .confident) ?? Self.defaultConfident
        minAlongShare = try c.decodeIfPresent(Double.self, forKey: .minAlongShare) ?? 0
        armSwingOpens = try c.decodeIfPresent(Double.self, forKey: .armSwingOpens) ?? Self.swingNeverOpens
        maxStrideTurn = try c.decodeIfPresent(Double.self, forKey: .maxStrideTurn) ?? 2
        turnOpensAlongStep = try c.decodeIfPresent(Double.self, forKey: .turnOpensAlongStep) ?? 2
        minAlongOwnShare = try c.decodeIfPresent(Double.self, forKey: .minAlongOwnShare) ?? 0
        handsMaxOwnShare = try c.decodeIfPresent(Double.self, forKey: .handsMaxOwnShare) ?? 0
        handsMaxArmSwing = try c.decodeIfPresent(Double.self, forKey: .handsMaxArmSwing) ?? 0
    }

    /// Whether judging a window needs the three axes: the model splits on an axis feature, or the gravity gate is on.
    public var usesAxes: Bool { model.usesAxes || minAlongShare > 0 }

    /// The probability that a window with these features is walking. `shareOpening`: the share gate's ramp opens at
    /// least this far (in ramps) whatever the share (the step band's, StepBandGate.swift).
    public func probability(_ f: WindowFeatures, shareOpening: Double = -.infinity) -> Double {
        let p = model.probability(f)
        guard f.hasAxes && minAlongShare > 0 else { return p }
        let byShare = max((f.alongShare - minAlongShare) / Self.alongShareRamp, shareOpening)
        let byTurn = max(
            (maxStrideTurn - f.strideTurn) / Self.strideTurnRamp,
            (f.alongStep - turnOpensAlongStep) / Self.alongShareRamp)
        let byOwn = minAlongOwnShare > 0 ? (f.alongOwnShare - minAlongOwnShare) / Self.alongShareRamp : byShare
        let bySwing = (f.armSwing - armSwingOpens) / Self.alongShareRamp
        return p * max(min(byShare, byTurn, byOwn), bySwing).rampedAcrossThreshold
    }
}
