import Foundation
import TestSupport
import Testing

@Suite(.temporaryFolder) struct CountCommandTests {
    /// The committed 60 s walk: 109 true steps, `t_ms,x,y,z` at 50 Hz.
    let walk = Steptweet.fixture("demo_walk_50hz.csv")

    @Test func countsTheCommittedWalkAsJSON() async throws {
        let r = try await Steptweet.run(["count", "--json", walk])
        #expect(r.status == 0, "\(r.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as! [String: Any]
        #expect(object["samples"] as? Int == 3000)
        #expect(object["file"] as? String == walk)
        #expect(object["format"] as? String == "generic-csv")
        let steps = try #require(object["steps"] as? Int)
        #expect(abs(steps - 109) <= 11, "109 true steps, counted \(steps)")
        let rate = try #require(object["rate_hz"] as? Double)
        #expect(rate > 49.9 && rate < 50.1)
        #expect((object["duration_s"] as? Double).map { abs($0 - 60) < 0.1 } == true)
    }

    /// `count --help` lists the keys of `count --json` as they are printed (snake_case, as docs/json.md says).
    @Test func helpNamesEveryKeyOfTheJSONOutput() async throws {
        let r = try await Steptweet.run(["count", "--json", walk])
        #expect(r.status == 0, "\(r.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let help = try await Steptweet.run(["count", "--help"]).stdout.replacingOccurrences(of: "\n", with: " ")
        for key in object.keys.sorted() {
            #expect(help.contains(key), "count --help does not name the JSON key \(key)")
        }
        #expect(!help.contains("rateHz"))
    }

