import Foundation
import TestSupport
import Testing

@testable import StepDetection

/// Issue #47 (h47fold): hands folding clothes move rhythmically enough for the rhythm gate, smoothly enough for the
/// trees and partly along gravity, but no stroke repeats the one before; a body stepping repeats itself a stride
/// later in |a| and a step later along gravity. The repeat gate keeps a run that does not repeat from becoming walking.
@Suite struct RepeatGateTests {
    typealias Sample = SyntheticMotion.Sample

    /// The shipped gates around trees that say 0.73 to every window (what trees trained without WISDM say to many a
    /// folding window: they never saw folding), with the repeat gate at `minGaitRepeat` and the vector repeat gate
    /// off (it takes these strokes too: `VectorRepeatGateTests`).
    static func parameters(minGaitRepeat: Double) -> DetectorParameters {
        var p = DetectorParameters.standard(treesSaying: 1.0)
        p.minGaitRepeat = minGaitRepeat
        p.minVectorRepeat = -2
        return p
    }

    /// `seconds` at 50 Hz of strokes about every 0.5 s (± 0.13 s, which the rhythm gate still finds regular), each its
    /// own: 1.5-3.5 m/s², 0.15-0.35 s long, along a direction 15-55° from gravity at any azimuth (most of its energy
    /// along gravity, none of it on one line), then a second push of 0.6-1.5 times it, 0.1-0.4 s later, along another
    /// such direction, up or down (a hand's motions differ stroke after stroke), drawn from `seed`.
    static func folding(seconds: Double = 60, seed: UInt64 = 1) -> [Sample] {
        var random = SeededRandom(seed: seed)
        let up = (0.0, 0.6, 0.8)
        let side1 = (1.0, 0.0, 0.0)
        let side2 = (0.0, 0.8, -0.6)
        var strokes: [(t: Double, width: Double, a: (Double, Double, Double))] = []
        func direction(_ amplitude: Double, either: Bool = false) -> (Double, Double, Double) {
            var tilt = Double.random(in: 15...55, using: &random) * .pi / 180
            if either && Bool.random(using: &random) { tilt = .pi - tilt }
            let azimuth = Double.random(in: 0...(2 * .pi), using: &random)
            let (c, s1, s2) = (cos(tilt), sin(tilt) * cos(azimuth), sin(tilt) * sin(azimuth))
            return (
                amplitude * (c * up.0 + s1 * side1.0 + s2 * side2.0),
                amplitude * (c * up.1 + s1 * side1.1 + s2 * side2.1),
                amplitude * (c * up.2 + s1 * side1.2 + s2 * side2.2)
            )
        }
        var t = 0.5
        while t < seconds {
            let amplitude = Double.random(in: 1.5...3.5, using: &random)
            strokes.append((t, Double.random(in: 0.12...0.45, using: &random), direction(amplitude)))
            for _ in 0..<2 {
                let echo = amplitude * Double.random(in: 0.6...1.5, using: &random)
                strokes.append(
                    (
                        t + Double.random(in: 0.05...0.45, using: &random),
                        Double.random(in: 0.12...0.45, using: &random), direction(echo, either: true)
                    ))
            }
            t += 0.55 + Double.random(in: -0.18...0.18, using: &random)
        }
        return SyntheticMotion.at50Hz(count: Int(seconds * 50), seed: seed) { time in
            var v = (standardGravity * up.0, standardGravity * up.1, standardGravity * up.2)
            for k in strokes where time >= k.t && time < k.t + k.width {
                let pulse = sin(.pi * (time - k.t) / k.width)
                v = (v.0 + pulse * k.a.0, v.1 + pulse * k.a.1, v.2 + pulse * k.a.2)
            }
            return v
        }
    }

    @Test func strokesThatDoNotRepeatAreNotWalkingButAWalkIs() {
        let folding = Self.folding()
        let f = AxisFeatureTests.lastWindow(folding)
        // As WISDM folding-clothes (medians 0.21 and 0.16), and along gravity enough for the gravity gates.
        #expect(max(f.rStride, f.alongStep) < 0.22, "r_stride \(f.rStride), along_step \(f.alongStep)")
        #expect(f.alongShare > 0.35 && f.alongOwnShare > 0.25, "\(f.alongShare) \(f.alongOwnShare)")
        // The trees and the other gates let it through: without the repeat gate the strokes count.
        let off = SyntheticMotion.count(folding, parameters: Self.parameters(minGaitRepeat: -2)).steps
        #expect(off >= 70, "\(off)")
        let gated = SyntheticMotion.count(folding, parameters: Self.parameters(minGaitRepeat: 0.2)).steps
        #expect(gated == 0, "\(gated)")
        // A walk repeats: it counts with the gate as without it (1.8 steps/s for 60 s).
        let walk = AlongOwnShareTests.walk(seconds: 60)
        let w = AxisFeatureTests.lastWindow(walk)
        #expect(max(w.rStride, w.alongStep) > 0.5, "\(w.rStride) \(w.alongStep)")
        let walked = SyntheticMotion.count(walk, parameters: Self.parameters(minGaitRepeat: 0.2)).steps
        #expect(abs(walked - 108) <= 5, "\(walked)")
        // Without axes nothing says how the motion repeats along gravity: |a| is left to the trees.
        let magnitudeOnly = SyntheticMotion.count(
            folding, magnitudeOnly: true, parameters: Self.parameters(minGaitRepeat: 0.2)
        ).steps
        #expect(magnitudeOnly == off, "\(magnitudeOnly) vs \(off)")
    }

    @Test func otherDrawsOfTheStrokesMostlyCountNothing() {
        // A draw whose strokes happen to repeat for ten seconds may make a run walking, which then stays walking (the
        // gate judges only becoming walking): over eight draws, most of the strokes are still refused (196 of 646).
        var (off, gated) = (0, 0)
        for seed in 2...9 as ClosedRange<UInt64> {
            let strokes = Self.folding(seed: seed)
            off += SyntheticMotion.count(strokes, parameters: Self.parameters(minGaitRepeat: -2)).steps
            gated += SyntheticMotion.count(strokes, parameters: Self.parameters(minGaitRepeat: 0.2)).steps
        }
        #expect(off >= 8 * 70, "\(off)")
        #expect(gated * 2 <= off, "\(gated) of \(off)")
    }

    @Test func parametersSavedBeforeTheGateDecodeWithItsStandardValue() throws {
        let old = try SavedJSON.parameterSavedBeforeItExisted("minGaitRepeat", \.minGaitRepeat, marker: -2)
        #expect(old == DetectorParameters.standard.minGaitRepeat)
    }
}
