import Foundation
import TestSupport
import Testing

@Suite(.temporaryFolder) struct InspectCommandTests {
    /// The committed samples of each format (`fixtures/formats`: the derived walk's layouts cut to their first lines).
    let formats = Steptweet.fixture("formats")

    func inspect(_ args: [String]) async throws -> (CommandResult, [String: Any]) {
        let r = try await Steptweet.run(["inspect", "--json"] + args)
        let object = (try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8))) as? [String: Any] ?? [:]
        return (r, object)
    }

    @Test func describesAnAccelerationRecording() async throws {
        let (r, o) = try await inspect(["--time-zone", "UTC", "\(formats)/actigraph_RAW.csv"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(o["format"] as? String == "actigraph-raw")
        #expect(o["kind"] as? String == "acceleration")
        #expect(o["samples"] as? Int == 39)
        #expect(o["rate_hz"] as? Double == 100)
        #expect(o["unit"] as? String == "g")
        #expect(o["start"] as? String == "2017-09-20T09:00:00.000Z")
        #expect(o["skipped_lines"] as? Int == 0)
    }

    @Test func describesAStepLogAndTakesRateAndFormat() async throws {
        let (r, o) = try await inspect(["\(formats)/apple_health_export.xml"])
        #expect(r.status == 0)
        #expect(o["kind"] as? String == "steps")
        #expect(o["readings"] as? Int == 10)
        #expect(o["steps"] as? Int == 2517)
        let uci = "\(formats)/uci_hapt_acc_exp01_user01.txt"
        let (noRate, _) = try await inspect([uci])
        #expect(noRate.status == 65)
        #expect(noRate.stderr.contains("--rate"))
        let (withRate, u) = try await inspect(["--rate", "50", "--start", "2017-09-20T09:00:00Z", uci])
        #expect(withRate.status == 0)
        #expect(u["samples"] as? Int == 40)
        #expect(u["start"] as? String == "2017-09-20T09:00:00.000Z")
        let (badFormat, _) = try await inspect(["--format", "nope", uci])
        #expect(badFormat.status == 64)
    }

    /// An Axivity recording's local times follow --time-zone too, and rows across the autumn change are all read,
    /// with a note (issue 44): 00:30-01:59 summer time, then 01:00-01:59 winter time, a row a second.
    @Test func axivityTimesFollowTheTimeZoneAcrossTheAutumnChange() async throws {
        let clock = (0..<5400).map { 1800 + $0 } + (0..<3600).map { 3600 + $0 }
        let rows = clock.map {
            String(format: "2024-10-27 %02d:%02d:%02d.000,0.010,-0.990,0.050", $0 / 3600, $0 / 60 % 60, $0 % 60)
        }
        let path = try Steptweet.tempFile(rows.joined(separator: "\n") + "\n", name: "autumn.csv")
        let (r, o) = try await inspect(["--time-zone", "Europe/London", path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(o["format"] as? String == "axivity")
        #expect(o["samples"] as? Int == 9000 && o["skipped_lines"] as? Int == 0)
        #expect(o["start"] as? String == "2024-10-26T23:30:00.000Z")
        #expect(o["end"] as? String == "2024-10-27T01:59:59.000Z")
        #expect(r.stderr.contains("3600 rows in the hour the clocks of Europe/London repeat"), "\(r.stderr)")
    }

    /// Date-time text without an offset is read in --time-zone; a --start without seconds is ISO 8601 too (issue 44).
    @Test func naiveTimesFollowTheTimeZoneAndTimesMayLeaveOutSeconds() async throws {
        let rows = (0..<300).map { "2019-07-22 14:\(30 + $0 / 60):\(String(format: "%02d", $0 % 60)),0.1,0.2,9.8" }
        let uk = try Steptweet.tempFile("time,x,y,z\n" + rows.joined(separator: "\n") + "\n", name: "uk.csv")
        let (r, o) = try await inspect(["--time-zone", "Europe/London", uk])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(o["start"] as? String == "2019-07-22T13:30:00.000Z")
        #expect(try await inspect(["--time-zone", "UTC", uk]).1["start"] as? String == "2019-07-22T14:30:00.000Z")
        let uci = "\(formats)/uci_hapt_acc_exp01_user01.txt"
        for (start, expected) in [
            ("2019-07-22T14:30+09:00", "2019-07-22T05:30:00.000Z"), ("2019-07-22T14:30Z", "2019-07-22T14:30:00.000Z"),
        ] {
            let (started, u) = try await inspect(["--rate", "50", "--start", start, uci])
            #expect(started.status == 0, "\(start): \(started.stderr)")
            #expect(u["start"] as? String == expected, "\(start)")
        }
    }

    @Test func textOutputAndSkippedLines() async throws {
        let path = try Steptweet.tempFile("t_ms,x,y,z\n0,0,0,9.8\n10,0,0\n20,0,0,9.8\n")
        let r = try await Steptweet.run(["inspect", path])
        #expect(r.status == 0, "valid lines were read: the skipped one is a warning")
        let help = try await Steptweet.run(["inspect", "--help"])
        #expect(
            help.stdout.replacingOccurrences(of: "\n", with: " ").contains("skipped and reported (exit status 0)"),
            "help says what the command does: \(help.stdout)")
        #expect(r.stdout.contains("format:   generic-csv"))
        #expect(r.stdout.contains("samples:  2"))
        #expect(r.stdout.contains("skipped:  1 line\n"), "one line, not \"1 lines\": \(r.stdout)")
        #expect(r.stderr.contains("\(path):3:"))
        let strict = try await Steptweet.run(["inspect", "--strict", path])
        #expect(strict.status == 65)
        #expect(strict.stdout.isEmpty)
    }

    @Test func countAndPreviewAcceptStepInputs() async throws {
        let fitbit = "\(formats)/steps-1995-06-23_Fitbit.json"
        let count = try await Steptweet.run(["count", "--json", fitbit])
        #expect(count.status == 0, "\(count.stderr)")
        #expect(count.stdout.contains("\"steps\":607"))
        let preview = try await Steptweet.run([
            "preview", "--source", fitbit, "--start", "1995-06-24T16:10:30Z",
            "--now", "1995-06-24T16:20:30Z",
        ])
        #expect(preview.status == 0, "\(preview.stderr)")
        #expect(preview.stdout.contains(" 92 "))
    }
}
