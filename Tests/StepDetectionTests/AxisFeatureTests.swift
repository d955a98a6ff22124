import Foundation
import TestSupport
import Testing

@testable import StepDetection

/// Issue #47: the recognizer's axis features (gravity and the motion along and across it) do not depend on how a
/// device is turned or how cheap its sensor is.
@Suite struct AxisFeatureTests {
    typealias Sample = SyntheticMotion.Sample

    /// A committed recording (`t_ms,x,y,z`, m/s²) from `fixtures/`.
    static func fixture(_ name: String) throws -> [Sample] {
        let url = SharedData.packageRoot.appendingPathComponent("fixtures/" + name)
        let text = try String(contentsOf: url, encoding: .utf8)
        return text.split(whereSeparator: \.isNewline).dropFirst().compactMap { line in
            let f = line.split(separator: ",").compactMap { Double($0) }
            return f.count == 4 ? (Int64((f[0] * 1e6).rounded()), f[1], f[2], f[3]) : nil
        }
    }

    /// The samples turned by a fixed rotation (about the axis (1, 2, 3) by 2 rad): another way to wear the device.
    static func rotated(_ samples: [Sample]) -> [Sample] {
        let length = (1.0 + 4 + 9).squareRoot()
        let (u, v, w) = (1 / length, 2 / length, 3 / length)
        let (c, s) = (cos(2.0), sin(2.0))
        let m = [
            [c + u * u * (1 - c), u * v * (1 - c) - w * s, u * w * (1 - c) + v * s],
            [v * u * (1 - c) + w * s, c + v * v * (1 - c), v * w * (1 - c) - u * s],
            [w * u * (1 - c) - v * s, w * v * (1 - c) + u * s, c + w * w * (1 - c)],
        ]
        return samples.map { p in
            (
                p.timeNs, m[0][0] * p.x + m[0][1] * p.y + m[0][2] * p.z, m[1][0] * p.x + m[1][1] * p.y + m[1][2] * p.z,
                m[2][0] * p.x + m[2][1] * p.y + m[2][2] * p.z
            )
        }
    }

    /// The samples as a cheap sensor gives them: each axis clipped at ±`range` g and quantised to `bits` over it.
    static func degraded(_ samples: [Sample], bits: Int, range: Double) -> [Sample] {
        let reach = range * standardGravity
        let step = 2 * reach / Double(1 << bits)
        func q(_ a: Double) -> Double { (min(max(a, -reach), reach) / step).rounded() * step }
        return samples.map { ($0.timeNs, q($0.x), q($0.y), q($0.z)) }
    }

    /// The features of the last full window of the samples, measured by the recognizer alone (the detector scores
    /// windows only while its rhythm has steps; these motions need none).
    static func lastWindow(_ samples: [Sample]) -> WindowFeatures {
        recognizer(samples).scoreWindow(ticks: WalkingRecognizer.windowTicks).features
    }

    /// A recognizer that took `samples` (no window scored).
    static func recognizer(_ samples: [Sample]) -> WalkingRecognizer {
        var recognizer = WalkingRecognizer()
        for s in samples {
            let magnitude = (s.x * s.x + s.y * s.y + s.z * s.z).squareRoot()
            recognizer.addAxes(x: s.x, y: s.y, z: s.z)
            if recognizer.push(timeNs: s.timeNs, value: magnitude, raw: magnitude, wideAlpha: 0.5) {
                _ = recognizer.advance(
                    timeNs: s.timeNs, value: magnitude, raw: magnitude, wideAlpha: 0.5, score: false)
            }
        }
        return recognizer
    }

    @Test(arguments: ["bangle_wrist_walk_150.csv", "demo_walk_50hz.csv"])
    func aRotatedCopyOfAWalkCountsTheSame(file: String) throws {
        let walk = try Self.fixture(file)
        let counted = SyntheticMotion.count(walk).steps
        #expect(counted > 90)
        #expect(SyntheticMotion.count(Self.rotated(walk)).steps == counted)
    }

    @Test func aSixBitCopyClippedAtOneAndAHalfGCountsWithin3Percent() throws {
        let walk = try Self.fixture("bangle_wrist_walk_150.csv")
        let counted = SyntheticMotion.count(walk).steps
        let cheap = Self.degraded(walk, bits: 6, range: 1.5)
        #expect(cheap.contains { abs($0.x) == 1.5 * standardGravity || abs($0.z) == 1.5 * standardGravity })
        let cheapCount = SyntheticMotion.count(cheap).steps
        #expect(abs(Double(cheapCount - counted)) <= 0.03 * Double(counted), "\(cheapCount) against \(counted)")
    }

