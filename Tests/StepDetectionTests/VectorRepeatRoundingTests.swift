import Foundation
import TestSupport
import Testing

@testable import StepDetection

/// Issue #47 (h47round35): a coarse sensor's rounding adds white noise to each axis, which dilutes how well the whole
/// moving acceleration repeats a stride later (`vectorStride`) and its component along gravity (`alongStride`). The
/// vector repeat gate reads both without it (`SensorRounding.axisTickVariance`), as the held-arm path reads `rStride`.
@Suite struct VectorRepeatRoundingTests {
    typealias Sample = SyntheticMotion.Sample

    /// `seconds` at 12.5 Hz (a sample a tick) of a quiet walk whose steps vary: each step 0.55 s ± 0.12 s, a push
    /// along gravity of `push` m/s² once a step and an arm's swing across it of `swing` m/s² once a stride, with the
    /// sensor's own noise of `noise` m/s² on each axis (which makes the rounding's error uniform, as a real
    /// sensor's is), from `seed`.
    static func quietWalk(
        seconds: Double = 40, push: Double, swing: Double, noise: Double = 0.2, seed: UInt64 = 47
    ) -> [Sample] {
        var random = SeededRandom(seed: seed)
        var starts = [0.0]
        while starts.last! < seconds + 1 {
            starts.append(starts.last! + 0.55 + Double.random(in: -0.12...0.12, using: &random))
        }
        let up = (0.0, 0.6, 0.8)
        let times = (0..<Int(seconds * 12.5)).map { Int64($0) * WalkingRecognizer.tickNs }
        return SyntheticMotion.noisy(times, seed: seed, noise: noise) { i in
            let t = Double(i) / 12.5
            let k = starts.lastIndex { $0 <= t }!
            let within = (t - starts[k]) / (starts[k + 1] - starts[k])
            let v = push * sin(2 * .pi * within)
            let s = swing * sin(.pi * (Double(k % 2) + within))
            return (
                standardGravity * up.0 + v * up.0 + s, standardGravity * up.1 + v * up.1,
                standardGravity * up.2 + v * up.2
            )
        }
    }

    /// The clean and the 6-bit (±1.5 g: a step of 0.46 m/s²) copy's last window, and the cheap copy's recognizer.
    static func windows(push: Double, swing: Double, noise: Double, seed: UInt64)
        -> (
            clean: WindowFeatures, cleanRecognizer: WalkingRecognizer, cheap: WindowFeatures,
            cheapRecognizer: WalkingRecognizer
        )
    {
        let walk = quietWalk(push: push, swing: swing, noise: noise, seed: seed)
        let clean = AxisFeatureTests.recognizer(walk)
        let cheap = AxisFeatureTests.recognizer(AxisFeatureTests.degraded(walk, bits: 6, range: 1.5))
        let (fc, fq) = (
            clean.scoreWindow(ticks: WalkingRecognizer.windowTicks).features,
            cheap.scoreWindow(ticks: WalkingRecognizer.windowTicks).features
        )
        return (fc, clean, fq, cheap)
    }

    /// The gate's allowance for `f` on a detector whose recognizer is `recognizer` (samples a tick apart).
    static func allowance(_ f: WindowFeatures, _ recognizer: WalkingRecognizer) -> Double {
        var detector = StepDetector()
        detector.recognizer = recognizer
        detector.filter.cachedDtNs = WalkingRecognizer.tickNs
        return detector.vectorRepeatAllowance(f)
    }

