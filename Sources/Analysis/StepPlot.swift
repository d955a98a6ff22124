import Foundation
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

    /// The bucket holding `timeNs`, if any.
    func bucket(at timeNs: Int64) -> Int? {
        guard let start = startNs, timeNs >= start else { return nil }
        let index = Int((timeNs - start) / bucketNs)
        return index < lows.count ? index : nil
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
/// recordings), every counted step as a red tick, and walking bouts shaded. A person checks the count by looking.
public enum StepPlot {
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
            onSample: { sample in envelope.add(timeNs: sample.timeNs, value: sample.magnitude) },
            onEvent: { event in
                switch event {
                case .decision(let d, _): recognition.decisions.append(d)
                case .refused(let t): recognition.refused.append(t)
                case .step, .boutStarted, .boutEnded: break
                }
            })
        let title = (path as NSString).lastPathComponent
        let svg =
            result.kind == .steps
            ? renderReadings(title: title, result: result, width: max(width, 190), height: max(height, 160))
            : render(
                title: title, result: result, envelope: envelope, recognition: recognition,
                width: max(width, 190), height: max(height, 160))
        // Written beside the target and renamed over it: a whole picture or none. (Foundation's `.atomic` goes
        // through a folder in /tmp that it leaves behind on Linux; its errors say "The file doesn't exist" without
        // a path, so the file is written here with the system's reason.)
        let partial = svgPath + ".partial"
        let bytes = Array(svg.utf8)
        let fd = open(partial, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw PlotWriteError(path: svgPath, reason: String(cString: strerror(errno)), count: result)
        }
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        let reason = written == bytes.count ? nil : String(cString: strerror(written < 0 ? errno : ENOSPC))
        close(fd)
        guard reason == nil, rename(partial, svgPath) == 0 else {
            let why = reason ?? String(cString: strerror(errno))
            unlink(partial)
            throw PlotWriteError(path: svgPath, reason: why, count: result)
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

    static func render(
        title: String, result: RecordingCount, envelope: Envelope, recognition: Recognition = Recognition(),
        width: Int, height: Int
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
        out += recognitionShading(recognition, frame)
        for bout in result.bouts {
            let x0 = frame.x(bout.startNs)
            let x1 = max(frame.x(bout.endNs), x0 + 1)
            out +=
                "<rect x=\"\(f(x0))\" y=\"\(f(frame.top))\" width=\"\(f(x1 - x0))\" height=\"\(f(frame.plotH))\" fill=\"#cfe8cf\"/>\n"
        }
        out += axes(frame)
        out += signal(envelope, frame)
        out += stepTicks(result.stepTimes, color: "#d62728", envelope: envelope, frame: frame)
        out += stepTicks(recognition.refused, color: "#999999", envelope: envelope, frame: frame)
        out +=
            "<rect x=\"\(f(frame.left))\" y=\"\(f(frame.top))\" width=\"\(f(frame.plotW))\" height=\"\(f(frame.plotH))\" fill=\"none\" stroke=\"#888\"/>\n"
        out += legend(frame, recognizing: recognition.enter != nil)
        out += "</svg>\n"
        return out
    }

    /// A band along the bottom of the plot: each scored window's middle second, green where the recognizer found
    /// walking, orange where it refused the motion (darker the surer it was).
    static func recognitionShading(_ recognition: Recognition, _ frame: Frame) -> String {
        guard let enter = recognition.enter else { return "" }
        var out = ""
        let band = 10.0
        let y0 = frame.top + frame.plotH - band
        for d in recognition.decisions {
            let middle = d.startNs + (d.endNs - d.startNs) / 2
            let x0 = frame.x(middle - 480_000_000)
            let x1 = max(frame.x(middle + 480_000_000), x0 + 0.5)
            let walking = d.probability >= enter
            let sureness = walking ? d.probability : 1 - d.probability
            out +=
                "<rect x=\"\(f(x0))\" y=\"\(f(y0))\" width=\"\(f(x1 - x0))\" height=\"\(f(band))\" fill=\"\(walking ? "#2ca02c" : "#ff7f0e")\" fill-opacity=\"\(String(format: "%.2f", 0.25 + 0.75 * sureness))\"><title>walking \(String(format: "%.2f", d.probability))</title></rect>"
        }
        return out + "\n"
    }

    static func axes(_ frame: Frame) -> String {
        var out = ""
        let durationSeconds = frame.spanNs * 1e-9
        let (unit, unitSeconds) =
            durationSeconds > 7200 ? ("h", 3600.0) : durationSeconds > 300 ? ("min", 60.0) : ("s", 1.0)
        let tickStep = niceStep(durationSeconds / unitSeconds / 10)
        var tick = 0.0
        while tick <= durationSeconds / unitSeconds + 1e-9 {
            let px = frame.left + tick * unitSeconds / durationSeconds * frame.plotW
            out +=
                "<line x1=\"\(f(px))\" y1=\"\(f(frame.top))\" x2=\"\(f(px))\" y2=\"\(f(frame.top + frame.plotH))\" stroke=\"#e4e4e4\"/>"
            out +=
                "<text x=\"\(f(px))\" y=\"\(f(frame.top + frame.plotH + 16))\" text-anchor=\"middle\">\(label(tick))</text>\n"
            tick += tickStep
        }
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
            "<text x=\"\(f(frame.left + frame.plotW / 2))\" y=\"\(f(Double(frame.height) - 8))\" text-anchor=\"middle\">time since the first sample (\(unit))</text>\n"
        out +=
            "<text x=\"16\" y=\"\(f(midY))\" text-anchor=\"middle\" transform=\"rotate(-90 16 \(f(midY)))\">|a| (m/s²)</text>\n"
        return out
    }

    /// The magnitude as a min/max band (a line when a bucket holds one sample).
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
        for i in envelope.lows.indices {
            if envelope.lows[i].isNaN {
                flush()
                continue
            }
            let px = frame.left + (Double(i) + 0.5) / Double(max(envelope.lows.count, 1)) * frame.plotW
            upper += (upper.isEmpty ? "" : " L") + "\(f(px)),\(f(frame.y(envelope.highs[i])))"
            lowerPoints.append("\(f(px)),\(f(frame.y(envelope.lows[i])))")
        }
        flush()
        return
            "<path d=\"\(segments.joined(separator: " "))\" fill=\"#3b6fb6\" fill-opacity=\"0.55\" stroke=\"#3b6fb6\" stroke-width=\"0.8\"/>\n"
    }

    /// A tick above the signal's peak at each step's time.
    static func stepTicks(_ times: [Int64], color: String, envelope: Envelope, frame: Frame) -> String {
        guard !times.isEmpty else { return "" }
        var ticks = ""
        for t in times {
            let peak =
                envelope.bucket(at: t).map { envelope.highs[$0] }.flatMap { $0.isNaN ? nil : $0 } ?? frame.highest
            ticks += "M\(f(frame.x(t))),\(f(frame.y(peak) - 3))v-8"
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

    static func renderReadings(title: String, result: RecordingCount, width: Int, height: Int) -> String {
        let left = 60.0
        let right = 30.0
        let top = 40.0
        let bottom = 45.0
        let plotW = Double(width) - left - right
        let plotH = Double(height) - top - bottom
        let first = result.readings.map(\.startNs).min() ?? 0
        let last = max(result.readings.map { max($0.endNs, $0.startNs + 1) }.max() ?? 1, first + 1)
        let minute: Int64 = 60_000_000_000
        let intervals: [(Int64, String)] = [
            (minute, "1 min"), (5 * minute, "5 min"), (15 * minute, "15 min"),
            (30 * minute, "30 min"), (60 * minute, "hour"), (360 * minute, "6 h"),
            (1440 * minute, "day"),
        ]
        let (bucketNs, bucketName) = intervals.first { (last - first + $0.0 - 1) / $0.0 <= 240 } ?? intervals.last!
        let origin = first / bucketNs * bucketNs
        let count = Int((last - origin + bucketNs - 1) / bucketNs)
        var bars = [Double](repeating: 0, count: max(count, 1))
        for r in result.readings {
            guard r.endNs > r.startNs else {
                bars[min(bars.count - 1, Int((r.startNs - origin) / bucketNs))] += Double(r.steps)
                continue
            }
            var lo = r.startNs
            while lo < r.endNs {
                let index = Int((lo - origin) / bucketNs)
                let hi = min(r.endNs, origin + Int64(index + 1) * bucketNs)
                bars[min(bars.count - 1, index)] += Double(r.steps) * Double(hi - lo) / Double(r.endNs - r.startNs)
                lo = hi
            }
        }
        let highest = max(bars.max() ?? 1, 1)
        let barW = plotW / Double(bars.count)
        let stepWord = result.steps == 1 ? "step" : "steps"
        var out = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(width)" height="\(height)" viewBox="0 0 \(width) \(height)" font-family="sans-serif" font-size="12">
            <rect width="100%" height="100%" fill="white"/>
            <text x="\(f(left))" y="22" font-size="15">\(escape(title)): \(result.steps) \(stepWord) in \(result.readings.count) readings, steps per \(bucketName)</text>

            """
        let valueStep = niceStep(highest / 6)
        var value = 0.0
        while value <= highest * 1.0001 {
            let py = top + plotH - value / highest * plotH
            out +=
                "<line x1=\"\(f(left))\" y1=\"\(f(py))\" x2=\"\(f(left + plotW))\" y2=\"\(f(py))\" stroke=\"#e4e4e4\"/>"
            out += "<text x=\"\(f(left - 6))\" y=\"\(f(py + 4))\" text-anchor=\"end\">\(label(value))</text>\n"
            value += valueStep
        }
        for (i, steps) in bars.enumerated() where steps > 0 {
            let h = steps / highest * plotH
            out +=
                "<rect x=\"\(f(left + Double(i) * barW))\" y=\"\(f(top + plotH - h))\" width=\"\(f(max(barW - 1, 0.5)))\" height=\"\(f(h))\" fill=\"#3b6fb6\"/>"
        }
        let start = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(origin) / 1e9))
        out +=
            "\n<text x=\"\(f(left + plotW / 2))\" y=\"\(f(Double(height) - 8))\" text-anchor=\"middle\">\(bars.count) \(bucketName) intervals from \(start)</text>\n"
        out +=
            "<text x=\"16\" y=\"\(f(top + plotH / 2))\" text-anchor=\"middle\" transform=\"rotate(-90 16 \(f(top + plotH / 2)))\">steps per \(bucketName)</text>\n"
        out +=
            "<rect x=\"\(f(left))\" y=\"\(f(top))\" width=\"\(f(plotW))\" height=\"\(f(plotH))\" fill=\"none\" stroke=\"#888\"/>\n</svg>\n"
        return out
    }

    /// 1, 2 or 5 times a power of ten, at least `raw`.
    static func niceStep(_ raw: Double) -> Double {
        guard raw > 0, raw.isFinite else { return 1 }
        let power = pow(10, (log10(raw)).rounded(.down))
        for m in [1.0, 2, 5, 10] where m * power >= raw { return m * power }
        return 10 * power
    }

    private static func label(_ v: Double) -> String {
        if abs(v - v.rounded()) < 1e-9 { return String(Int(v.rounded())) }
        return String(format: "%g", v)
    }

    private static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
