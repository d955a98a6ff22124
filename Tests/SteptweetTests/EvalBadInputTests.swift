import Foundation
import TestSupport
import Testing

/// `eval` on manifests and recordings written by other people's tools: what `count` says of a recording (a skipped
/// line, a file with no valid line) `eval` says too, and a manifest saved as "CSV UTF-8" (a byte-order mark) reads.
@Suite(.temporaryFolder) struct EvalBadInputTests {
    @Test func aManifestWithAByteOrderMarkAndCRLFReads() async throws {
        let manifest = try Steptweet.tempFile(
            "\u{FEFF}file,truth_steps\r\n\(Steptweet.fixture("demo_walk_50hz.csv")),109\r\n", name: "manifest.csv")
        let r = try await Steptweet.run(["eval", manifest])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("walking MAPE"), "\(r.stdout)")
    }

    @Test func aSkippedLineOfARecordingIsNamed() async throws {
        // The same minute at rest with its line 5 cut short: scored on the rest, and the line said, as `count` says it.
        var lines = EvalAndPlotCommandTests.stillWrist().split(separator: "\n").map(String.init)
        lines[4] = "320"
        let still = try Steptweet.tempFile(lines.joined(separator: "\n") + "\n", name: "desk.csv")
        let manifest = try Steptweet.tempFile("file,truth_steps\n\(still),0\n", name: "manifest.csv")
        let r = try await Steptweet.run(["eval", manifest])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("warning: skipped \(still):5: "), "\(r.stderr)")
        #expect(r.stdout.contains("false steps 0 in 1 recordings"), "\(r.stdout)")
    }

    @Test func aRecordingWithNoValidLineIsAnErrorNotAPerfectZero() async throws {
        // A header and nothing else counts 0 steps, which a truth of 0 would score as perfect: `count` exits 65 on
        // it, and so does `eval`, after its report (the other recordings are still scored).
        let empty = try Steptweet.tempFile("t_ms,x,y,z\n", name: "empty.csv")
        let manifest = try Steptweet.tempFile(
            "file,truth_steps\n\(Steptweet.fixture("demo_walk_50hz.csv")),109\n\(empty),0\n", name: "manifest.csv")
        for arguments in [["eval", manifest], ["eval", "--json", manifest]] {
            let r = try await Steptweet.run(arguments)
            #expect(r.status == 65, "\(arguments)")
            #expect(r.stderr.contains("error: \(empty): no valid line: no samples after the header"), "\(r.stderr)")
            #expect(r.stdout.contains("MAPE") || r.stdout.contains("mape"), "\(r.stdout)")
        }
    }
}
