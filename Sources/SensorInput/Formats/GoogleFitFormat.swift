import Foundation

/// Google Fit from Google Takeout: the `All Data/derived_com.google.step_count.delta_*.json` streams (one JSON file,
/// or a Takeout/Fit folder), and the `Daily activity metrics` CSVs (see `GoogleFitCSV.swift`).
///
/// Several streams hold the same steps (`estimated_steps`, `merge_step_deltas`, one `derive_step_deltas` per
/// device): one stream is read — `estimated_steps`, else `merge_step_deltas`, else the stream with most steps —
/// never their sum; the stream is named by the `"Data Source"` inside the file (file names are cut short), its
/// `name(1).json`, `name(2).json` parts merged and a point with the same start and end counted once (the larger
/// count). Times are nanosecond integers
/// above 2^53, read exactly. A folder without these files is read from its per-day 15-minute CSVs, else from the
/// daily summary CSV. Follow mode delivers points ending after the last one delivered. A file cut short keeps its
/// complete points and is reported where it ends (`JSONTree.parseCutShort`).
enum GoogleFitFormats: WholeReader {
    static let allData = InputFormat(
        name: "google-fit", kind: .steps,
        about: "Google Fit Takeout: All Data step_count.delta JSON (one stream, estimated_steps first), file or folder",
        sniff: { s in s.head.contains("\"Data Source\"") && s.head.contains("\"Data Points\"") ? 95 : 0 },
        whole: GoogleFitFormats.self)

    struct State: Codable {
        /// End (ns) of the last point delivered.
        var deliveredUpToNs: Int64 = Int64.min
    }

    /// A stream's name and its points.
    struct Stream {
        var source: String
        var readings: [StepReading]
        var files: [String]
    }

    static func sniffDirectory(_ files: [String]) -> Int {
        files.contains {
            $0.contains("step_count.delta") || $0.contains("Daily activity metrics") || $0.contains("Daily Summaries")
        } ? 85 : 0
    }

    static func read(_ input: WholeInput, state data: Data?, report: inout WholeReport) throws -> Data? {
        var state = report.savedState(State.self, from: data) ?? State()
        var readings: [StepReading] = []
        if input.isDirectory {
            readings = try folder(input.path, report: &report)
        } else if let stream = try stream(bytes: input.bytes(), path: input.path, report: &report) {
            readings = stream.readings
        }
        // A point repeated in another part (same start and end) counts once: the larger count, a revision's.
        readings.sort { ($0.startNs, $0.endNs, $1.steps) < ($1.startNs, $1.endNs, $0.steps) }
        var last: StepReading?
        for r in readings where r.endNs > state.deliveredUpToNs {
            if let l = last, l.startNs == r.startNs, l.endNs == r.endNs { continue }
            report.emit(r)
            last = r
        }
        if let end = readings.map(\.endNs).max() { state.deliveredUpToNs = max(state.deliveredUpToNs, end) }
        return try JSONEncoder().encode(state)
    }

    /// The step points of one All Data JSON file; nil (and a problem) when it is not one.
    static func stream(bytes: [UInt8], path: String, report: inout WholeReport) throws -> Stream? {
        // A file cut short (a partial download) keeps the points complete before the end, and says where it ends.
        let tree: JSONTree
        let cut: JSONTree.ParseError?
        do { (tree, cut) = try JSONTree.parseCutShort(bytes) } catch let e as JSONTree.ParseError {
            try report.problem(InputError(file: path, message: "not valid JSON at byte \(e.offset): \(e.reason)"))
            return nil
        }
        func reportCut(kept: Int) throws {
            guard let cut else { return }
            let line = bytes.prefix(cut.offset).reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
            try report.problem(
                InputError(
                    file: path, line: line,
                    message: "the file ends early, at byte \(cut.offset) (JSON cut short): kept the "
                        + (kept == 1 ? "1 data point" : "\(kept) data points") + " before it"))
        }
        guard let source = tree["Data Source"]?.string, let points = tree["Data Points"] else {
            if cut != nil {
                try reportCut(kept: 0)
                return nil
            }
            try report.problem(
                InputError(
                    file: path, message: "not a Google Fit All Data file (no \"Data Source\" and \"Data Points\")"))
            return nil
        }
        var out = Stream(source: source, readings: [], files: [path])
        var otherType: String?
        for (k, p) in points.items.enumerated() {
            if let type = p["dataTypeName"]?.string, type != "com.google.step_count.delta" {
                otherType = otherType ?? type
                continue
            }
            let value = p["fitValue"]?[0]?["value"]
            let steps = value?["intVal"]?.int64 ?? value?["fpVal"]?.double.flatMap { Int64(exactly: $0.rounded()) }
            guard let start = p["startTimeNanos"]?.int64, let end = p["endTimeNanos"]?.int64, let steps,
                end >= start, steps >= 0, steps < 1_000_000
            else {
                try report.problem(
                    InputError(file: path, message: "data point \(k): no valid startTimeNanos, endTimeNanos and intVal")
                )
                continue
            }
            out.readings.append(StepReading(startNs: start, endNs: end, steps: Int(steps)))
        }
        try reportCut(kept: points.items.count)
        // Another All Data file (distance, calories, the raw cumulative counter) has the same shape: say why it gave
        // no steps rather than count 0.
        if out.readings.isEmpty, otherType != nil || !source.contains("step_count.delta") {
            try report.problem(
                InputError(
                    file: path,
                    message: "holds \(otherType ?? source), not com.google.step_count.delta: no steps read "
                        + "(use All Data/derived_com.google.step_count.delta_*.json or the Takeout folder)"))
        }
        return out
    }

    /// The preferred stream of a Takeout folder, or its CSVs when it has no step JSON.
    static func folder(_ path: String, report: inout WholeReport) throws -> [StepReading] {
        let files = WholeInput.files(under: path, depth: 5)
        var streams: [String: Stream] = [:]
        for f in files where f.hasSuffix(".json") && f.contains("step_count.delta") {
            guard let s = try stream(bytes: WholeInput.bytes(of: f), path: f, report: &report) else { continue }
            streams[s.source, default: Stream(source: s.source, readings: [], files: [])].readings += s.readings
            streams[s.source]?.files += s.files
        }
        if let chosen = preferred(Array(streams.values)) { return chosen.readings }
        let days = files.filter { f in
            let name = f.split(separator: "/").last.map(String.init) ?? ""
            return name.hasSuffix(".csv") && GoogleFitCSV.date(fromFileName: name) != nil
        }
        let summaries = files.filter {
            $0.hasSuffix("Daily activity metrics.csv") || $0.hasSuffix("Daily Summaries.csv")
        }
        var out: [StepReading] = []
        for f in days.isEmpty ? summaries : days {
            let format = days.isEmpty ? GoogleFitCSV.dailySummary : GoogleFitCSV.intraday
            var options = report.options
            options.format = format.name
            let s = try InputFormats.read(path: f, format: format, options: options) {
                if case .reading(let r) = $0 { out.append(r) }
            }
            for issue in s.issues { try report.problem(issue) }
        }
        return out
    }

    /// `estimated_steps`, else `merge_step_deltas`, else the stream with most steps.
    static func preferred(_ streams: [Stream]) -> Stream? {
        if let s = streams.first(where: { $0.source.hasSuffix(":estimated_steps") }) { return s }
        if let s = streams.first(where: { $0.source.hasSuffix(":merge_step_deltas") }) { return s }
        return streams.max {
            ($0.readings.reduce(0) { $0 + $1.steps }, $1.source) < ($1.readings.reduce(0) { $0 + $1.steps }, $0.source)
        }
    }
}
