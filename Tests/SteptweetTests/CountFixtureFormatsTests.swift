import Foundation
import TestSupport
import Testing

/// `count` and `inspect` over the committed format fixtures (no `../shared` needed): a ride's FIT file, a Shimmer
/// Consensys export.
@Suite(.temporaryFolder) struct CountFixtureFormatsTests {
    /// A ride's FIT file is valid and holds no steps: 0 steps, exit 0, and a note saying why (not "no valid line").
    @Test func aRidesFITFileCountsZeroWithANote() async throws {
        let ride = Steptweet.fixture("formats/garmin_ride_no_steps.fit")
        for command in ["count", "inspect"] {
            let r = try await Steptweet.run([command, ride])
            #expect(r.status == 0, "\(command): \(r.stderr)")
            #expect(r.stderr.contains("note: \(ride): a cycling activity holds no steps"), "\(command)")
            #expect(!r.stderr.contains("no valid line"))
        }
        let count = try await Steptweet.run(["count", ride])
        #expect(count.stdout.hasPrefix("\(ride): 0 steps (0 readings summed"))
    }

    /// One step reading is "1 reading summed", not "1 readings".
    @Test func oneReadingIsSingular() async throws {
        let log = try Steptweet.tempFile(#"{"ts": "2026-11-21T10:05:00Z", "steps": 12}"# + "\n", name: "one.jsonl")
        let one = try await Steptweet.run(["count", log])
        #expect(one.status == 0 && one.stdout == "\(log): 12 steps (1 reading summed, 0.0 s, steplog)\n", "\(one)")
        let two = try Steptweet.tempFile(
            #"{"ts": "2026-11-21T10:05:00Z", "steps": 12}"# + "\n" + #"{"ts": "2026-11-21T10:06:00Z", "steps": 3}"#
                + "\n", name: "two.jsonl")
        #expect(try await Steptweet.run(["count", two]).stdout.contains("(2 readings summed, "))
    }

    /// A Shimmer Consensys export is counted without flags; the same walk in g but labelled m/s² counts the same steps
    /// and says which unit it was read in (read as m/s², it would count none).
    @Test func aShimmerExportCountsLikeTheWalkAndAMislabelledUnitIsNoted() async throws {
        let export = ShimmerFixture.path
        let right = try await Steptweet.run(["count", "--json", export])
        #expect(right.status == 0, "\(right.stderr)")
        let rightJSON = try #require(
            try JSONSerialization.jsonObject(with: Data(right.stdout.utf8)) as? [String: Any])
        #expect(rightJSON["format"] as? String == "shimmer")
        let steps = try #require(rightJSON["steps"] as? Int)
        #expect((95...125).contains(steps), "109 true steps")
        let inG = try Steptweet.tempFile(try ShimmerFixture.inGLabelledMetresPerSecondSquared())
        let mislabelled = try await Steptweet.run(["count", "--json", inG])
        #expect(mislabelled.status == 0, "\(mislabelled.stderr)")
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(mislabelled.stdout.utf8)) as? [String: Any])
        #expect(abs((json["steps"] as? Int ?? 0) - steps) <= 2)
        #expect(mislabelled.stderr.contains("note: \(inG): the file says its acceleration is in m/s^2"))
    }
}
