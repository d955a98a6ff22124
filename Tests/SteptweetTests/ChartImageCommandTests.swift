import Foundation
import TestSupport
import Testing

/// `preview --image` and `fetch --dry-run --image-dir`: the chart and its alt text as a target with `image = "chart"`
/// would post them, and 73 with the path when the picture cannot be written.
@Suite(.temporaryFolder) struct ChartImageCommandTests {
    let window = ["--start", "2026-11-21T10:00:00+09:00", "--now", "2026-11-21T10:30:00+09:00"]

    /// Signature and IHDR size of the PNG at `path`.
    func pngSize(_ path: String) throws -> [Int] {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        try #require(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), "\(path) is not a PNG")
        return [16, 20].map { i in bytes[i..<i + 4].reduce(0) { $0 << 8 | Int($1) } }
    }

    @Test func previewWritesTheChartAndPrintsItsAltTextWithTheSameTotal() async throws {
        let out = (try Steptweet.tempFile("", name: "placeholder") as NSString).deletingLastPathComponent + "/chart.png"
        let r = try await Steptweet.run(
            [
                "preview", "--source", Steptweet.fixture("demo_walk_50hz.csv"), "--time-zone", "Asia/Tokyo",
                "--recording-start", "2026-11-21T10:02:00+09:00", "--template", "english", "--image", out,
            ] + window)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try pngSize(out) == [2400, 1350])
        let lines = r.stdout.split(separator: "\n").map(String.init)
        try #require(lines.count == 2, "\(r.stdout)")
        let steps = try #require(lines[0].split(separator: " ").first.flatMap { Int($0) }, "\(lines[0])")
        #expect(
            lines[1].hasPrefix("alt: Bar chart of steps per minute, 10:00 to 10:30: \(steps) steps in 1 walk, most ("),
            "\(lines[1])")
        #expect(!FileManager.default.fileExists(atPath: out + ".partial"))
    }

    @Test func aChartThatCannotBeWrittenIs73WithItsPath() async throws {
        let blocker = try Steptweet.tempFile("a file, not a folder", name: "blocker")
        let r = try await Steptweet.run(
            ["preview", "--source", Steptweet.fixture("demo_walk_50hz.csv"), "--image", blocker + "/chart.png"] + window
        )
        #expect(r.status == 73)
        #expect(r.stderr.contains("cannot write the chart to \(blocker)/chart.png: Not a directory"), "\(r.stderr)")

        let config = try Steptweet.walkConfig("[text]\ntime_zone = \"Asia/Tokyo\"\n[state]\npath = \"state.sqlite\"\n")
        let fetch = try await Steptweet.run([
            "fetch", "--config", config, "--now", "2026-11-21T10:10:00+09:00", "--dry-run", "--image-dir",
            blocker + "/charts",
        ])
        #expect(fetch.status == 73)
        #expect(fetch.stderr.contains("cannot create the image folder \(blocker)/charts: Not a directory"))
    }

    @Test func aDryRunWritesEachWindowsChartNamedByItsKey() async throws {
        let config = try Steptweet.walkConfig(
            "[text]\ntime_zone = \"Asia/Tokyo\"\npreset = \"english\"\ngoal = 8000\n[state]\npath = \"state.sqlite\"\n")
        let folder = (config as NSString).deletingLastPathComponent
        let images = folder + "/charts"
        let now = "2026-11-21T10:10:00+09:00"
        let r = try await Steptweet.run(["fetch", "--config", config, "--now", now, "--dry-run", "--image-dir", images])
        #expect(r.status == 0, "\(r.stderr)")
        let png = images + "/steps-20261121T010200Z-20261121T011000Z.png"
        #expect(try pngSize(png) == [2400, 1350])
        #expect(
            r.stdout.contains("\nimage: \(png)\nalt: Bar chart of steps per minute, 10:02 to 10:10: "), "\(r.stdout)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/state.sqlite"), "a dry run changed the state")

        let json = try await Steptweet.run([
            "fetch", "--config", config, "--now", now, "--dry-run", "--image-dir", images, "--json",
        ])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let post = try #require((object["posts"] as? [[String: Any]])?.first)
        #expect(post["image_file"] as? String == png)
        // The goal is a day's: a window of minutes has no goal line, and its alt text says none.
        let alt = try #require(post["image_alt"] as? String)
        #expect(alt.hasPrefix("Bar chart of steps per minute, 10:02 to 10:10: ") && !alt.contains("goal"), "\(alt)")

        let real = try await Steptweet.run(["fetch", "--config", config, "--now", now, "--image-dir", images])
        #expect(real.status == 64 && real.stderr.contains("--image-dir shows what a dry run would post"))
    }

    /// A real fetch to a file target with `image = "chart"` and one without: the chart goes beside the JSON line of
    /// the first only, with the alt text the dry run showed, and a second fetch posts nothing again.
    @Test func aFetchPostsTheChartToTheTargetThatAsksForItOnly() async throws {
        let config = try Steptweet.walkConfig(
            """
            [text]
            time_zone = "Asia/Tokyo"
            preset = "english"
            [state]
            path = "state.sqlite"
            [[publish]]
            kind = "file"
            name = "with-chart"
            path = "chart-posts.jsonl"
            image = "chart"
            [[publish]]
            kind = "file"
            name = "text-only"
            path = "text-posts.jsonl"
            """)
        let folder = (config as NSString).deletingLastPathComponent
        let now = "2026-11-21T10:10:00+09:00"
        let dry = try await Steptweet.run(["fetch", "--config", config, "--now", now, "--dry-run", "--json"])
        let dryObject = try #require(try JSONSerialization.jsonObject(with: Data(dry.stdout.utf8)) as? [String: Any])
        let shownAlt = try #require((dryObject["posts"] as? [[String: Any]])?.first?["image_alt"] as? String)

        let r = try await Steptweet.run(["fetch", "--config", config, "--now", now])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        let withChart = try String(contentsOfFile: folder + "/chart-posts.jsonl", encoding: .utf8)
        let line = try #require(
            try JSONSerialization.jsonObject(with: Data(withChart.utf8)) as? [String: Any], "\(withChart)")
        let key = try #require(line["idempotency_key"] as? String)
        #expect(line["image_alt"] as? String == shownAlt)
        let png = try #require(line["image_file"] as? String)
        #expect((png as NSString).lastPathComponent == key + ".png")
        let pngPath = png.hasPrefix("/") ? png : folder + "/" + png
        #expect(try pngSize(pngPath) == [2400, 1350])
        let textOnly = try String(contentsOfFile: folder + "/text-posts.jsonl", encoding: .utf8)
        #expect(!textOnly.contains("image_file") && textOnly.contains(key), "\(textOnly)")

        let again = try await Steptweet.run(["fetch", "--config", config, "--now", now])
        #expect(again.stdout.contains("NoData"), "\(again.stdout)")
        #expect(try String(contentsOfFile: folder + "/chart-posts.jsonl", encoding: .utf8) == withChart)
    }
}