    @Test func theGateReadsACoarseCopyOfAQuietWalkAsItsCleanCopy() {
        let w = Self.windows(push: 0.25, swing: 0.2, noise: 0.25, seed: 2)
        let bar = DetectorParameters.standard.minVectorRepeat
        // The rounding pulls the walk's repeat (0.199 clean) under the bar: 0.170.
        #expect(
            w.clean.vectorStride > bar && w.cheap.vectorStride < bar, "\(w.clean.vectorStride) \(w.cheap.vectorStride)")
        let clean = Self.allowance(w.clean, w.cleanRecognizer)
        var unread = w.cheapRecognizer
        unread.rounding = SensorRounding()
        let uncorrected = Self.allowance(w.cheap, unread)
        let corrected = Self.allowance(w.cheap, w.cheapRecognizer)
        #expect(uncorrected < 0.8 && corrected > 0.9, "\(uncorrected) → \(corrected)")
        #expect(abs(corrected - clean) < 0.05, "\(corrected) against \(clean)")
        // A clean recording's step (printed to a few decimals) takes nothing off.
        let r = w.cleanRecognizer.rounding.axisTickVariance(sampleNs: WalkingRecognizer.tickNs)
        #expect(
            r < 1e-6
                && abs(
                    w.clean.vectorStride.withoutRounding(windowVariance: w.clean.movingVariance, rounding: 3 * r)
                        - w.clean.vectorStride) < 1e-4
        )
    }

    @Test func overDrawsTheCorrectionTakesTheRoundingsDilutionAway() {
        var (lost, left, alongLost, alongLeft) = (0.0, 0.0, 0.0, 0.0)
        for noise in [0.25, 0.3, 0.35] {
            for seed in [47, 1, 2] as [UInt64] {
                let w = Self.windows(push: 0.25, swing: 0.2, noise: noise, seed: seed)
                let r = w.cheapRecognizer.rounding.axisTickVariance(sampleNs: WalkingRecognizer.tickNs)
                let vector = w.cheap.vectorStride.withoutRounding(
                    windowVariance: w.cheap.movingVariance, rounding: 3 * r)
                let along = w.cheap.alongStride.withoutRounding(windowVariance: w.cheap.alongVariance, rounding: r)
                lost += (w.clean.vectorStride - w.cheap.vectorStride) / 9
                left += (w.clean.vectorStride - vector) / 9
                alongLost += (w.clean.alongStride - w.cheap.alongStride) / 9
                alongLeft += (w.clean.alongStride - along) / 9
            }
        }
        // Nine draws: the rounding takes 0.03 off the vector's repeat on average; corrected, under a third of it is
        // left.
        #expect(lost > 0.02 && abs(left) * 3 < lost, "lost \(lost), left \(left); along \(alongLost), \(alongLeft)")
        // Along gravity this synthetic's rounding dilutes nothing on average (−0.004: with the sensor's noise under a
        // step its error is not quite white) and the correction reads 0.035 over the clean copy: no bound is claimed.
    }

    @Test func theAxisVarianceIsTheRoundingsWhiteNoiseThroughTheMotionBand() {
        var rounding = SensorRounding()
        #expect(rounding.axisTickVariance(sampleNs: WalkingRecognizer.tickNs) == 0)  // no step seen: none
        rounding.step = 0.46
        for perTick in [1, 4] {
            var random = SeededRandom(seed: 47)
            var (slow, band, sum, sumSquares) = (0.0, 0.0, 0.0, 0.0)
            let n = 200_000
            for i in 0..<(n + 1000) {
                var x = 0.0
                for _ in 0..<perTick { x += Double.random(in: -0.23...0.23, using: &random) }
                x /= Double(perTick)
                slow += (x - slow) * WalkingRecognizer.motionSlowAlpha
                band += (x - slow - band) * WalkingRecognizer.motionBandAlpha
                if i >= 1000 { (sum, sumSquares) = (sum + band, sumSquares + band * band) }
            }
            let measured = sumSquares / Double(n) - (sum / Double(n)) * (sum / Double(n))
            let expected = rounding.axisTickVariance(sampleNs: WalkingRecognizer.tickNs / Int64(perTick))
            #expect(abs(measured - expected) < 0.03 * expected, "\(perTick): \(measured) against \(expected)")
        }
    }
}
