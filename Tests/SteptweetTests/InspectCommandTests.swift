import Foundation
import TestSupport
import Testing

@Suite(.temporaryFolder) struct InspectCommandTests {
    let formats: String

    init() throws { formats = try SharedData.require("data/formats") }

    func inspect(_ args: [String]) async throws -> (CommandResult, [String: Any]) {
        let r = try await Steptweet.run(["inspect", "--json"] + args)
        let object = (try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8))) as? [String: Any] ?? [:]
        return (r, object)
    }

    @Test func describesAnAccelerationRecording() async throws {
        let (r, o) = try await inspect(["\(formats)/derived_walk_60s/actigraph_RAW.csv"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(o["format"] as? String == "actigraph-raw")
        #expect(o["kind"] as? String == "acceleration")
        #expect(o["samples"] as? Int == 6000)
        #expect(o["rate_hz"] as? Double == 100)
        #expect(o["unit"] as? String == "g")
        #expect(o["start"] as? String == "2017-09-20T09:00:00.000Z")
        #expect(o["skipped_lines"] as? Int == 0)
    }

    @Test func describesAStepLogAndTakesRateAndFormat() async throws {
        let (r, o) = try await inspect(["\(formats)/apple_health/export6s3sample.xml"])
        #expect(r.status == 0)
        #expect(o["kind"] as? String == "steps")
        #expect(o["readings"] as? Int == 10)
        #expect(o["steps"] as? Int == 2517)
        let uci = "\(formats)/derived_walk_60s/uci_hapt_acc_exp01_user01.txt"
        let (noRate, _) = try await inspect([uci])
        #expect(noRate.status == 65)
        #expect(noRate.stderr.contains("--rate"))
        let (withRate, u) = try await inspect(["--rate", "50", "--start", "2017-09-20T09:00:00Z", uci])
        #expect(withRate.status == 0)
        #expect(u["samples"] as? Int == 3000)
        #expect(u["start"] as? String == "2017-09-20T09:00:00.000Z")
        let (badFormat, _) = try await inspect(["--format", "nope", uci])
        #expect(badFormat.status == 64)
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
        let fitbit = "\(formats)/fitbit_takeout/steps-1995-06-23_Fitbit.json"
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
