import Foundation
import Messages
import SensorInput
import StepDetection
import TestSupport
import Testing
import WallTime

@testable import Analysis

/// Charts of windows from minutes to ten years: bars that follow the window (at most about 60), labels that never
/// print over each other (measured on the SVG), the headline's space, and the chart in the text's language.
@Suite struct WindowChartLayoutTests {
    static let london = TimeZone(identifier: "Europe/London")!
    static let minuteNs: Int64 = 60_000_000_000
    static let dayNs: Int64 = 1440 * minuteNs

    /// A window of `minutes` from 2019-07-22 14:30 in London (the issue's 2019 recording), with a reading of 30 steps
    /// every `every` minutes and one walk.
    static func activity(minutes: Int64, every: Int64? = nil) -> WindowActivity {
        let start = Timestamps.parse("2019-07-22T14:30:00+01:00")!
        let startNs = Timestamps.nanoseconds(start)
        let step = every ?? max(1, minutes / 500)
        let readings = stride(from: Int64(0), to: minutes, by: Int(step)).map {
            StepReading(
                start: Instant(nanosecondsSinceEpoch: startNs + $0 * minuteNs),
                end: Instant(nanosecondsSinceEpoch: startNs + ($0 + 1) * minuteNs), steps: 30)
        }
        let end = start.addingTimeInterval(Double(minutes * 60))
        let walk = WalkingBout(
            start: Instant(nanosecondsSinceEpoch: startNs),
            end: Instant(nanosecondsSinceEpoch: startNs + min(minutes, 20) * minuteNs), steps: 600)
        let window = StepWindow(TimeWindow(start: start, end: end), steps: readings.count * 30, bouts: 1)
        return WindowActivity(window: window, readings: readings, bouts: [walk])
    }

    static let windows: [(minutes: Int64, bin: ChartBin)] = [
        (5, .seconds(60)), (60, .seconds(60)), (12 * 60, .seconds(900)), (1440, .seconds(1800)),
        (2 * 1440, .seconds(3600)), (7 * 1440, .seconds(10800)), (31 * 1440, .days(1)), (90 * 1440, .weeks(1)),
        (365 * 1440, .weeks(1)), (4 * 365 * 1440, .months(1)), (7 * 365 * 1440 + 2 * 1440, .months(3)),
        (3653 * 1440, .months(3)),
    ]

    @Test(arguments: windows.indices)
    func barsFollowTheWindow(index: Int) {
        let (minutes, bin) = Self.windows[index]
        let activity = Self.activity(minutes: minutes)
        let bars = WindowChart.bars(activity, zone: Self.london)
        #expect(bars.bin == bin, "\(minutes) min")
        #expect(bars.steps.count <= 60 && bars.steps.count >= 4, "\(bars.steps.count) bars for \(minutes) min")
        #expect(bars.edges.count == bars.steps.count + 1 && zip(bars.edges, bars.edges.dropFirst()).allSatisfy(<))
        #expect(bars.edges.first! <= activity.startNs && bars.edges.last! >= activity.endNs)
        #expect(Int(bars.steps.reduce(0, +).rounded()) == activity.window.steps)
    }

    /// Calendar bars start on round local times: quarters on the first of January, April, July, October at midnight.
    @Test func quartersStartOnTheFirstOfTheirMonthAtLocalMidnight() {
        let bars = WindowChart.bars(Self.activity(minutes: 7 * 365 * 1440), zone: Self.london)
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = Self.london
        f.dateFormat = "MM-dd HH:mm"
        let starts = bars.edges.map { f.string(from: Timestamps.date(nanoseconds: $0)) }
        #expect(starts.allSatisfy { ["01-01 00:00", "04-01 00:00", "07-01 00:00", "10-01 00:00"].contains($0) })
        #expect(starts.first == "07-01 00:00")
    }

