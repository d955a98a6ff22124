/// The rounding step of the sensor that made a recording, read from the data (issue #47, h47cheap), and the noise it
/// adds to the recognizer's |a| ticks. A cheap sensor rounds each axis to a step (6 bits over ±1.5 g: 0.46 m/s²), so
/// every tick's sum of an axis's samples is a whole multiple of it, and so is the change between two ticks' sums: the
/// least change seen is the step (or, until a one-step change comes, a multiple of it). The rounding's error, uniform
/// over a step, is white noise of step²/12 on each axis and so on |a|; it dilutes how well |a| repeats a stride later
/// as noise of that power does (DSADS held-arm walks swing |a| by ~1 m/s²: bench/cheap_sensor_eval_result.md).
struct SensorRounding: Sendable, Codable, Equatable {
    /// The least change of an axis's tick sum seen (`none` until one is).
    var step = Self.none
    var previousX = 0.0, previousY = 0.0, previousZ = 0.0
    var hasPrevious = false

    static let none = Double.greatestFiniteMagnitude
    /// Changes smaller than this are how a value was printed, not a sensor's step: a 16-bit sensor over ±2 g steps by
    /// 0.0006 m/s², whose rounding adds nothing that matters here.
    static let leastStep = 0.001
    /// A window whose |a| variance is at most this many times the rounding's is mostly the rounding: left as it is.
    static let leastMotionOverRounding = 2.0

    /// Takes a tick's axis sums (once a tick, not per sample; without branches on the changes).
    @inline(__always)
    mutating func note(_ x: Double, _ y: Double, _ z: Double) {
        if hasPrevious {
            let (cx, cy, cz) = (abs(x - previousX), abs(y - previousY), abs(z - previousZ))
            let least = Self.leastStep
            step = min(step, cx < least ? Self.none : cx, cy < least ? Self.none : cy, cz < least ? Self.none : cz)
        }
        (previousX, previousY, previousZ, hasPrevious) = (x, y, z, true)
    }

    /// The variance the rounding adds to the recognizer's |a| ticks: step²/12 through the detector's two-pole low-pass
    /// of coefficient `alpha` (the sum of its impulse response's squares, α⁴(1 + β²)/(1 − β²)³ with β = 1 − α: 0.20 at
    /// 25 Hz). 0 before a step is seen.
    func tickVariance(alpha: Double) -> Double {
        guard step < Self.none, alpha > 0, alpha <= 1 else { return 0 }
        let b2 = (1 - alpha) * (1 - alpha)
        let q = 1 - b2
        return step * step / 12 * (alpha * alpha) * (alpha * alpha) * (1 + b2) / (q * q * q)
    }
}

extension SensorRounding {
    /// Σh² of the recognizer's motion band-pass (`motionSlowAlpha`'s high-pass, then `motionBandAlpha`'s low-pass, at
    /// the 12.5 Hz ticks): the variance white tick noise of variance 1 keeps in `along` and each axis of the band.
    /// (The noise's own autocorrelation at a stride, 8-20 ticks, is −0.024 to −0.001 of it: left out.)
    static let motionBandGain = 0.4213689022335794

    /// The variance the rounding adds to each axis of the recognizer's moving acceleration (h47round35), so to the
    /// component along gravity (a unit vector's dot product with three independent errors of equal variance keeps
    /// it) and 2× it to the vector across gravity: step²/12 for a tick's mean of n samples is step²/12n (ticks hold
    /// ⌊k⌋ or ⌈k⌉ of a sensor's k samples a tick), held at 1 below a sample a tick (a held error through this band
    /// keeps about white noise's: 1.02× at two ticks a sample), then `motionBandGain`. 0 before a step is seen.
    func axisTickVariance(sampleNs: Int64) -> Double {
        guard step < Self.none, sampleNs > 0 else { return 0 }
        let k = Double(WalkingRecognizer.tickNs) / Double(sampleNs)
        var perTick = 1.0
        if k > 1 {
            let fewer = k.rounded(.down)
            let more = k - fewer
            perTick = (1 - more) / fewer + more / (fewer + 1)
        }
        return step * step / 12 * perTick * Self.motionBandGain
    }
}

extension Double {
    /// This autocorrelation (at a lag past the low-pass's reach: the rounding's noise there is uncorrelated) as the
    /// motion alone gives it, without the rounding's `rounding` variance in the window's `windowVariance`; unchanged
    /// where the rounding is most of the window (its own noise, not a motion), at most 1.
    func withoutRounding(windowVariance: Double, rounding: Double) -> Double {
        guard rounding > 0, windowVariance > SensorRounding.leastMotionOverRounding * rounding else { return self }
        return Swift.min(1, self * windowVariance / (windowVariance - rounding))
    }
}
