import Foundation
import Publishing
import SensorInput
import StepDetection

/// Min/max envelope of a signal over time in a fixed number of buckets: when the signal outgrows the buckets, pairs
/// merge and each bucket covers twice the time. Fixed memory whatever the recording's length, one pass.
struct Envelope {
    private(set) var startNs: Int64?
    private(set) var bucketNs: Int64
    private(set) var lows: [Double]
    private(set) var highs: [Double]
    let capacity: Int

    init(capacity: Int, initialBucketNs: Int64 = 10_000_000) {
        self.capacity = max(capacity, 2)
        bucketNs = max(initialBucketNs, 1)
        lows = []
        highs = []
        lows.reserveCapacity(self.capacity)
        highs.reserveCapacity(self.capacity)
    }

    mutating func add(timeNs: Int64, value: Double) {
        guard value.isFinite else { return }
        let start = startNs ?? timeNs
        startNs = start
        guard timeNs >= start else { return }
        var index = Int((timeNs - start) / bucketNs)
        while index >= capacity {
            merge()
            index = Int((timeNs - start) / bucketNs)
        }
        while lows.count <= index {
            lows.append(.nan)
            highs.append(.nan)
        }
        if lows[index].isNaN || value < lows[index] { lows[index] = value }
        if highs[index].isNaN || value > highs[index] { highs[index] = value }
    }

    private mutating func merge() {
        var newLows: [Double] = []
        var newHighs: [Double] = []
        newLows.reserveCapacity(capacity)
        newHighs.reserveCapacity(capacity)
        var i = 0
        while i < lows.count {
            let j = min(i + 1, lows.count - 1)
            newLows.append(Self.combine(lows[i], lows[j], min))
            newHighs.append(Self.combine(highs[i], highs[j], max))
            i += 2
        }
        lows = newLows
        highs = newHighs
        bucketNs *= 2
    }

    private static func combine(_ a: Double, _ b: Double, _ pick: (Double, Double) -> Double) -> Double {
        if a.isNaN { return b }
        if b.isNaN { return a }
        return pick(a, b)
    }

    /// The highest value of the bucket holding `timeNs`, or of the nearest bucket with samples within `withinNs`:
    /// a step's time may fall in an empty bucket between two samples when the buckets are shorter than the sample
    /// interval.
    func peak(near timeNs: Int64, withinNs: Int64) -> Double? {
        guard let start = startNs, !highs.isEmpty else { return nil }
        let index = Int(max(timeNs - start, 0) / bucketNs)
        let reach = Int(withinNs / bucketNs)
        for distance in 0...reach {
            for i in [index - distance, index + distance] where highs.indices.contains(i) && !highs[i].isNaN {
                return highs[i]
            }
        }
        return nil
    }
}

/// The picture could not be written (exit 73); the recording was counted, and its count is kept for the caller.
public struct PlotWriteError: Error, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var count: RecordingCount
    public var description: String { "cannot write the plot to \(path): \(reason)" }
}

/// Writes an SVG picture of a recording: the acceleration magnitude over time (as a min/max band, decimated for long
/// recordings), every counted step as a red tick, walking bouts shaded, and along the bottom what the walking recognizer
/// decided about each second. A person checks the count by looking.
public enum StepPlot {
    /// Empty buckets shorter than this are sampling, not a gap: the signal is drawn across them.
    static let gapNs: Int64 = 1_000_000_000

    /// Counts `path` (the full-resolution count, as `steptweet count`) and writes the picture to `svgPath`.
    @discardableResult
    public static func write(
        recording path: String,
        to svgPath: String,
        options: ReadOptions = ReadOptions(),
        parameters: DetectorParameters = .standard,
        width: Int = 1600,
        height: Int = 420
    ) throws -> RecordingCount {
        let plotWidth = max(width - 90, 100)
        var envelope = Envelope(capacity: plotWidth)
        var recognition = Recognition(enter: parameters.recognizer.enabled ? parameters.recognizer.enter : nil)
        let result = try RecordingCounter.count(
            path: path, options: options, parameters: parameters, keepStepTimes: true,
            onSample: { sample in envelope.add(timeNs: sample.time.nanosecondsSinceEpoch, value: sample.magnitude) },
            onEvent: { event in
                switch event {
                case .decision(let d, _): recognition.decisions.append(d)
                case .refused(let t): recognition.refused.append(t.nanosecondsSinceEpoch)
                case .step, .boutStarted, .boutEnded: break
                }
            })
        let title = (path as NSString).lastPathComponent
        let zone = options.timeZone ?? TimeZone.current
        let svg =
            result.kind == .steps
            ? renderReadings(
                title: title, result: result, zone: zone, width: max(width, 190), height: max(height, 160))
            : render(
                title: title, result: result, envelope: envelope, recognition: recognition, zone: zone,
                width: max(width, 190), height: max(height, 160))
        if let reason = WholeFile.write(Data(svg.utf8), to: svgPath) {
            throw PlotWriteError(path: svgPath, reason: reason, count: result)
        }
        return result
    }

