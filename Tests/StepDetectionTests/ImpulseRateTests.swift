import Foundation
import StepDetection
import Testing
import WallTimeCore

/// `log_impulse` reads the same walk alike at every sample rate (h47rate): a tick's excess is its mean over the tick
/// (each sample's until the next), no longer the largest of the tick's samples, which grew with the samples a tick had.
@Suite struct ImpulseRateTests {
    typealias Sample = SyntheticMotion.Sample

    /// The walk of `fixtures/demo_walk_50hz.csv` (a phone in a purse, 50 Hz, 60 s) at `rate`: each axis averaged over
    /// `rate`'s period when that is longer than the recording's (padded with the end values), then interpolated
    /// linearly onto a grid at `rate` (`bench/rate_sweep.py`'s `resample`).
    static func walk(at rate: Double) throws -> [Sample] {
        let source = try AxisFeatureTests.fixture("demo_walk_50hz.csv")
        let width = max(1, Int((50 / rate).rounded()))
        let averaged: [Sample] = source.indices.map { i in
            let run = (i - width / 2...i + (width - 1) / 2).map { source[min(max($0, 0), source.count - 1)] }
            let n = Double(run.count)
            return (
                source[i].timeNs, run.map(\.x).reduce(0, +) / n, run.map(\.y).reduce(0, +) / n,
                run.map(\.z).reduce(0, +) / n
            )
        }
        let (first, last) = (averaged[0].timeNs, averaged[averaged.count - 1].timeNs)
        var j = 0
        return (0..<Int(Double(last - first) * 1e-9 * rate)).map { k in
            let t = first + Int64((Double(k) / rate * 1e9).rounded())
            while averaged[j + 1].timeNs < t { j += 1 }
            let (a, b) = (averaged[j], averaged[j + 1])
            let f = Double(t - a.timeNs) / Double(b.timeNs - a.timeNs)
            return (t, a.x + (b.x - a.x) * f, a.y + (b.y - a.y) * f, a.z + (b.z - a.z) * f)
        }
    }

    /// `log_impulse` of every window the detector scores (every one: `confident` 2), by the window's start (ns).
    static func logImpulses(_ samples: [Sample]) -> [Int64: Double] {
        var parameters = DetectorParameters.standard
        parameters.recognizer.confident = 2
        var detector = StepDetector(parameters: parameters)
        var impulses: [Int64: Double] = [:]
        let handle: (DetectorEvent) -> Void = { event in
            if case .decision(let d, let f) = event { impulses[d.start.nanosecondsSinceEpoch] = f.logImpulse }
        }
        for s in samples { detector.push(s, handle) }
        detector.finish(handle)
        return impulses
    }

    @Test func theSameWalkReadsTheSameLogImpulseAt25To200Hz() throws {
        // Before h47rate (the largest sample a tick) the copies' windows read up to 0.29 apart (median 25 Hz 0.92,
        // 50 Hz 1.04, 100 Hz 0.94, 200 Hz 0.94); since, at most 0.13 (0.82, 0.88, 0.86, 0.87), as `eval --features`
        // reads the same copies (bench/h47rate2_result.md). The 25 Hz copy lost what averaging pairs of samples takes
        // off the impacts.
        let byRate = try [25.0, 50, 100, 200].map { Self.logImpulses(try Self.walk(at: $0)) }
        let common = byRate.dropFirst().reduce(Set(byRate[0].keys)) { $0.intersection($1.keys) }
        #expect(common.count >= 45, "\(common.count) windows scored at every rate")
        for start in common {
            let values = byRate.map { $0[start]! }
            #expect(values.max()! - values.min()! <= 0.15, "window at \(start) ns: \(values)")
            #expect(values.min()! > 0.5, "window at \(start) ns: \(values)")  // the impacts are measured at all
        }
        let medians = byRate.map { readings in common.map { readings[$0]! }.sorted()[common.count / 2] }
        #expect(medians.max()! - medians.min()! <= 0.07, "medians by rate \(medians)")
    }
}
