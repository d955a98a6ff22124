import Foundation
import Messages
import TestSupport
import Testing

@testable import Analysis

/// The chart drawn in strips and encoded row by row is the picture librsvg draws whole: compared, pixel for pixel,
/// with `rsvg-convert`'s rendering of the same SVG (which `make test` installs).
@Suite struct SVGRasterizerTests {
    @Test(arguments: [WindowChartOptions.Style.light, .dark])
    func stripsMakeThePictureRsvgConvertMakesWhole(style: WindowChartOptions.Style) throws {
        let activity = WindowChartTests.dayOfWalks(seed: 9)
        let composer = try WindowChartTests.composer()
        let bars = StepPlot.bars(
            activity.readings, zone: composer.timeZone, span: (activity.startNs, activity.endNs),
            intervals: WindowChart.chartIntervals, maxBars: WindowChart.maxBars)
        let summary = WindowChart.summary(activity, bars: bars, goal: 8000)
        let svg = WindowChart.svg(activity, bars: bars, summary: summary, zone: composer.timeZone, style: style)
        let dir = try TempDir()
        let path = try dir.write("chart.svg", svg)
        // At the SVG's own 1200×675: three strips of at most 270 rows, the last one short.
        let whole = try RasterImage.rasterize(svg: path)
        let strips = try RasterImage.decodePNG(
            [UInt8](try SVGRasterizer.png(svg: svg, width: WindowChart.layoutWidth, height: WindowChart.layoutHeight)))
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
