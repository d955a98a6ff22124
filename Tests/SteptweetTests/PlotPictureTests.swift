import Foundation
import TestSupport
import Testing

/// `count --plot` as a person sees it: the SVG drawn into pixels by rsvg-convert, looked at where something must show.
@Suite(.temporaryFolder) struct PlotPictureTests {
    /// The plot's layout at the default 1600×420: the frame's edges in pixels.
    let left = 60, right = 1570, top = 40, bottom = 375

    /// The path of the SVG `count --plot` wrote for `arguments`.
    func plot(_ arguments: [String]) async throws -> String {
        let out = try TemporaryFolder.file(Data(), name: "plot.svg")
        let r = try await Steptweet.run(["count", "--plot", out] + arguments)
        #expect(r.status == 0, "\(r.stderr)")
        return out
    }

    func text(_ svg: String) throws -> String { try String(contentsOfFile: svg, encoding: .utf8) }

    func isGreen(_ p: RasterImage.Pixel) -> Bool { Int(p.g) > Int(p.r) + 60 && p.r < 130 }
    func isRed(_ p: RasterImage.Pixel) -> Bool { p.r > 150 && p.g < 110 && p.b < 110 }
    func isBlue(_ p: RasterImage.Pixel) -> Bool { Int(p.b) > Int(p.r) + 40 && p.b > p.g }

    /// Under a walk, whose bout shading covers the whole height, the recognizer's band is green along the bottom.
    @Test func theRecognizersBandShowsUnderAWalk() async throws {
        let image = try await RasterImage.rasterize(svg: try await plot([Steptweet.fixture("demo_walk_50hz.csv")]))
        // 10 s to 50 s of the 60 s walk, inside its one bout, in the band's 10 pixels above the frame's bottom.
        for x in stride(from: left + 250, through: left + 1250, by: 50) {
            let p = image.pixel(x: x, y: bottom - 5)
            #expect(isGreen(p), "band at x \(x): \(p)")
        }
    }

    /// A 12.5 Hz recording (the committed walk, every fourth sample), where the plot's buckets are shorter than the
    /// sample interval: the signal is drawn across the plot, and every step's tick stays inside the frame.
    @Test func aLowRateRecordingShowsItsSignalAndEveryTickInsideTheFrame() async throws {
        let lines = try String(contentsOfFile: Steptweet.fixture("demo_walk_50hz.csv"), encoding: .utf8)
            .split(separator: "\n")
        let thinned =
            ([lines[0]] + lines.dropFirst().enumerated().filter { $0.offset % 4 == 0 }.map(\.element))
            .joined(separator: "\n") + "\n"
        let image = try await RasterImage.rasterize(
            svg: try await plot([try Steptweet.tempFile(thinned, name: "walk_12hz.csv")]))
        for x in stride(from: left + 100, through: right - 100, by: 100) {
            #expect((top..<bottom).contains { isBlue(image.pixel(x: x, y: $0)) }, "no signal in column \(x)")
        }
        // Between the legend (to y 20) and the frame's top edge.
        let above = (left..<right).flatMap { x in (24..<top - 1).map { (x, $0) } }
        let ticks = above.filter { isRed(image.pixel(x: $0.0, y: $0.1)) }
        #expect(ticks.isEmpty, "red above the frame at \(ticks.prefix(3))")
    }

    /// A recording with wall-clock times is labelled in the local time of day of --time-zone.
    @Test func wallClockTimesAreLabelledInLocalTimeOfDay() async throws {
        let svg = try text(
            try await plot([
                "--start", "2026-11-21T10:00:00", "--time-zone", "Asia/Tokyo", Steptweet.fixture("demo_walk_50hz.csv"),
            ]))
        #expect(svg.contains(">local time in Asia/Tokyo, 2026-11-21</text>"))
        #expect(!svg.contains("time since the first sample"))
        for label in ["10:00:00", "10:00:10", "10:00:30", "10:01:00"] {
            #expect(svg.contains("text-anchor=\"middle\">\(label)</text>"), "no tick \(label)")
        }
        let relative = try text(try await plot([Steptweet.fixture("demo_walk_50hz.csv")]))
        #expect(relative.contains(">time since the first sample (s)</text>"))
    }

    /// A step log's bars stand on a time axis with ticks (grid lines in the picture) in the local time of day.
    @Test func aStepLogsBarsHaveTimeTicks() async throws {
        let path = try await plot([
            "--time-zone", "Asia/Tokyo", Steptweet.fixture("formats/steps-1995-06-23_Fitbit.json"),
        ])
        let svg = try text(path)
        #expect(svg.contains(">local time in Asia/Tokyo, 1995-06-25</text>"))
        for label in ["01:05", "01:10", "01:15", "01:20"] {
            #expect(svg.contains("text-anchor=\"middle\">\(label)</text>"), "no tick \(label)")
        }
        // The first half of the chart has no bars: only vertical grid lines interrupt its white rows.
        let image = try await RasterImage.rasterize(svg: path)
        let row = (left + 20..<left + 700).map { image.pixel(x: $0, y: top + 100) }
        let lines = zip(row, row.dropFirst()).filter { $0.0.r >= 250 && $0.1.r < 250 }.count
        #expect(lines >= 3, "\(lines) grid lines")
    }
}
