import Foundation
import Testing
import TestSupport

/// The command line's conventions: version, JSON documents, times without an offset, exit statuses, escaped text.
@Suite(.temporaryFolder) struct CLIConventionsTests {
    @Test func versionIsPrinted() throws {
        let r = try Steptweet.run(["--version"])
        #expect(r.status == 0)
        #expect(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".").count == 3, "\(r.stdout)")
    }

    @Test func completionScriptsExistForEveryShell() throws {
        for shell in ["bash", "zsh", "fish"] {
            let r = try Steptweet.run(["--generate-completion-script", shell])
            #expect(r.status == 0)
            #expect(r.stdout.contains("steptweet"))
        }
        // Closed sets of values are listed for completion.
        let bash = try Steptweet.run(["--generate-completion-script", "bash"])
        for level in ["trace", "debug", "info", "notice", "warning", "error", "critical"] {
            #expect(bash.stdout.contains("'\(level)'"))
        }
    }

    @Test func countJSONForSeveralFilesIsOneArray() throws {
        let r = try Steptweet.run(["count", "--json", "fixtures/demo_walk_50hz.csv", "fixtures/demo_walk_50hz.csv"])
        #expect(r.status == 0, "\(r.stderr)")
        let files = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])
        #expect(files.count == 2)
        #expect(files.allSatisfy { ($0["steps"] as? Int ?? 0) > 50 })
    }

    @Test func severalFilesCountedOnTwoCoresPrintWhatOneCorePrints() throws {
        let files = ["fixtures/demo_walk_50hz.csv", "fixtures/formats/steps-1995-06-23_Fitbit.json", "missing.csv",
                     "fixtures/demo_walk_50hz.csv"]
        let one = try Steptweet.run(["count", "--jobs", "1"] + files)
        let two = try Steptweet.run(["count", "--jobs", "2"] + files)
        #expect(one.status == 66 && two.status == 66)
        #expect(two.stdout == one.stdout)
        #expect(two.stderr == one.stderr)
        #expect(one.stdout.split(separator: "\n").count == 3)
        #expect(try Steptweet.run(["count", "--jobs", "0", "fixtures/demo_walk_50hz.csv"]).status == 64)
    }

    @Test func malformedLinesAreSkippedWithStatusZeroUnlessStrictOrNothingValid() throws {
        var csv = "t_ms,x,y,z\n"
        for i in 0..<50 { csv += "\(i * 20),0.1,0.2,9.8\n" }
        csv += "1000,oops,0.2,9.8\n"
        let some = try Steptweet.tempFile(csv)
        #expect(try Steptweet.run(["count", some]).status == 0)
        #expect(try Steptweet.run(["inspect", some]).status == 0)
        #expect(try Steptweet.run(["count", "--strict", some]).status == 65)
        let none = try Steptweet.tempFile("t_ms,x,y,z\n0,a,b,c\n20,d,e,f\n")
        let r = try Steptweet.run(["count", none])
        #expect(r.status == 65)
        #expect(r.stderr.contains("no valid line: all 2 data lines are malformed"), "\(r.stderr)")
    }

    @Test func controlCharactersFromAFileAreEscapedInErrors() throws {
        let path = try Steptweet.tempFile("t_ms,x,y,z\n0,\u{1B}]0;owned\u{07}\u{1B}[2J,0,9.8\n20,0.1,0.2,9.8\n")
        let r = try Steptweet.run(["count", path])
        #expect(!r.stderr.contains("\u{1B}"))
        #expect(!r.stderr.contains("\u{07}"))
        #expect(r.stderr.contains("\\x1b]0;owned\\x07\\x1b[2J"), "\(r.stderr)")
    }

    @Test func aTimeWithoutAnOffsetIsReadInTheGivenZoneNeverSilentlyUTC() throws {
        // 60 s of samples with relative times; --start without an offset is read in --time-zone.
        let withOffset = try Steptweet.run(["inspect", "--json", "--start", "2026-11-21T10:00:00+09:00", "fixtures/demo_walk_50hz.csv"])
        let local = try Steptweet.run(["inspect", "--json", "--start", "2026-11-21T10:00:00", "--time-zone", "Asia/Tokyo",
                                       "fixtures/demo_walk_50hz.csv"])
        #expect(withOffset.status == 0 && local.status == 0, "\(local.stderr)")
        let a = try #require(try JSONSerialization.jsonObject(with: Data(withOffset.stdout.utf8)) as? [String: Any])
        let b = try #require(try JSONSerialization.jsonObject(with: Data(local.stdout.utf8)) as? [String: Any])
        #expect(a["start"] as? String == "2026-11-21T01:00:00.000Z")
        #expect(b["start"] as? String == a["start"] as? String)
        let bad = try Steptweet.run(["count", "--start", "yesterday", "fixtures/demo_walk_50hz.csv"])
        #expect(bad.status == 64)
    }

    @Test func previewReadsTheConfiguration() throws {
        let walk = Steptweet.root.appendingPathComponent("fixtures/demo_walk_50hz.csv").path
        let config = try Steptweet.walkConfig("[text]\ntime_zone = \"Asia/Tokyo\"\ndevice = \"Pixel 8\"\n")
        // --start without an offset is in the configuration's zone; the source and its start come from it too.
        let r = try Steptweet.run(["preview", "--config", config, "--start", "2026-11-21T10:00:00", "--now", "2026-11-21T10:30:00"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.hasPrefix("11/21 10:00:00 〜 11/21 10:30:00 の期間に Pixel 8 を持って "), "\(r.stdout)")
        let counted = try Steptweet.run(["preview", "--source", walk, "--start", "2026-11-21T10:00:00+09:00",
                                         "--recording-start", "2026-11-21T10:02:00+09:00",
                                         "--now", "2026-11-21T10:30:00+09:00", "--time-zone", "Asia/Tokyo", "--device", "Pixel 8"])
        #expect(counted.stdout == r.stdout)
    }
}
