import Foundation
import StepDetection
import TestSupport
import Testing

/// The gate look-back (`DetectorParameters.startLookBackSeconds`, `startLookBackAlongShare`; issue #47: count a walk
/// from its first step; bench/accuracy.md, h47start): a run that becomes walking counts the steps the walking gate
/// refused in the seconds before its first, while each step's own seconds put at least the share of the moving energy
/// along gravity. On Oxford's Pixel in a purse the gate refuses the walk's first seconds (10 s windows over them are
/// mostly the rest before); the standard set (5 s, any share with three axes) counts them. Their own share (0.22-0.24
/// a start) is a hand's, so a share that would keep hand activity out keeps them out too.
@Suite struct GateLookBackTests {
    /// The first 30 s of that walk, thinned to 100 Hz (`fixtures/oxford_pixel_purse_walk_30s.csv`).
    static func purseWalk() throws -> [SyntheticMotion.Sample] {
        SyntheticMotion.samples(try SharedData.numbers(atPath: SharedData.fixture("oxford_pixel_purse_walk_30s.csv")))
    }

    /// The standard set with the gate look-back's reach and share changed, without the carried-arm path (acc46),
    /// which takes this walk's first windows: the look-back then has fewer refused steps to count.
    static func lookingBack(seconds: Double = 5, share: Double) -> DetectorParameters {
        var p = DetectorParameters.standard
        p.carriedArmStride = 2
        p.startLookBackSeconds = seconds
        p.startLookBackAlongShare = share
        return p
    }

    @Test func aPurseWalkCountsFromItsFirstSteps() throws {
        let samples = try Self.purseWalk()
        let off = SyntheticMotion.count(samples, parameters: Self.lookingBack(seconds: 0, share: 0))
        let standard = SyntheticMotion.count(samples, parameters: Self.lookingBack(share: 0))
        let added = Set(standard.times).subtracting(off.times).sorted()
        // The look-back only adds: every step counted without it still counts, and the refused start's steps come
        // before the first step counted without it.
        #expect(Set(off.times).isSubset(of: standard.times))
        #expect(added.count >= 5, "added \(added.count): \(off.steps) -> \(standard.steps)")
        #expect(added.allSatisfy { $0 < (off.times.first ?? .max) }, "\(added) after \(off.times.first ?? -1)")
    }

    @Test func theRefusedStartOfAPurseWalkMovesAcrossGravity() throws {
        // The measured limit: the refused start's own seconds put a hand's share along gravity.
        let samples = try Self.purseWalk()
        let off = SyntheticMotion.count(samples, parameters: Self.lookingBack(seconds: 0, share: 0))
        let alongGravity = SyntheticMotion.count(samples, parameters: Self.lookingBack(share: 0.4))
        #expect(alongGravity.steps - off.steps <= 2, "\(off.steps) -> \(alongGravity.steps)")
    }

    @Test func aShareAboveOneIsOff() throws {
        let samples = try Self.purseWalk()
        #expect(
            SyntheticMotion.count(samples, parameters: Self.lookingBack(seconds: 0, share: 0)).times
                == SyntheticMotion.count(samples, parameters: Self.lookingBack(share: 2)).times)
    }

    @Test func resumingInTheRefusedStartEqualsOnePass() throws {
        let samples = try Self.purseWalk()
        for fraction in [0.1, 0.2, 0.3, 0.5] {
            try SyntheticMotion.expectResumingEqualsOnePass(samples, at: fraction, parameters: .standard)
        }
    }

    @Test func parametersSavedBeforeTheLookBackDecodeToTheStandardOnes() throws {
        var json =
            try JSONSerialization.jsonObject(with: JSONEncoder().encode(Self.lookingBack(seconds: 0, share: 0.4)))
            as? [String: Any]
        json?["startLookBackSeconds"] = nil
        json?["startLookBackAlongShare"] = nil
        let decoded = try JSONDecoder().decode(
            DetectorParameters.self, from: JSONSerialization.data(withJSONObject: json ?? [:]))
        #expect(decoded.startLookBackSeconds == DetectorParameters.standard.startLookBackSeconds)
        #expect(decoded.startLookBackAlongShare == DetectorParameters.standard.startLookBackAlongShare)
    }
}
