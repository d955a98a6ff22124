/// Features of one window of motion that tell walking from hand activity.
///
/// The magnitude features come from the detector's low-passed |a| resampled at `WalkingRecognizer.tickHz`, mean
/// removed (`y`): amplitude, how smooth the motion is at one and two ticks, how alike the signal is to itself one
/// step, one stride and two strides later (periodicity and cycle similarity), and how impulsive it is (claps, taps).
/// With three axes, three more say whether the watch's orientation stays steady (walking) or wanders (dressing,
/// folding, eating): how well the direction of gravity and of the whole acceleration hold over the window, and how far
/// gravity turned from its start to its end.
public struct WindowFeatures: Sendable, Equatable {
    /// Names in the order of `values`, as `steptweet eval --features` writes them and the training script reads them.
    public static let magnitudeNames = ["log_std", "r1", "r2", "r_step", "r_stride", "r_two_strides", "log_kurtosis",
                                        "crest", "crossings_hz", "log_impulse"]
    public static let axisNames = ["gravity_steadiness", "direction_steadiness", "gravity_turn"]
    public static let names = magnitudeNames + axisNames

    /// ln of the standard deviation of |a| (m/s²).
    public var logStd = 0.0
    /// Autocorrelation at one and two ticks (80 and 160 ms): near 1 for smooth motion, lower for jitter and impulses.
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
    /// Crossings of the mean per second.
    public var crossingsHz = 0.0
    /// ln(1 + the largest distance of |a| below 6 Hz from the detector's 3 Hz signal, over the standard deviation): an
    /// impact shorter than the filter (a clap, a tap on a table) stands far out of it; a step's smoother push does not.
    public var logImpulse = 0.0
    /// Whether every tick of the window had three axes; the three features below are 0 otherwise.
    public var hasAxes = false
    /// Length of the mean of the unit gravity vectors (1: gravity kept its direction in the watch's frame).
    public var gravitySteadiness = 0.0
    /// Length of the mean of the unit acceleration vectors.
    public var directionSteadiness = 0.0
    /// How far gravity turned between the window's start and its end: 1 − cos of the angle (0 to 2).
    public var gravityTurn = 0.0

    public init() {}

    /// The features in `names` order.
    public var values: [Double] { withValues(Array.init) }

    /// Calls `body` with the features in `names` order, without allocating (the one place that lists the order).
    @inline(__always)
    func withValues<R>(_ body: (UnsafeBufferPointer<Double>) -> R) -> R {
        let v = (logStd, r1, r2, rStep, rStride, rTwoStrides, logKurtosis, crest, crossingsHz, logImpulse,
                 gravitySteadiness, directionSteadiness, gravityTurn)
        return withUnsafeBytes(of: v) { body($0.bindMemory(to: Double.self)) }
    }
}

/// Boosted decision trees over the magnitude features: `P(walking) = 1 / (1 + e^-(base + Σ leaf))`, one leaf of each
/// tree. Every tree is complete, of the same depth, stored breadth first: node `i`'s children are `2i + 1` (feature
/// below the threshold) and `2i + 2`; a tree has `2^depth − 1` splits and `2^depth` leaves. Trees need no scaling
/// or clamping of the features and cost `trees × depth` comparisons a window.
public struct WalkingTrees: Sendable, Equatable, Codable {
    public var depth: Int
    public var base: Double
    /// Per split, tree after tree: the feature's index in `WindowFeatures.names` and its threshold.
    public var features: [Int]
    public var thresholds: [Double]
    /// Per leaf, tree after tree (the learning rate already applied).
    public var leaves: [Double]

    public init(depth: Int, base: Double, features: [Int], thresholds: [Double], leaves: [Double]) {
        self.depth = depth
        self.base = base
        self.features = features
        self.thresholds = thresholds
        self.leaves = leaves
        precondition(isValid, "WalkingTrees: the arrays do not fit together")
    }

