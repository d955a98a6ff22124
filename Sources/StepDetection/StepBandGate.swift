/// The step-band opening of the gravity gate (issue #47, h47bangle2): a window whose moving energy lies mostly across
/// gravity, but whose energy above the stride band lies along it, passes the share gate.
///
/// A loosely worn watch on a slow walk (Bangle.js 150_4, 11.7 Hz) slides and sways across gravity at the stride and
/// below it (0.4-1.2 Hz), which drowns the share along gravity (0.14-0.25, under `minAlongShare`); its steps' push
/// along gravity is still there above 1.2 Hz. Hand activity moves across gravity in that band too (WISDM hand windows
/// the share gate refuses: share above 1.2 Hz median 0.20 against 150_4's 0.45; bench/h47bangle_result.md). Only the
/// share gate opens: the own-share gate, the repeat gate and the arm swing still judge the window.
///
/// Measured only where it could change the probability (the share gate not already open), from the recognizer's rings
/// of the scored window: no cost per sample, and none in a walk whose share already passes.
extension StepDetector {
    /// The trees' probability of a scored window, the share gate opened by the step band (`stepBandOpens`).
    func recognizerProbability(_ window: (startNs: Int64, endNs: Int64, features: WindowFeatures)) -> Double {
        let r = parameters.recognizer
        let f = window.features
        guard parameters.stepBandOpens <= 1, Self.axesSayMore(f), r.minAlongShare > 0,
            f.alongShare < r.minAlongShare + RecognizerParameters.alongShareRamp / 2,
            f.armSwing < r.armSwingOpens + RecognizerParameters.alongShareRamp / 2
        else { return r.probability(f) }
        let ticks = Int((window.endNs - window.startNs) / WalkingRecognizer.tickNs)
        let share = recognizer.stepBandShare(ticks: ticks)
        return r.probability(f, shareOpening: (share - parameters.stepBandOpens) / RecognizerParameters.alongShareRamp)
    }
}

extension WalkingRecognizer {
    /// The high-pass's cut-off (Hz): above a slow walk's stride (0.5-1 Hz), at or under its step rate.
    static let stepBandHz = 1.2
    /// The one-pole high-pass's coefficient per tick, e^(−0.08 s · 2π · 1.2 Hz).
    static let stepBandPole = (-0.08 * 2 * Double.pi * stepBandHz).exponential

    /// The share along gravity of the moving energy of the newest `n` ticks above the stride band: the component along
    /// gravity and the vector across it (`along`, `across`) each through two one-pole high-passes at `stepBandHz`.
    /// A constant passes nothing, so the rings need no mean removed.
    func stepBandShare(ticks n: Int) -> Double {
        guard n >= 2 else { return 0 }
        let k = Self.stepBandPole
        var previous = SIMD4<Double>()
        var first = SIMD4<Double>()
        var second = SIMD4<Double>()
        var energy = SIMD4<Double>()
        along.withUnsafeBufferPointer { along in
            across.withUnsafeBufferPointer { across in
                Self.forEachTick(n, head: head) { i, t in
                    let value = SIMD4(along[t], across[3 * t], across[3 * t + 1], across[3 * t + 2])
                    if i == 0 {
                        previous = value
                        return
                    }
                    let h1 = k * (first + value - previous)
                    second = k * (second + h1 - first)
                    (previous, first) = (value, h1)
                    energy += second * second
                }
            }
        }
        let total = energy.sum()
        return total > 1e-8 ? energy[0] / total : 0
    }
}