    /// A walk at 27 steps a minute (steps 2.1-2.3 s apart): too slow for the standard rhythm, counted when slow.
    @Test func sensitivitySlowCountsASlowWalkThatNormalDoesNot() async throws {
        let walk = Steptweet.fixture("slow_walk/slow_walk_27spm.csv")
        func steps(_ arguments: [String]) async throws -> Int {
            let r = try await Steptweet.run(["count", "--json"] + arguments + [walk])
            #expect(r.status == 0, "\(r.stderr)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
            return try #require(object["steps"] as? Int)
        }
        #expect(try await steps([]) == 0)
        #expect(try await steps(["--sensitivity", "normal"]) == 0)
        let slow = try await steps(["--sensitivity", "slow"])
        #expect(slow >= 30 && slow <= 41, "40 true steps, counted \(slow)")
        let bad = try await Steptweet.run(["count", "--sensitivity", "fast", walk])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("sensitivity"), "\(bad.stderr)")
    }

    @Test func textOutputIsOneLinePerFile() async throws {
        let r = try await Steptweet.run(["count", walk, Steptweet.fixture("formats/generic_t_ms.csv")])
        #expect(r.status == 0)
        let lines = r.stdout.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines[0].hasPrefix("\(walk): "))
        #expect(lines[0].contains("3000 samples"))
        #expect(lines[1].contains("39 samples"))
    }

    @Test func stepTimesAreWrittenOnePerLineAndMatchTheCount() async throws {
        let target = try Steptweet.tempFile("an older file, replaced whole\n", name: "times.txt")
        let r = try await Steptweet.run(["count", "--json", "--jobs", "2", "--step-times", target, walk])
        #expect(r.status == 0, "\(r.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let lines = try String(contentsOfFile: target, encoding: .utf8).split(separator: "\n")
        let times = lines.compactMap { Int64($0) }
        #expect(times.count == lines.count, "every line is a time in ns")
        #expect(times.count == object["steps"] as? Int)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 }, "in time order")
        #expect(times.first.map { $0 > 0 && $0 < 60_000_000_000 } == true, "inside the minute of walking")
        let folder = (target as NSString).deletingLastPathComponent
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["times.txt"], "no partial file left")
    }

    @Test func aFailedCountLeavesNoStepTimesFile() async throws {
        let bad = try Steptweet.tempFile("t_ms,x,y,z\n0,1,2,3\nnot a number\n", name: "bad.csv")
        let target = (bad as NSString).deletingLastPathComponent + "/times.txt"
        let r = try await Steptweet.run(["count", "--strict", "--step-times", target, bad])
        #expect(r.status == 65, "\(r.stderr)")
        let folder = (bad as NSString).deletingLastPathComponent
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder) == ["bad.csv"],
            "neither the file nor a partial one")
    }

    @Test func stepTimesThatCannotBeWrittenExit73AndSayWhere() async throws {
        let folder = (try Steptweet.tempFile("", name: "x") as NSString).deletingLastPathComponent
        let target = folder + "/no/such/folder/times.txt"
        let r = try await Steptweet.run(["count", "--step-times", target, walk])
        #expect(r.status == 73, "\(r.stderr)")
        #expect(r.stderr.contains("cannot write step times to \(target): No such file or directory"), "\(r.stderr)")
        #expect(r.stdout.isEmpty)
    }

    @Test func aPlotThatCannotBeWrittenExits73NamesThePathAndStillPrintsTheCount() async throws {
        let folder = (try Steptweet.tempFile("", name: "x") as NSString).deletingLastPathComponent
        let target = folder + "/no/such/folder/walk.svg"
        let recording = Steptweet.fixture("demo_walk_50hz.csv")
        let r = try await Steptweet.run(["count", "--plot", target, recording])
        #expect(r.status == 73, "\(r.stderr)")
        #expect(r.stderr.contains("cannot write the plot to \(target): No such file or directory"), "\(r.stderr)")
        #expect(r.stdout.hasPrefix("\(recording): 113 steps (3000 samples"), "\(r.stdout)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["x"], "no partial file left")
    }

    /// Also the binary reading a relative path against its working directory and naming the file as given.
    @Test func stepLogsAreSummedAndSaySo() async throws {
        let r = try await Steptweet.runProcess(["count", "fixtures/formats/steps-1995-06-23_Fitbit.json"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.hasPrefix("fixtures/formats/steps-1995-06-23_Fitbit.json: 607 steps ("))
        #expect(r.stdout.contains("readings summed"))
        #expect(r.stdout.contains("fitbit-steps"))
    }

    @Test func missingFileIsNamed() async throws {
        let r = try await Steptweet.run(["count", "no/such/file.csv"])
        #expect(r.status == 66)
        #expect(r.stderr.contains("no/such/file.csv: no such file"))
        #expect(r.stdout.isEmpty)
    }

    @Test func emptyFileIsAnError() async throws {
        let path = try Steptweet.tempFile("")
        let r = try await Steptweet.run(["count", path])
        #expect(r.status == 65)
        #expect(r.stderr.contains("\(path): file is empty"))
    }

    @Test func headerWithoutTimeColumnIsNamedWithLine() async throws {
        let path = try Steptweet.tempFile("a,b,c\n1,2,3\n")
        let r = try await Steptweet.run(["count", path])
        #expect(r.status == 65)
        #expect(r.stderr.contains("\(path):1: no time column"))
    }

    @Test func nonNumberLineIsReportedAndValidLinesKept() async throws {
        var csv = "t_ms,x,y,z\n"
        for i in 0..<100 { csv += "\(i * 20),0.1,0.2,9.8\n" }
        csv += "2000,abc,0.2,9.8\n"
        for i in 101..<200 { csv += "\(i * 20),0.1,0.2,9.8\n" }
        let path = try Steptweet.tempFile(csv)
        let r = try await Steptweet.run(["count", "--json", path])
        #expect(r.status == 0, "valid lines were counted: the skipped one is a warning, not a failure")
        #expect(r.stderr.contains("\(path):102: x is not a number: 'abc'"))
        let object = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as! [String: Any]
        #expect(object["samples"] as? Int == 199)
        #expect(object["skipped_lines"] as? Int == 1)
        #expect(object["steps"] as? Int == 0)

        let strict = try await Steptweet.run(["count", "--strict", path])
        #expect(strict.status == 65)
        #expect(strict.stdout.isEmpty)
        #expect(strict.stderr.contains("\(path):102:"))
    }

    @Test func oneBadFileDoesNotHideTheOthers() async throws {
        let r = try await Steptweet.run(["count", "missing.csv", walk])
        #expect(r.status == 66)
        #expect(r.stdout.contains("\(walk): "))
    }
}