    /// What the walking recognizer decided, for the shading: its windows and the rhythm's steps it refused.
    struct Recognition {
        /// The probability from which a window is walking; nil when the recognizer was off.
        var enter: Double?
        var decisions: [WalkingDecision] = []
        var refused: [Int64] = []
    }

    /// The plot's frame: where things go and how values map to pixels.
    struct Frame {
        let width: Int, height: Int
        let left = 60.0, right = 30.0, top = 40.0, bottom = 45.0
        let start: Int64, spanNs: Double, lowest: Double, highest: Double
        var plotW: Double { Double(width) - left - right }
        var plotH: Double { Double(height) - top - bottom }
        func x(_ ns: Int64) -> Double { left + Double(ns - start) / spanNs * plotW }
        func y(_ value: Double) -> Double { top + (highest - value) / (highest - lowest) * plotH }
    }

    static func f(_ v: Double) -> String { String(format: "%.1f", v) }

    /// The picture of an acceleration recording; times in `zone` when the recording's are wall-clock times.
    static func render(
        title: String, result: RecordingCount, envelope: Envelope, recognition: Recognition = Recognition(),
        zone: TimeZone, width: Int, height: Int
    ) -> String {
        let finite = envelope.highs.filter { !$0.isNaN }
        var lowest = envelope.lows.filter { !$0.isNaN }.min() ?? 0
        var highest = finite.max() ?? 20
        if highest - lowest < 1 {
            lowest -= 0.5
            highest += 0.5
        }
        let pad = (highest - lowest) * 0.05
        let frame = Frame(
            width: width, height: height, start: envelope.startNs ?? 0,
            spanNs: max(Double(envelope.bucketNs) * Double(max(envelope.lows.count, 1)), 1),
            lowest: lowest - pad, highest: highest + pad)
        var out = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(width)" height="\(height)" viewBox="0 0 \(width) \(height)" font-family="sans-serif" font-size="12">
            <rect width="100%" height="100%" fill="white"/>

            """
        let stepWord = result.steps == 1 ? "step" : "steps"
        let boutWord = result.bouts.count == 1 ? "walking bout" : "walking bouts"
        var heading = "\(escape(title)): \(result.steps) \(stepWord), \(result.bouts.count) \(boutWord)"
        if !recognition.refused.isEmpty { heading += ", \(recognition.refused.count) refused as not walking" }
        out +=
            "<text x=\"\(f(frame.left))\" y=\"22\" font-size=\"15\">\(heading), \(result.summary.samples) samples</text>\n"
        for bout in result.bouts {
            let x0 = frame.x(bout.start.nanosecondsSinceEpoch)
            let x1 = max(frame.x(bout.end.nanosecondsSinceEpoch), x0 + 1)
            out +=
                "<rect x=\"\(f(x0))\" y=\"\(f(frame.top))\" width=\"\(f(x1 - x0))\" height=\"\(f(frame.plotH))\" fill=\"#cfe8cf\"/>\n"
        }
        let axis =
            result.summary.absoluteTime
            ? PlotTimeAxis.wallClock(startNs: frame.start, spanNs: frame.spanNs, zone: zone)
            : PlotTimeAxis.sinceStart(startNs: frame.start, spanNs: frame.spanNs)
        out += axes(frame, time: axis)
        // Over the bouts' shading, which is opaque: drawn before it, the band could not be seen under any walk.
        out += recognitionShading(recognition, frame)
        out += signal(envelope, frame)
        out += stepTicks(
            result.stepTimes.map(\.nanosecondsSinceEpoch), color: "#d62728", envelope: envelope, frame: frame)
        out += stepTicks(recognition.refused, color: "#999999", envelope: envelope, frame: frame)
        out +=
            "<rect x=\"\(f(frame.left))\" y=\"\(f(frame.top))\" width=\"\(f(frame.plotW))\" height=\"\(f(frame.plotH))\" fill=\"none\" stroke=\"#888\"/>\n"
        out += legend(frame, recognizing: recognition.enter != nil)
        out += "</svg>\n"
        return out
    }

    /// Height of the recognizer's band along the bottom of the plot, in pixels.
    static let bandHeight = 10.0

    /// A band along the bottom of the plot: each scored window's middle second, green where the recognizer found
    /// walking, orange where it refused the motion (darker the surer it was), on white, so a bout's shading does not
    /// tint it. A window the recognizer skipped (every other one inside a confident walk) keeps the decision before it.
    static func recognitionShading(_ recognition: Recognition, _ frame: Frame) -> String {
        guard let enter = recognition.enter else { return "" }
        let band = bandHeight
        let y0 = frame.top + frame.plotH - band
        var out =
            "<rect x=\"\(f(frame.left))\" y=\"\(f(y0))\" width=\"\(f(frame.plotW))\" height=\"\(f(band))\" fill=\"white\"/>"
        let hopNs: Int64 = 960_000_000
        let middles = recognition.decisions.map {
            $0.start.nanosecondsSinceEpoch + ($0.end.nanosecondsSinceEpoch - $0.start.nanosecondsSinceEpoch) / 2
        }
        for (i, d) in recognition.decisions.enumerated() {
            var endNs = middles[i] + hopNs / 2
            if i + 1 < middles.count, middles[i + 1] - middles[i] <= 2 * hopNs + hopNs / 2 {
                endNs = middles[i + 1] - hopNs / 2
            }
            let x0 = frame.x(middles[i] - hopNs / 2)
            let x1 = max(frame.x(endNs), x0 + 0.5)
            let walking = d.probability >= enter
            let sureness = walking ? d.probability : 1 - d.probability
            out +=
                "<rect x=\"\(f(x0))\" y=\"\(f(y0))\" width=\"\(f(x1 - x0))\" height=\"\(f(band))\" fill=\"\(walking ? "#2ca02c" : "#ff7f0e")\" fill-opacity=\"\(String(format: "%.2f", 0.25 + 0.75 * sureness))\"><title>walking \(String(format: "%.2f", d.probability))</title></rect>"
        }
        return out + "\n"
    }

    static func axes(_ frame: Frame, time: PlotTimeAxis) -> String {
        var out = timeTicks(time, left: frame.left, top: frame.top, height: frame.plotH, x: frame.x)
        let valueStep = niceStep((frame.highest - frame.lowest) / 6)
        var value = (frame.lowest / valueStep).rounded(.up) * valueStep
        while value <= frame.highest {
            out +=
                "<line x1=\"\(f(frame.left))\" y1=\"\(f(frame.y(value)))\" x2=\"\(f(frame.left + frame.plotW))\" y2=\"\(f(frame.y(value)))\" stroke=\"#e4e4e4\"/>"
            out +=
                "<text x=\"\(f(frame.left - 6))\" y=\"\(f(frame.y(value) + 4))\" text-anchor=\"end\">\(label(value))</text>\n"
            value += valueStep
        }
        let midY = frame.top + frame.plotH / 2
        out +=
            "<text x=\"\(f(frame.left + frame.plotW / 2))\" y=\"\(f(Double(frame.height) - 8))\" text-anchor=\"middle\">\(time.title)</text>\n"
        out +=
            "<text x=\"16\" y=\"\(f(midY))\" text-anchor=\"middle\" transform=\"rotate(-90 16 \(f(midY)))\">|a| (m/s²)</text>\n"
        return out
    }

    /// A vertical grid line and a label below the plot at each tick of `time` (those left of the plot are left out).
    /// Labels are `labelGap` below the plot's bottom edge (more for a larger font).
    static func timeTicks(
        _ time: PlotTimeAxis, left: Double, top: Double, height: Double, labelGap: Double = 16,
        x: (Int64) -> Double
    ) -> String {
        var out = ""
        for tick in time.ticks where x(tick.ns) >= left - 0.5 {
            let px = x(tick.ns)
            out +=
                "<line x1=\"\(f(px))\" y1=\"\(f(top))\" x2=\"\(f(px))\" y2=\"\(f(top + height))\" stroke=\"#e4e4e4\"/>"
            out +=
                "<text x=\"\(f(px))\" y=\"\(f(top + height + labelGap))\" text-anchor=\"middle\">\(tick.label)</text>\n"
        }
        return out
    }

    /// The magnitude as a min/max band (a line when a bucket holds one sample), broken only at gaps of `gapNs` or
    /// more: buckets shorter than the sample interval leave empty ones between samples.
    static func signal(_ envelope: Envelope, _ frame: Frame) -> String {
        var segments: [String] = []
        var upper = ""
        var lowerPoints: [String] = []
        func flush() {
            if !upper.isEmpty {
                segments.append("M" + upper + " L" + lowerPoints.reversed().joined(separator: " L") + " Z")
            }
            upper = ""
            lowerPoints.removeAll()
        }
        let gapBuckets = Int(gapNs / envelope.bucketNs)
        var last: Int?
        for i in envelope.lows.indices where !envelope.lows[i].isNaN {
            if let last, i - last > gapBuckets { flush() }
            last = i
            let px = frame.left + (Double(i) + 0.5) / Double(max(envelope.lows.count, 1)) * frame.plotW
            upper += (upper.isEmpty ? "" : " L") + "\(f(px)),\(f(frame.y(envelope.highs[i])))"
            lowerPoints.append("\(f(px)),\(f(frame.y(envelope.lows[i])))")
        }
        flush()
        return
            "<path d=\"\(segments.joined(separator: " "))\" fill=\"#3b6fb6\" fill-opacity=\"0.55\" stroke=\"#3b6fb6\" stroke-width=\"0.8\"/>\n"
    }

    /// A tick above the signal's peak at each step's time, inside the frame.
    static func stepTicks(_ times: [Int64], color: String, envelope: Envelope, frame: Frame) -> String {
        guard !times.isEmpty else { return "" }
        var ticks = ""
        for t in times {
            let peak = envelope.peak(near: t, withinNs: gapNs) ?? frame.highest
            ticks += "M\(f(frame.x(t))),\(f(max(frame.y(peak) - 3, frame.top + 9)))v-8"
        }
        return "<path d=\"\(ticks)\" stroke=\"\(color)\" stroke-width=\"1.2\"/>\n"
    }

    static func legend(_ frame: Frame, recognizing: Bool) -> String {
        let lx = frame.left + frame.plotW - (recognizing ? 620 : 330)
        var out =
            "<rect x=\"\(f(lx))\" y=\"8\" width=\"14\" height=\"12\" fill=\"#cfe8cf\"/><text x=\"\(f(lx + 18))\" y=\"18\">walking bout</text>"
        out +=
            "<path d=\"M\(f(lx + 115)),20v-12\" stroke=\"#d62728\" stroke-width=\"1.5\"/><text x=\"\(f(lx + 121))\" y=\"18\">counted step</text>"
        out +=
            "<rect x=\"\(f(lx + 215))\" y=\"8\" width=\"14\" height=\"12\" fill=\"#3b6fb6\" fill-opacity=\"0.55\"/><text x=\"\(f(lx + 233))\" y=\"18\">|a| min-max</text>"
        if recognizing {
            out +=
                "<path d=\"M\(f(lx + 320)),20v-12\" stroke=\"#999999\" stroke-width=\"1.5\"/><text x=\"\(f(lx + 326))\" y=\"18\">refused step</text>"
            out +=
                "<rect x=\"\(f(lx + 415))\" y=\"8\" width=\"14\" height=\"12\" fill=\"#2ca02c\"/><rect x=\"\(f(lx + 431))\" y=\"8\" width=\"14\" height=\"12\" fill=\"#ff7f0e\"/><text x=\"\(f(lx + 449))\" y=\"18\">walking / refused motion</text>"
        }
        return out + "\n"
    }

    /// 1, 2 or 5 times a power of ten, at least `raw`.
    static func niceStep(_ raw: Double) -> Double {
        guard raw > 0, raw.isFinite else { return 1 }
        let power = pow(10, (log10(raw)).rounded(.down))
        for m in [1.0, 2, 5, 10] where m * power >= raw { return m * power }
        return 10 * power
    }

    static func label(_ v: Double) -> String {
        if abs(v - v.rounded()) < 1e-9 { return String(Int(v.rounded())) }
        return String(format: "%g", v)
    }

    static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
