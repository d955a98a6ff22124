import Foundation
import Testing

@testable import StepDetection

/// StepDetection's own elementary functions against the platform's libm.
@Suite struct PureMathTests {
    @Test func cosineMatchesLibmOverEveryTurn() {
        for k in -2000...2000 {
            let x = Double(k) * 0.0137
            #expect(abs(x.cosine - cos(x)) < 1e-13, "cos(\(x))")
        }
        #expect(Double.nan.cosine.isNaN)
        #expect(Double.infinity.cosine.isNaN)
    }

    @Test func exponentialAndLogarithmMatchLibm() {
        for k in -400...400 {
            let x = Double(k) * 0.05
            #expect(abs(x.exponential - exp(x)) <= 1e-14 * exp(x), "exp(\(x))")
            let y = exp(x)
            #expect(abs(y.logarithm - log(y)) < 2e-13, "log(\(y))")  // the series stops near 1e-13
        }
    }
}