    enum CodingKeys: String, CodingKey { case depth, base, features, thresholds, leaves }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        depth = try c.decode(Int.self, forKey: .depth)
        base = try c.decode(Double.self, forKey: .base)
        features = try c.decode([Int].self, forKey: .features)
        thresholds = try c.decode([Double].self, forKey: .thresholds)
        leaves = try c.decode([Double].self, forKey: .leaves)
        guard isValid else {
            throw DecodingError.dataCorruptedError(forKey: .features, in: c,
                                                   debugDescription: "walking trees: the arrays do not fit together")
        }
    }

    /// Whether the arrays fit together: whole trees, known features.
    public var isValid: Bool {
        let splits = (1 << depth) - 1, leafCount = 1 << depth
        return (1...6).contains(depth) && features.count == thresholds.count && features.count % splits == 0
            && leaves.count / leafCount == features.count / splits && leaves.count % leafCount == 0
            && features.allSatisfy { (0..<WindowFeatures.names.count).contains($0) }
    }

    /// Whether a split uses a three-axis feature (else the recognizer need not follow the axes at all).
    public var usesAxes: Bool { features.contains { $0 >= WindowFeatures.magnitudeNames.count } }

    public func probability(_ f: WindowFeatures) -> Double {
        let splits = (1 << depth) - 1, leafCount = 1 << depth
        var z = base
        f.withValues { values in
            for tree in 0..<(leaves.count / leafCount) {
                var node = 0
                for _ in 0..<depth {
                    let k = tree * splits + node
                    node = 2 * node + (values[features[k]] < thresholds[k] ? 1 : 2)
                }
                z += leaves[tree * leafCount + node - splits]
            }
        }
        return 1 / (1 + (-z).exponential)
    }
}

/// The walking recognizer's parameters: a classifier trained by `scripts/train_walking.py` on the shared recordings
/// (coefficients in `WalkingModel.swift`) and the two probabilities of its hysteresis. A run of rhythm steps becomes
/// walking when a step's windows reach `enter` on average (its earlier steps then count too, as long as they held
/// `stay`), and stays walking while they hold `stay`. `enter` is the one parameter that trades false steps in daily
/// life against steps lost on weak walks.
public struct RecognizerParameters: Sendable, Equatable, Codable {
    /// Whether steps must lie in recognised walking to count. Off: rhythm alone decides (the detector before #10).
    public var enabled: Bool
    /// Judges a window from its magnitude features alone, with or without three axes: |a| does not depend on how the
    /// device is worn or which way its axes point, and many watches and logs give nothing else.
    public var model: WalkingTrees
    public var enter: Double
    public var stay: Double

    public init(enabled: Bool = true, model: WalkingTrees, enter: Double, stay: Double) {
        self.enabled = enabled
        self.model = model
        self.enter = enter
        self.stay = stay
    }

    enum CodingKeys: String, CodingKey { case enabled, model, enter, stay }

    /// Saves the model only when it is not the built-in one: a saved detector state then takes the model of the
    /// release that resumes it (10 KB less per state), and a custom model (`eval --parameters`) is kept.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(enabled, forKey: .enabled)
        if model != WalkingModel.trained.model { try c.encode(model, forKey: .model) }
        try c.encode(enter, forKey: .enter)
        try c.encode(stay, forKey: .stay)
    }

    /// Decodes saved parameters; without a model (the built-in one was in use, or a state saved with the earlier
    /// linear model) today's built-in model.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        enabled = try c.decode(Bool.self, forKey: .enabled)
        model = try c.decodeIfPresent(WalkingTrees.self, forKey: .model) ?? WalkingModel.trained.model
        enter = try c.decode(Double.self, forKey: .enter)
        stay = try c.decode(Double.self, forKey: .stay)
    }

    /// The probability that a window with these features is walking.
    public func probability(_ f: WindowFeatures) -> Double { model.probability(f) }
}