    /// 30 s at 50 Hz: gravity along `up` and a 2 Hz motion of 2 m/s² along `motion`, with the wrist's frame turned.
    static func motion(up: (Double, Double, Double), along motion: (Double, Double, Double)) -> [Sample] {
        SyntheticMotion.at50Hz(count: 1500) { t in
            let a = 2 * sin(2 * .pi * 2 * t)
            return (
                standardGravity * up.0 + a * motion.0, standardGravity * up.1 + a * motion.1,
                standardGravity * up.2 + a * motion.2
            )
        }
    }

    @Test func motionAlongGravityHasMostOfItsEnergyThereAndRepeatsEachStep() {
        let up = (0.0, 0.6, 0.8)
        let vertical = Self.lastWindow(Self.motion(up: up, along: up))
        let sideways = Self.lastWindow(Self.motion(up: up, along: (1, 0, 0)))
        #expect(vertical.hasAxes && sideways.hasAxes)
        #expect(vertical.alongShare > 0.95, "\(vertical.alongShare)")
        #expect(sideways.alongShare < 0.05, "\(sideways.alongShare)")
        #expect(vertical.alongStep > 0.9, "\(vertical.alongStep)")  // a 2 Hz motion repeats 0.48 s later
        // A steady wrist: gravity does not move over a stride.
        #expect(vertical.strideTurn < 0.01 && sideways.strideTurn < 0.01)
        // Turned, the same motion measures the same.
        let turned = Self.lastWindow(Self.rotated(Self.motion(up: up, along: up)))
        #expect(abs(turned.alongShare - vertical.alongShare) < 1e-6)
        #expect(abs(turned.alongStep - vertical.alongStep) < 1e-6)
    }

    /// 30 s at 50 Hz with gravity along `up`: an arm swing across gravity (along `swing`, 3 m/s² at `strideHz`) and
    /// the body's step along gravity (1 m/s² at twice that).
    static func armSwing(up: (Double, Double, Double), swing: (Double, Double, Double), strideHz: Double) -> [Sample] {
        SyntheticMotion.at50Hz(count: 1500) { t in
            let a = 3 * sin(2 * .pi * strideHz * t)
            let v = sin(2 * .pi * 2 * strideHz * t)
            return (
                (standardGravity + v) * up.0 + a * swing.0, (standardGravity + v) * up.1 + a * swing.1,
                (standardGravity + v) * up.2 + a * swing.2
            )
        }
    }

    @Test func anArmSwingingEachStrideWhileTheBodyStepsShowsHoweverTheWatchIsTurned() {
        let up = (0.0, 0.6, 0.8)
        let walk = Self.lastWindow(Self.armSwing(up: up, swing: (1, 0, 0), strideHz: 0.9))
        #expect(walk.hasAxes && walk.alongShare < 0.3, "\(walk.alongShare)")  // mostly across gravity
        #expect(walk.armSwing > 0.5, "\(walk.armSwing)")
        let turned = Self.lastWindow(Self.rotated(Self.armSwing(up: up, swing: (1, 0, 0), strideHz: 0.9)))
        #expect(abs(turned.armSwing - walk.armSwing) < 1e-6)
        // Hand motion at 2 Hz across gravity repeats, not reverses, half a stride of 1 s later; the same motion along
        // gravity has nothing across it to swing: neither is an arm swinging in gait.
        let hands = Self.lastWindow(Self.motion(up: up, along: (1, 0, 0)))
        #expect(hands.armSwing < 0.2, "\(hands.armSwing)")
        let vertical = Self.lastWindow(Self.motion(up: up, along: up))
        #expect(vertical.armSwing < 0.2, "\(vertical.armSwing)")
    }

    @Test func aStateSavedWithOnlyTheEnergyAcrossGravityResumesAndMeasuresTheSwingAfresh() throws {
        // Feature set 4 saved one energy a tick across gravity (128 values); set 5 the vector (384).
        let walk = Self.armSwing(up: (0.0, 0.6, 0.8), swing: (1, 0, 0), strideHz: 0.9)
        var recognizer = WalkingRecognizer()
        func feed(_ samples: ArraySlice<Sample>) {
            for s in samples {
                let magnitude = (s.x * s.x + s.y * s.y + s.z * s.z).squareRoot()
                recognizer.addAxes(x: s.x, y: s.y, z: s.z)
                if recognizer.push(timeNs: s.timeNs, value: magnitude, raw: magnitude, wideAlpha: 0.5) {
                    _ = recognizer.advance(
                        timeNs: s.timeNs, value: magnitude, raw: magnitude, wideAlpha: 0.5, score: false)
                }
            }
        }
        feed(walk[..<750])
        var saved = try JSONSerialization.jsonObject(with: try JSONEncoder().encode(recognizer)) as! [String: Any]
        #expect((saved["across"] as? [Double])?.count == 3 * WalkingRecognizer.windowTicks)
        saved["across"] = [Double](repeating: 0.5, count: WalkingRecognizer.windowTicks)
        recognizer = try JSONDecoder().decode(
            WalkingRecognizer.self, from: try JSONSerialization.data(withJSONObject: saved))
        feed(walk[750...])  // 15 s more: a whole window of the vector
        let resumed = recognizer.scoreWindow(ticks: WalkingRecognizer.windowTicks).features
        #expect(abs(resumed.armSwing - Self.lastWindow(walk).armSwing) < 1e-9)
    }