    /// A seven-year window's alt text names its bars and both ends with their years.
    @Test func aSevenYearAltTextSaysQuartersAndYears() throws {
        let activity = Self.activity(minutes: 7 * 365 * 1440 + 2 * 1440)
        let composer = try MessageComposer(template: try Template(Template.english), timeZone: "Europe/London")
        let summary = WindowChart.summary(activity, bars: WindowChart.bars(activity, zone: Self.london), goal: nil)
        #expect(
            composer.altText(summary).hasPrefix(
                "Bar chart of steps per 3 months, 2019/07/22 14:30 to 2026/07/22 14:30: "))
    }

    /// Every text of the SVG as a box: no two overlap, and all are inside the picture.
    @Test(arguments: windows.indices, [TextLanguage.english, .japanese])
    func noTwoLabelsOverlap(index: Int, language: TextLanguage) throws {
        let activity = Self.activity(minutes: Self.windows[index].minutes)
        for goal in [nil, 8000] as [Int?] {
            let svg = try Self.svg(activity, goal: goal, language: language)
            let boxes = SVGTextBoxes.boxes(svg)
            #expect(boxes.count >= 8)
            for box in boxes {
                #expect(box.left >= 0 && box.right <= 1200 && box.top >= 0 && box.bottom <= 675, "\(box)")
            }
            for (i, a) in boxes.enumerated() {
                for b in boxes[(i + 1)...] where a.overlaps(b) {
                    Issue.record("\(Self.windows[index].minutes) min, goal \(goal ?? 0): \(a) overlaps \(b)")
                }
            }
        }
    }

    static func svg(_ activity: WindowActivity, goal: Int?, language: TextLanguage) throws -> String {
        let bars = WindowChart.bars(activity, zone: london)
        let summary = WindowChart.summary(activity, bars: bars, goal: goal)
        return WindowChart.svg(
            activity, bars: bars, summary: summary, zone: london, style: .light, language: language)
    }

    /// "2,459 steps", not "2,459steps": between the bold number and its word the picture has a gap wider than any
    /// inside the number (librsvg drops a no-break space that starts a `tspan`).
    @Test func theHeadlineKeepsASpaceBetweenTheNumberAndItsWord() throws {
        var activity = Self.activity(minutes: 1440, every: 17)
        activity.bouts = []
        activity.window.bouts = 0
        activity.window.steps = 2459
        let composer = try MessageComposer(template: try Template(Template.english), timeZone: "Europe/London")
        let image = try WindowChart.image(activity, composer: composer, options: WindowChartOptions())
        let pixels = try RasterImage.decodePNG([UInt8](image.png))
        // The headline's band, layout y 26...70, at scale 2: columns with ink.
        let inked = (0..<pixels.width).map { x in
            stride(from: 52, to: 140, by: 2).contains { y in
                let p = pixels.pixel(x: x, y: y)
                return Int(p.r) + Int(p.g) + Int(p.b) < 400
            }
        }
        let first = try #require(inked.firstIndex(of: true))
        let last = try #require(inked.lastIndex(of: true))
        var widest = 0
        var run = 0
        for x in first...last {
            run = inked[x] ? 0 : run + 1
            widest = max(widest, run)
        }
        #expect(widest >= 2 * 12, "the widest gap in the headline is \(widest) px")
    }

    /// A Japanese text gets a Japanese chart: its words, not the English ones (the alt text follows too).
    @Test func aJapaneseTextGetsAJapaneseChart() throws {
        let activity = Self.activity(minutes: 1440)
        let japanese = try Self.svg(activity, goal: 8000, language: .japanese)
        for word in ["歩", "歩行 1 回", "30分ごとの歩数", "累計", "目標", "2019-07-22(月)"] {
            #expect(japanese.contains(word), "\(word)")
        }
        let texts = SVGTextBoxes.boxes(japanese).map(\.text).joined(separator: "\n")
        for word in ["step", "walk", "goal", "running total", "Mon"] { #expect(!texts.contains(word), "\(word)") }
        let english = try Self.svg(activity, goal: 8000, language: .english)
        #expect(english.contains("steps per 30 minutes") && !english.contains("歩"))
        // The composer's language is the template's, unless the locale names one.
        let seed = try Template(Template.seed)
        #expect(try MessageComposer(template: seed, timeZone: "UTC").language == .japanese)
        #expect(try MessageComposer(template: seed, timeZone: "UTC", language: .english).language == .english)
        #expect(TextLanguage(locale: "ja_JP") == .japanese && TextLanguage(locale: "en_US") == .english)
    }
}

