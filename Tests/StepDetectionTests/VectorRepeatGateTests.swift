import Foundation
import TestSupport
import Testing

@testable import StepDetection

/// Issue #47 (h47fold35): hands folding clothes lift with each stroke, so their |a| or their push along gravity may
/// repeat enough for the repeat gate, but each stroke moves the hand another way across gravity: the whole 3-D motion
/// does not repeat a stride later. A body stepping repeats all of it. The vector repeat gate keeps such windows from
/// making a run walking.
@Suite struct VectorRepeatGateTests {
    typealias Sample = SyntheticMotion.Sample

    /// The shipped gates around trees that say 0.73 to every window (as `RepeatGateTests`), with the vector repeat
    /// gate as shipped or off.
    static func parameters(vectorGate: Bool) -> DetectorParameters {
        var p = DetectorParameters.standard(treesSaying: 1.0)
        if !vectorGate { p.minVectorRepeat = -2 }
        return p
    }

    /// `seconds` at 50 Hz of strokes in bursts of 11 s with 4 s of rest (each burst longer than a short bout): every
    /// 0.55 s ± 0.4 s a lift along gravity of 2.8-5.2 m/s² (0.25 s), and with it a push across gravity of 2.5-4.5 m/s²
    /// (0.2-0.45 s, up to 0.2 s later) in a direction drawn anew each stroke, from `seed`.
    static func folding(seconds: Double = 90, seed: UInt64 = 1) -> [Sample] {
        var random = SeededRandom(seed: seed)
        let up = (0.0, 0.6, 0.8)
        let side1 = (1.0, 0.0, 0.0)
        let side2 = (0.0, 0.8, -0.6)
        var pushes: [(t: Double, width: Double, a: (Double, Double, Double))] = []
        var t = 0.5
        while t < seconds {
            let lift = 4 * Double.random(in: 0.7...1.3, using: &random)
            pushes.append((t, 0.25, (lift * up.0, lift * up.1, lift * up.2)))
            let across = 3.5 * Double.random(in: 0.7...1.3, using: &random)
            let azimuth = Double.random(in: 0...(2 * .pi), using: &random)
            let (c, s) = (across * cos(azimuth), across * sin(azimuth))
            pushes.append(
                (
                    t + Double.random(in: 0...0.2, using: &random), Double.random(in: 0.2...0.45, using: &random),
                    (c * side1.0 + s * side2.0, c * side1.1 + s * side2.1, c * side1.2 + s * side2.2)
                ))
            t += 0.55 + Double.random(in: -0.4...0.4, using: &random)
            if t.truncatingRemainder(dividingBy: 15) > 11 { t += 15 - t.truncatingRemainder(dividingBy: 15) + 0.5 }
        }
        return SyntheticMotion.at50Hz(count: Int(seconds * 50), seed: seed) { time in
            var v = (standardGravity * up.0, standardGravity * up.1, standardGravity * up.2)
            for k in pushes where time >= k.t && time < k.t + k.width {
                let pulse = sin(.pi * (time - k.t) / k.width)
                v = (v.0 + pulse * k.a.0, v.1 + pulse * k.a.1, v.2 + pulse * k.a.2)
            }
            return v
        }
    }

    @Test func strokesThatGoEachTheirOwnWayDoNotRepeatAsAWalkDoes() {
        let f = AxisFeatureTests.lastWindow(Self.folding())
        // |a| and the lift along gravity repeat about as WISDM folding's counted windows do (0.2-0.35), the whole
        // vector less (folding: 0.10).
        #expect(max(f.rStride, f.alongStep) > 0.25, "r_stride \(f.rStride), along_step \(f.alongStep)")
        #expect(f.vectorStride < 0.15 && f.alongStride < 0.35, "vector \(f.vectorStride), along \(f.alongStride)")
        // However the watch is turned: a sum of dot products.
        let turned = AxisFeatureTests.lastWindow(AxisFeatureTests.rotated(Self.folding()))
        #expect(abs(turned.vectorStride - f.vectorStride) < 1e-6 && abs(turned.alongStride - f.alongStride) < 1e-6)
        // A walk repeats all of it.
        let w = AxisFeatureTests.lastWindow(AlongOwnShareTests.walk(seconds: 30))
        #expect(w.vectorStride > 0.9 && w.alongStride > 0.9, "\(w.vectorStride) \(w.alongStride)")
    }

    @Test func theGateRefusesStrokesThatCountedAndKeepsAWalk() {
        let folding = Self.folding()
        let off = SyntheticMotion.count(folding, parameters: Self.parameters(vectorGate: false)).steps
        #expect(off >= 90, "\(off)")
        let gated = SyntheticMotion.count(folding, parameters: Self.parameters(vectorGate: true)).steps
        #expect(gated * 2 <= off, "\(gated) of \(off)")
        let walk = AlongOwnShareTests.walk(seconds: 60)
        let walked = SyntheticMotion.count(walk, parameters: Self.parameters(vectorGate: true)).steps
        #expect(abs(walked - 108) <= 5, "\(walked)")
        #expect(walked == SyntheticMotion.count(walk, parameters: Self.parameters(vectorGate: false)).steps)
        // Without axes nothing says how the motion repeats in 3-D: |a| is left to the trees.
        let magnitudeOnly = SyntheticMotion.count(
            folding, magnitudeOnly: true, parameters: Self.parameters(vectorGate: true)
        ).steps
        let magnitudeOnlyOff = SyntheticMotion.count(
            folding, magnitudeOnly: true, parameters: Self.parameters(vectorGate: false)
        ).steps
        #expect(magnitudeOnly == magnitudeOnlyOff, "\(magnitudeOnly) vs \(magnitudeOnlyOff)")
    }

    @Test func overOtherDrawsTheGateStillTakesSomeOfTheStrokes() {
        // A draw whose lifts happen to repeat along gravity passes (the steps' push, `vectorRepeatAlongOpens`), a
        // window whose trees are only lowered to `vectorRepeatCeiling` may still tip a run's mean, and a burst judged
        // as a short bout is not this gate's: over seven more draws 75 of 644 steps go.
        var (off, gated) = (0, 0)
        for seed in 2...8 as ClosedRange<UInt64> {
            let strokes = Self.folding(seed: seed)
            off += SyntheticMotion.count(strokes, parameters: Self.parameters(vectorGate: false)).steps
            gated += SyntheticMotion.count(strokes, parameters: Self.parameters(vectorGate: true)).steps
        }
        #expect(off >= 7 * 70, "\(off)")
        #expect(gated + 50 <= off, "\(gated) of \(off)")
    }

    @Test func parametersSavedBeforeTheGateDecodeWithTheirStandardValues() throws {
        let standard = DetectorParameters.standard
        let keys: [(String, WritableKeyPath<DetectorParameters, Double>)] = [
            ("minVectorRepeat", \.minVectorRepeat), ("vectorRepeatAlongOpens", \.vectorRepeatAlongOpens),
            ("vectorRepeatSteadyStride", \.vectorRepeatSteadyStride), ("vectorRepeatCeiling", \.vectorRepeatCeiling),
        ]
        for (key, path) in keys {
            let old = try SavedJSON.parameterSavedBeforeItExisted(key, path, marker: -3)
            #expect(old == standard[keyPath: path], "\(key)")
        }
    }
}