    @Test func aWristThatReorientsEachSecondTurnsOverAStride() {
        // Gravity swings by ±60° at 0.3 Hz in the device's frame (a hand at work); still, it barely turns.
        let swinging: [Sample] = (0..<1500).map { i in
            let t = Double(i) / 50
            let angle = 1.05 * sin(2 * .pi * 0.3 * t)
            return (Int64(i) * 20_000_000, standardGravity * sin(angle), 0, standardGravity * cos(angle))
        }
        let still: [Sample] = (0..<1500).map { (Int64($0) * 20_000_000, 0, 0.1, standardGravity) }
        let turning = Self.lastWindow(swinging)
        let steady = Self.lastWindow(still)
        #expect(turning.strideTurn > 0.05, "\(turning.strideTurn)")
        #expect(steady.strideTurn < 1e-6)
    }
}

@Suite struct GravityGateTests {
    static let alwaysWalking = WalkingTrees.constant(logOdds: 5)

    /// The gate at a share of 0.3 over trees that always say walking; the arm swing and the stride turn as given.
    static func gate(
        armSwingOpens: Double = RecognizerParameters.swingNeverOpens, maxStrideTurn: Double = 2
    ) -> RecognizerParameters {
        RecognizerParameters(
            model: alwaysWalking, enter: 0.7, stay: 0.1, minAlongShare: 0.3, armSwingOpens: armSwingOpens,
            maxStrideTurn: maxStrideTurn)
    }

    /// A window with three axes and these axis features.
    static func window(share: Double, swing: Double = -1, turn: Double = 0) -> WindowFeatures {
        var f = WindowFeatures()
        f.hasAxes = true
        f.alongShare = share
        f.armSwing = swing
        f.strideTurn = turn
        return f
    }

    static let walking = alwaysWalking.probability(WindowFeatures())

    @Test func aWindowMovingAcrossGravityIsNotWalkingWhateverTheTreesSay() {
        let gate = Self.gate()
        #expect(gate.probability(Self.window(share: 0.2)) == 0)
        #expect(abs(gate.probability(Self.window(share: 0.3)) - 0.5 * Self.walking) < 1e-12)
        #expect(gate.probability(Self.window(share: 0.6)) == Self.walking)
        // Without axes the share is unknown: the trees alone decide.
        var f = Self.window(share: 0)
        f.hasAxes = false
        #expect(gate.probability(f) == Self.walking)
        #expect(gate.usesAxes && !Self.alwaysWalking.usesAxes)
    }

    @Test func anArmSwingInGaitOpensTheGateWhateverTheShare() {
        let gate = Self.gate(armSwingOpens: 0.25)
        #expect(gate.probability(Self.window(share: 0.1, swing: 0.1)) == 0)
        #expect(abs(gate.probability(Self.window(share: 0.1, swing: 0.25)) - 0.5 * Self.walking) < 1e-12)
        #expect(gate.probability(Self.window(share: 0.1, swing: 0.4)) == Self.walking)
        // Parameters without it (saved before it) never open by the swing.
        #expect(Self.gate().probability(Self.window(share: 0.1, swing: 0.4)) == 0)
    }

    @Test func aWristTurningOverAStrideIsRefusedUnlessItsArmSwings() {
        let gate = Self.gate(armSwingOpens: 0.25, maxStrideTurn: 0.1)
        #expect(gate.probability(Self.window(share: 0.6, turn: 0.05)) == Self.walking)
        #expect(gate.probability(Self.window(share: 0.6, turn: 0.15)) == 0)
        #expect(gate.probability(Self.window(share: 0.6, swing: 0.4, turn: 0.15)) == Self.walking)
        // Off by default (and in parameters saved before it).
        #expect(Self.gate(armSwingOpens: 0.25).probability(Self.window(share: 0.6, turn: 0.15)) == Self.walking)
    }

    @Test func parametersSavedBeforeTheGateDecodeWithItOff() throws {
        #expect(WalkingModel.trained.minAlongShare > 0)
        let old = try SavedJSON.recognizerSavedBefore(["minAlongShare", "armSwingOpens", "maxStrideTurn"])
        #expect(old.minAlongShare == 0)
        #expect(old.armSwingOpens == RecognizerParameters.swingNeverOpens && old.maxStrideTurn == 2)
        #expect(old.model == WalkingModel.trained.model)
    }
}
