import Foundation
import Messages
import TestSupport
import Testing

@testable import Analysis

/// The chart drawn in strips and encoded row by row is the picture librsvg draws whole: compared, pixel for pixel,
/// with `rsvg-convert`'s rendering of the same SVG (which `make test` installs).
@Suite struct SVGRasterizerTests {
    @Test(arguments: [(WindowChartOptions.Style.light, 1), (.dark, 1), (.light, 2)])
    func stripsMakeThePictureRsvgConvertMakesWhole(style: WindowChartOptions.Style, scale: Int) async throws {
        let activity = WindowChartTests.dayOfWalks(seed: 9)
        let composer = try WindowChartTests.composer()
        let bars = WindowChart.bars(activity, zone: composer.timeZone)
        let summary = WindowChart.summary(activity, bars: bars, goal: 8000)
        let (width, height) = (WindowChart.layoutWidth * scale, WindowChart.layoutHeight * scale)
        // rsvg-convert draws an SVG at its own size: the chart's own SVG (1200×675) is given its size to draw at;
        // the rasteriser scales the chart's own SVG, as a post's is.
        let svg = WindowChart.svg(activity, bars: bars, summary: summary, zone: composer.timeZone, style: style)
        let sized = svg.replacingOccurrences(
            of: "width=\"\(WindowChart.layoutWidth)\" height=\"\(WindowChart.layoutHeight)\"",
            with: "width=\"\(width)\" height=\"\(height)\"")
        let dir = try TempDir()
        let path = try dir.write("chart.svg", sized)
        // 1200×675: three strips of at most 270 rows, the last one short; 2400×1350: five, scaled.
        let whole = try await RasterImage.rasterize(svg: path)
        let strips = try RasterImage.decodePNG([UInt8](try SVGRasterizer.png(svg: svg, width: width, height: height)))
        try #require(whole.width == strips.width && whole.height == strips.height)
        var worst = (difference: 0, x: 0, y: 0)
        for y in 0..<whole.height {
            for x in 0..<whole.width {
                let (a, b) = (whole.pixel(x: x, y: y), strips.pixel(x: x, y: y))
                let difference = max(abs(Int(a.r) - Int(b.r)), abs(Int(a.g) - Int(b.g)), abs(Int(a.b) - Int(b.b)))
                if difference > worst.difference { worst = (difference, x, y) }
            }
        }
        #expect(worst.difference <= 2, "pixel \(worst.x), \(worst.y) differs by \(worst.difference)")
        #expect(strips.pixel(x: 0, y: 0).a == 255)
    }
}