/// The boxes of an SVG's `<text>` elements, from their position, anchor, font size and characters (widths as
/// DejaVu Sans and IPAexGothic draw them, rounded up): what is measured to tell that no labels overlap.
enum SVGTextBoxes {
    struct Box: CustomStringConvertible {
        var text: String
        var left: Double, right: Double, top: Double, bottom: Double
        func overlaps(_ o: Box) -> Bool { left < o.right && o.left < right && top < o.bottom && o.top < bottom }
        var description: String { "'\(text)' [\(Int(left))…\(Int(right)) × \(Int(top))…\(Int(bottom))]" }
    }

    static func attribute(_ name: String, _ tag: String) -> String? {
        guard let r = tag.range(of: " \(name)=\"") else { return nil }
        return String(tag[r.upperBound...].prefix { $0 != "\"" })
    }

    /// Advance in ems, at least the font's.
    static func advance(_ c: Character) -> Double {
        if c.isNumber && c.isASCII { return 0.64 }
        if " \u{A0}".contains(c) { return 0.32 }
        if ",.:/·".contains(c) { return 0.35 }
        if "-()".contains(c) { return 0.4 }
        if "MWmw%".contains(c) { return 1.0 }
        if c.isASCII && c.isUppercase { return 0.8 }
        if c.isASCII && c.isLowercase { return 0.65 }
        return 1.0
    }

    static func unescaped(_ s: String) -> String {
        s.replacingOccurrences(of: "&#160;", with: "\u{A0}").replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&quot;", with: "\"")
            .replacingOccurrences(of: "&amp;", with: "&")
    }

    static func boxes(_ svg: String) -> [Box] {
        let rootSize = attribute("font-size", String(svg.prefix { $0 != ">" })).flatMap(Double.init) ?? 16
        var out: [Box] = []
        var rest = svg[...]
        while let open = rest.range(of: "<text"), let close = rest[open.upperBound...].range(of: "</text>") {
            let element = String(rest[open.lowerBound..<close.upperBound])
            rest = rest[close.upperBound...]
            let tag = String(element.prefix { $0 != ">" })
            let size = attribute("font-size", tag).flatMap(Double.init) ?? rootSize
            // Segments: (text, size, bold, dx) of each tspan, or the text itself.
            var segments: [(String, Double, Bool, Double)] = []
            var inner = element[element.index(after: element.firstIndex(of: ">")!)...].dropLast("</text>".count)
            if inner.contains("<tspan") {
                while let t = inner.range(of: "<tspan"), let end = inner[t.upperBound...].range(of: "</tspan>") {
                    let span = String(inner[t.lowerBound..<end.lowerBound])
                    let spanTag = String(span.prefix { $0 != ">" })
                    let text = String(span[span.index(after: span.firstIndex(of: ">")!)...])
                    segments.append(
                        (
                            unescaped(text), attribute("font-size", spanTag).flatMap(Double.init) ?? size,
                            spanTag.contains("bold"), attribute("dx", spanTag).flatMap(Double.init) ?? 0
                        ))
                    inner = inner[end.upperBound...]
                }
            } else {
                segments = [(unescaped(String(inner)), size, tag.contains("bold"), 0)]
            }
            let width = segments.reduce(0.0) { sum, s in
                sum + s.3 + s.0.reduce(0.0) { $0 + advance($1) } * s.1 * (s.2 ? 1.12 : 1)
            }
            let tallest = segments.map(\.1).max() ?? size
            let x = attribute("x", tag).flatMap(Double.init) ?? 0
            let y = attribute("y", tag).flatMap(Double.init) ?? 0
            let anchor = attribute("text-anchor", tag) ?? "start"
            let left = anchor == "middle" ? x - width / 2 : anchor == "end" ? x - width : x
            out.append(
                Box(
                    text: segments.map(\.0).joined(), left: left, right: left + width, top: y - 0.8 * tallest,
                    bottom: y + 0.25 * tallest))
        }
        return out
    }
}
