import Foundation
import TestSupport
import Testing

@Suite(.temporaryFolder) struct EvalAndPlotCommandTests {
    /// A manifest of the committed 60 s walk (109 true steps).
    func walkManifest() throws -> String {
        try Steptweet.tempFile(
            "file,truth_steps\n\(Steptweet.fixture("demo_walk_50hz.csv")),109\n", name: "manifest.csv")
    }

    /// A wrist at rest for a minute, `t_ms,magnitude` at 12.5 Hz: gravity and a little sensor noise, no steps.
    static func stillWrist() -> String {
        var random = SeededRandom(seed: 7)
        return "t_ms,magnitude\n"
            + (0..<750).map { "\($0 * 80),\(String(format: "%.3f", 9.81 + random.noise(0.05)))" }.joined(
                separator: "\n")
            + "\n"
    }

    @Test func walksLittleWalkingAndNoCountAreReportedApartAndGroupedOnRequest() async throws {
        // A walk of 109 true steps scores MAPE; the same walk said to hold 60 steps scores false steps (what was
        // counted above 60); without a count, steps per minute. A 5 % error on 60 steps would say nothing.
        let walk = Steptweet.fixture("demo_walk_50hz.csv")
        let manifest = try Steptweet.tempFile(
            """
            file,truth_steps,activity
            \(walk),109,walking
            \(walk),60,dressing
            \(walk),,walking

            """, name: "manifest.csv")
        let r = try await Steptweet.run(["eval", "--json", "--by", "activity", manifest])
        #expect(r.status == 0, "\(r.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let files = try #require(object["files"] as? [[String: Any]])
        let counted = try #require(files[0]["counted"] as? Int)
        #expect(files[0]["abs_pct_error"] != nil && files[0]["false_steps"] == nil)
        #expect(files[1]["false_steps"] as? Int == max(0, counted - 60) && files[1]["abs_pct_error"] == nil)
        #expect(files[2]["truth"] == nil && (files[2]["steps_per_min"] as? Double).map { $0 > 100 } == true)
        let summary = try #require(object["summary"] as? [String: Any])
        #expect(summary["walks"] as? Int == 1)
        #expect(summary["no_count_files"] as? Int == 1)
        let hours = try #require(files[1]["duration_s"] as? Double) / 3600
        #expect(abs(try #require(summary["low_truth_hours"] as? Double) - hours) < 0.001)
        #expect((summary["false_steps_per_hour"] as? Double).map { abs($0 - Double(counted - 60) / hours) < 1 } == true)
        let groups = try #require(object["groups"] as? [[String: Any]])
        #expect(groups.map { $0["value"] as? String } == ["walking", "dressing"])
        let text = try await Steptweet.run(["eval", "--by", "activity", manifest])
        #expect(text.stdout.contains("activity walking: walking MAPE "))
        #expect(
            text.stdout.contains(
                "activity dressing: walking MAPE - (no walks); false steps \(counted - 60) in 1 recordings"))
        #expect(try await Steptweet.run(["eval", "--by", "colour", manifest]).status == 64)
    }

    @Test func stepsMissedInRecordingsUnder100TrueStepsAreReportedBesideFalseSteps() async throws {
        // Under 100 true steps a recording is scored by false steps; a short walk counted too low has none, so what
        // it missed is reported beside them (the walk said to hold 60 steps is over-counted, the desk work said to
        // hold 40 is under-counted).
        let still = try Steptweet.tempFile(Self.stillWrist(), name: "desk.csv")
        let manifest = try Steptweet.tempFile(
            """
            file,truth_steps
            \(Steptweet.fixture("demo_walk_50hz.csv")),60
            \(still),40

            """, name: "manifest.csv")
        let r = try await Steptweet.run(["eval", "--json", manifest])
        #expect(r.status == 0, "\(r.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let files = try #require(object["files"] as? [[String: Any]])
        let walk = try #require(files[0]["counted"] as? Int)
        let desk = try #require(files[1]["counted"] as? Int)
        #expect(walk > 60 && desk < 40)
        #expect(files.map { $0["missed_steps"] as? Int } == [0, 40 - desk])
        #expect(files.map { $0["false_steps"] as? Int } == [walk - 60, 0])
        let summary = try #require(object["summary"] as? [String: Any])
        #expect(summary["low_truth_steps"] as? Int == 100)
        #expect(summary["missed_steps"] as? Int == 40 - desk)
        #expect(summary["false_steps"] as? Int == walk - 60)
        let text = try await Steptweet.run(["eval", manifest])
        #expect(text.stdout.contains("; false steps \(walk - 60) in 2 recordings ("), "\(text.stdout)")
        #expect(text.stdout.contains("), \(40 - desk) of their 100 true steps missed\n"), "\(text.stdout)")
    }

    @Test func evalNamesTheManifestLineOfABadEntry() async throws {
        let path = try Steptweet.tempFile("file,truth_steps\nwalk.csv,twelve\n", name: "manifest.csv")
        let r = try await Steptweet.run(["eval", path])
        #expect(r.status == 65)
        #expect(r.stderr.contains("\(path):2: truth_steps is not a non-negative integer or empty: 'twelve'"))
        #expect(r.stdout.isEmpty)
        let missing = try await Steptweet.run(["eval", "no/such/manifest.csv"])
        #expect(missing.status == 66)
        #expect(missing.stderr.contains("no/such/manifest.csv: no such file"))
    }

    @Test func evalRefusesAModelOfAnotherFeatureSetSayingWhereAndWhy() async throws {
        let trees = #"{"featureSet":1,"depth":1,"base":0.5,"features":[3],"thresholds":[0.4],"leaves":[-2,2]}"#
        let parameters = try Steptweet.tempFile(
            #"{"recognizer":{"enabled":true,"enter":0.7,"stay":0.1,"model":\#(trees)}}"#,
            name: "old-model.json")
        let r = try await Steptweet.run(["eval", "--parameters", parameters, try walkManifest()])
        #expect(r.status == 65, "\(r.stderr)")
        #expect(r.stdout.isEmpty)
        #expect(
            r.stderr == "steptweet: error: \(parameters): not detector parameters: at recognizer.model.featureSet: "
                + "walking trees trained on feature set 1; this release computes feature set 8; retrain them with "
                + "scripts/train_walking.py\n")
        // Set 2 differs from set 3 only where a window has no axes: its trees load when they split on no axis feature.
        let retrained = trees.replacingOccurrences(of: #""featureSet":1"#, with: #""featureSet":2"#)
        let current = try Steptweet.tempFile(
            #"{"recognizer":{"enabled":true,"enter":0.7,"stay":0.1,"model":\#(retrained)}}"#,
            name: "model.json")
        let counted = try await Steptweet.run(["eval", "--parameters", current, try walkManifest()])
        #expect(counted.status == 0, "\(counted.stderr)")
    }

    @Test func plotWritesAnSVGWithEveryStepAndBout() async throws {
        let temp = try TempDir("plot")
        let out = temp.path("plot.svg")
        let r = try await Steptweet.run(["count", "--json", "--plot", out, Steptweet.fixture("demo_walk_50hz.csv")])
        #expect(r.status == 0, "\(r.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let steps = try #require(object["steps"] as? Int)
        let bouts = try #require(object["bouts"] as? Int)
        let svg = try String(contentsOfFile: out, encoding: .utf8)
        #expect(svg.hasPrefix("<svg "))
        #expect(svg.hasSuffix("</svg>\n"))
        #expect(svg.contains("demo_walk_50hz.csv: \(steps) steps"))
        // One tick ("M x,y v-8") per counted step, one shaded rectangle per bout.
        #expect(svg.components(separatedBy: "v-8").count - 1 == steps)
        #expect(svg.components(separatedBy: "fill=\"#cfe8cf\"/>").count - 1 == bouts + 1)  // + the legend swatch
        #expect(steps > 90)
    }

    @Test func plotShadesWhereTheRecognizerFoundWalkingAndWhereItRefused() async throws {
        let temp = try TempDir("plot")
        // Clapping: the rhythm finds steps, the recognizer refuses them.
        let clapping = temp.path("clapping.svg")
        let clap = try await Steptweet.run([
            "count", "--plot", clapping,
            Steptweet.fixture("activities/wisdm_watch_1601_clapping.csv"),
        ])
        #expect(clap.status == 0, "\(clap.stderr)")
        let svg = try String(contentsOfFile: clapping, encoding: .utf8)
        let refused = try #require(svg.firstMatch(of: /(\d+) refused as not walking/).map { Int($0.1)! })
        #expect(refused > 50)
        let greyPath = try #require(
            svg.components(separatedBy: "\n").first { $0.contains("stroke=\"#999999\" stroke-width=\"1.2\"") })
        #expect(greyPath.components(separatedBy: "v-8").count - 1 == refused, "one grey tick per refused step")
        #expect(svg.contains("fill=\"#ff7f0e\" fill-opacity"), "refused motion is shaded")
        // A walk: shaded as walking, nothing refused.
        let walking = temp.path("walk.svg")
        #expect(
            try await Steptweet.run(["count", "--plot", walking, Steptweet.fixture("demo_walk_50hz.csv")]).status == 0)
        let walkSVG = try String(contentsOfFile: walking, encoding: .utf8)
        #expect(walkSVG.contains("fill=\"#2ca02c\" fill-opacity"))
        #expect(!walkSVG.contains("refused as not walking"))
    }

    @Test func plotOfAStepLogDrawsStepsPerIntervalAsBars() async throws {
        let temp = try TempDir("plot")
        let out = temp.path("steps.svg")
        let r = try await Steptweet.run([
            "count", "--plot", out, Steptweet.fixture("formats/steps-1995-06-23_Fitbit.json"),
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let svg = try String(contentsOfFile: out, encoding: .utf8)
        #expect(svg.contains("steps-1995-06-23_Fitbit.json: 607 steps in 34 readings, steps per 1 min"))
        #expect(!svg.contains("|a|"), "a step log has no signal to draw")
        // One bar per minute with steps.
        let bars = svg.components(separatedBy: "fill=\"#3b6fb6\"/>").count - 1
        #expect(bars > 5)
    }

    @Test func plotTakesExactlyOneFile() async throws {
        let r = try await Steptweet.run([
            "count", "--plot", "/tmp/x.svg", Steptweet.fixture("demo_walk_50hz.csv"),
            Steptweet.fixture("demo_walk_50hz.csv"),
        ])
        #expect(r.status == 64)
        #expect(r.stderr.contains("--plot draws one recording"))
    }
}

/// `eval` on labelled recordings of `../shared/data/steps` (`make eval`).
@Suite(.temporaryFolder, .sharedData) struct EvalCommandSharedDataTests {
    let shared: String

    init() throws { shared = try SharedData.require("data/steps") }

    /// A manifest of three shared recordings (absolute paths: the shared folder is read-only).
    func smallManifest() throws -> String {
        try Steptweet.tempFile(
            """
            file,truth_steps,placement
            \(shared)/oxford_opt/Samsung_Dario_Hard_NeckPouch_1.csv,302,neckpouch
            \(shared)/wrist_watch/25hz_fast-walking-sh.csv,133,wrist
            \(shared)/wrist_watch/12hz_pc-working2.csv,0,wrist

            """, name: "manifest.csv")
    }

    @Test func evalPrintsOneLinePerFileThenTheMAPE() async throws {
        let r = try await Steptweet.run(["eval", try smallManifest()])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        #expect(lines[0].contains("Samsung_Dario_Hard_NeckPouch_1.csv") && lines[0].contains("true   302"))
        #expect(
            lines[2].contains("12hz_pc-working2.csv") && lines[2].contains("true     0") && lines[2].hasSuffix(" false")
        )
        let last = try #require(lines.last)
        #expect(last.hasPrefix("all: walking MAPE ") && last.contains("% (2 walks); false steps "), "\(last)")
        #expect(last.contains(" in 1 recordings ("), "\(last)")
        let mape = try #require(Double(last.dropFirst("all: walking MAPE ".count).prefix { $0 != "%" }))
        #expect(mape < 8)
    }

    @Test func evalJSONHasTheSameContent() async throws {
        let r = try await Steptweet.run(["eval", "--json", try smallManifest()])
        #expect(r.status == 0, "\(r.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let files = try #require(object["files"] as? [[String: Any]])
        #expect(files.count == 3)
        #expect(files.map { $0["truth"] as? Int } == [302, 133, 0])
        for file in files {
            #expect((file["counted"] as? Int).map { $0 - (file["truth"] as? Int ?? 0) } == file["error"] as? Int)
        }
        let summary = try #require(object["summary"] as? [String: Any])
        #expect(summary["walks"] as? Int == 2)
        #expect(summary["low_truth_files"] as? Int == 1)
        #expect(summary["false_steps"] as? Int == files[2]["counted"] as? Int)
        #expect((summary["mape_percent"] as? Double).map { $0 < 8 } == true)
    }

    @Test func magnitudeOnlyCountsFromAbsoluteAccelerationWithTheAxisFeaturesMissing() async throws {
        // One tree on direction_steadiness (index 13) with a threshold no window reaches: a window with axes goes left
        // (not walking); a window without them has the feature missing, which goes right (walking). The steady-stride
        // path is off: it would take the neck pouch's walk along gravity for walking whatever the trees say.
        let trees = #"{"featureSet":3,"depth":1,"base":0,"features":[13],"thresholds":[2],"leaves":[-5,5]}"#
        let parameters = try Steptweet.tempFile(
            #"{"steadyStride":2,"recognizer":{"enabled":true,"enter":0.7,"stay":0.1,"model":\#(trees)}}"#,
            name: "axis-model.json")
        func counted(_ extra: [String]) async throws -> [String: Int] {
            let r = try await Steptweet.run(
                ["eval", "--json", "--parameters", parameters] + extra + [try smallManifest()])
            #expect(r.status == 0, "\(r.stderr)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
            let files = try #require(object["files"] as? [[String: Any]])
            return Dictionary(
                uniqueKeysWithValues: files.map {
                    (
                        ($0["file"] as? String ?? "").split(separator: "/").last.map(String.init) ?? "",
                        $0["counted"] as? Int ?? -1
                    )
                })
        }
        let withAxes = try await counted([])
        let temp = try TempDir("magnitude-only")
        let magnitudeOnly = try await counted(["--magnitude-only", "--features", temp.path("features")])
        // The windows written beside the counts are those the counts came from: none has axes.
        let windows = try String(contentsOfFile: temp.path("features/windows.csv"), encoding: .utf8)
        let rows = windows.split(separator: "\n").dropFirst()
        #expect(rows.contains { $0.contains("Samsung_Dario_Hard_NeckPouch_1.csv") })
        #expect(rows.allSatisfy { $0.split(separator: ",")[4] == "0" })
        #expect(withAxes["Samsung_Dario_Hard_NeckPouch_1.csv"] == 0)
        #expect((magnitudeOnly["Samsung_Dario_Hard_NeckPouch_1.csv"] ?? 0) > 250)  // 302 true steps
        // A magnitude-only recording is read the same either way.
        #expect((withAxes["25hz_fast-walking-sh.csv"] ?? 0) > 100)
        #expect(withAxes["25hz_fast-walking-sh.csv"] == magnitudeOnly["25hz_fast-walking-sh.csv"])
    }

    @Test func leaveOutCountsOneDataSetWithTheModelTrainedWithoutIt() async throws {
        // A model that calls nothing walking, as wrist_watch's: its fast walk then counts 0 (over 100 otherwise).
        let temp = try TempDir("leave-out")
        let never = #"{"featureSet":4,"depth":1,"base":-20,"features":[0],"thresholds":[0],"leaves":[0,0]}"#
        try #"{"recognizer":{"enabled":true,"enter":0.7,"stay":0.1,"model":\#(never)}}"#.write(
            toFile: temp.root + "/wrist_watch.json", atomically: true, encoding: .utf8)
        let manifest = try smallManifest()
        let r = try await Steptweet.run([
            "eval", "--json", "--leave-out", "wrist_watch", "--models", temp.root, manifest,
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let files = try #require(object["files"] as? [[String: Any]])
        #expect(files.count == 2 && files.allSatisfy { ($0["file"] as? String)?.contains("/wrist_watch/") == true })
        #expect(files.allSatisfy { $0["counted"] as? Int == 0 })
        // A data set the manifest does not have, and one without a model, are clear errors.
        let unknown = try await Steptweet.run(["eval", "--leave-out", "dsads_arm", "--models", temp.root, manifest])
        #expect(unknown.status != 0 && unknown.stderr.contains("no recording of data set 'dsads_arm'"))
        #expect(unknown.stderr.contains("oxford_opt, wrist_watch"))
        let missing = try await Steptweet.run(["eval", "--leave-out", "oxford_opt", "--models", temp.root, manifest])
        #expect(missing.status != 0 && missing.stderr.contains("oxford_opt.json: cannot read"))
        #expect(missing.stderr.contains("train_walking.py"))
    }
}
