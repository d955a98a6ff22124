import Testing

@testable import StepDetection

/// The recognizer's arithmetic written for speed gives exactly what the plain expressions give (a saved state and
/// every window's features must not move by a bit).
@Suite struct WindowArithmeticTests {
    @Test func theTickFiltersLiteralCoefficientsAreTheirFormulas() {
        func alpha(_ hz: Double) -> Double { 1 - (-0.08 * 2 * Double.pi * hz).exponential }
        #expect(WalkingRecognizer.gravityAlpha.bitPattern == alpha(0.5).bitPattern)
        #expect(WalkingRecognizer.motionSlowAlpha.bitPattern == alpha(0.6).bitPattern)
        #expect(WalkingRecognizer.motionBandAlpha.bitPattern == alpha(3.5).bitPattern)
    }

    @Test(arguments: [64, 101, 128, 256, 383, 384])
    func oneLagsMeanProductIsItsLaneAmongFourLags(count: Int) {
        var seed: UInt64 = UInt64(count)
        let values = (0..<count).map { _ in
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(seed >> 11) / Double(1 << 53) - 0.5
        }
        values.withUnsafeBufferPointer { b in
            let p = b.baseAddress!
            for first in stride(from: 1, to: 57, by: 4) {
                let lags = SIMD4<Int>(first, first + 1, first + 2, first + 3)
                let grouped = WalkingRecognizer.meanProducts(p, count: count, lags: lags)
                for k in 0..<4 {
                    let alone = WalkingRecognizer.meanProduct(p, count: count, lag: lags[k])
                    #expect(alone.bitPattern == grouped[k].bitPattern, "lag \(lags[k]) of \(count)")
                }
            }
        }
    }
}
