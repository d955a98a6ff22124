import StepDetection
import WallTime

/// phyphox's `meta/time.csv`, beside `Raw Data.csv` in an export (zip or folder): when the experiment ran, in
/// wall-clock time. `"event","experiment time","system time","system time text"`, a row per `START` and `PAUSE`:
/// `"START",0.0,1.705472086068796E9,"2024-01-17 08:14:46.069 UTC+02:00"`. `system time` is seconds since the epoch
/// (UTC, whatever the phone's zone); the text is the phone's local time with its offset, read only when the number is
/// not. Experiment time stops during a pause, so a sample at experiment time t is at the system time of the last
/// `START` at or before t plus the time since it. Columns by name; the export's flavours (`,`, tab, or `;` with
/// decimal commas) all read. `--start` (`ReadOptions.startNs`) wins over the file.
struct PhyphoxTime {
    /// One `START`: its experiment time and system time (ns).
    struct Start: Equatable {
        var experimentNs: Int64
        var systemNs: Int64
        /// What to add to an experiment time after this start.
        var offsetNs: Int64 { systemNs &- experimentNs }
    }

    var starts: [Start] = []

    /// The wall-clock time (ns) of experiment time `t` (ns).
    func wallClock(_ t: Int64) -> Int64 {
        var k = 0
        while k + 1 < starts.count, starts[k + 1].experimentNs <= t { k += 1 }
        return t &+ starts[k].offsetNs
    }

    /// Reads `meta/time.csv` at `path`; a bad row is skipped into `summary` (`file:line: what`).
    static func parse(path: String, source: LineSource, options: ReadOptions, summary: inout ReadSummary) throws
        -> PhyphoxTime
    {
        var time = PhyphoxTime()
        var columns: (event: Int, experiment: Int, system: Int, text: Int?)?
        var delimiter = UInt8(ascii: ",")
        _ = try source.forEachLine(path: path) { line, number, _ in
            guard line.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) else { return true }
            guard let c = columns else {
                delimiter = [UInt8(ascii: ";"), 0x09].first(where: line.contains) ?? delimiter
                let names = Fields.split(line, Character(UnicodeScalar(delimiter))).map {
                    String($0).trimmingCharacters(in: " \t\r\"\u{FEFF}").lowercased()
                }
                guard let e = names.firstIndex(of: "event"), let x = names.firstIndex(of: "experiment time"),
                    let s = names.firstIndex(of: "system time")
                else {
                    throw InputError(
                        file: path, line: number,
                        message: "not phyphox's time.csv: expected the columns event, experiment time and system "
                            + "time; found: \(names.joined(separator: ", "))")
                }
                columns = (e, x, s, names.firstIndex(of: "system time text"))
                return true
            }
            let row = FieldRow(line, delimiter)
            guard row.count > max(c.event, c.experiment, c.system) else {
                try summary.skip(
                    InputError(file: path, line: number, message: "\(row.count) fields, expected at least 3"),
                    options: options)
                return true
            }
            guard row[c.event].uppercased() == "START" else { return true }  // PAUSE: the next START says it all
            switch start(row, c, decimalComma: delimiter != UInt8(ascii: ",")) {
            case .success(let s): time.starts.append(s)
            case .failure(let problem):
                try summary.skip(InputError(file: path, line: number, message: problem.message), options: options)
            }
            return true
        }
        time.starts.sort { $0.experimentNs < $1.experimentNs }
        return time
    }

    /// The `START` of `row`: its experiment time, and its system time from the number, else from the text.
    static func start(
        _ row: FieldRow, _ c: (event: Int, experiment: Int, system: Int, text: Int?), decimalComma: Bool
    ) -> Result<Start, RowProblem> {
        // Exact decimals (a float64 would move the start by a few hundred ns): microseconds, as phyphox keeps them.
        func ns(_ i: Int) -> Int64? {
            let text = String(row[i])
            let micro = DecimalText.microunits(decimalComma ? text.replacingOccurrences(of: ",", with: ".") : text)
            return micro.flatMap { $0 < Int64.max / 1000 ? $0 * 1000 : nil }
        }
        guard let experimentNs = ns(c.experiment), experimentNs < 1_000_000_000 * 1_000_000_000 else {
            return .failure(RowProblem("experiment time '\(row[c.experiment])' is not a time in seconds"))
        }
        var systemNs = ns(c.system)
        if let s = systemNs, !(946_684_800 * 1_000_000_000...4_102_444_800 * 1_000_000_000).contains(s) {
            systemNs = nil  // not between 2000 and 2100
        }
        if systemNs == nil, let t = c.text, t < row.count {
            // "2024-01-17 08:14:46.069 UTC+02:00": the phone's local time and its offset.
            let text = row[t].replacingOccurrences(of: " UTC", with: "")
            if let parsed = TimeParsing.parseDateTime(Substring(text)), parsed.hadZone { systemNs = parsed.ns }
        }
        guard let systemNs else {
            return .failure(RowProblem("system time '\(row[c.system])' is not a time since 1970 in seconds"))
        }
        return .success(Start(experimentNs: experimentNs, systemNs: systemNs))
    }

    /// Reads phyphox's `Raw Data.csv` (`r`) at the wall-clock times `time` (`meta/time.csv`) gives. Without a usable
    /// `START` the times stay relative, and one skipped line says so.
    static func read(
        _ r: ResolvedInput, time: (path: String, source: LineSource), options: ReadOptions,
        batch: SampleBatchSink?, _ sink: (InputItem) -> Void
    ) throws -> ReadSummary {
        var notes = ReadSummary(format: r.format.name)
        let map = try parse(path: time.path, source: time.source, options: options, summary: &notes)
        guard let first = map.starts.first else {
            try notes.skip(
                InputError(file: time.path, message: "no START row with a system time: the times stay relative"),
                options: options)
            var summary = try InputFormats.read(
                path: r.path, format: r.format, options: options, source: r.source, batch: batch, sink)
            summary.skippedLines += notes.skippedLines
            summary.issues = Array((notes.issues + summary.issues).prefix(options.maxReportedIssues))
            return summary
        }
        var anchored = options
        anchored.start = Instant(nanosecondsSinceEpoch: first.offsetNs)
        var summary: ReadSummary
        if map.starts.count == 1 {
            summary = try InputFormats.read(
                path: r.path, format: r.format, options: anchored, source: r.source, batch: batch, sink)
        } else {
            // After a pause: the samples are placed on the first START's clock, then moved by the pauses before them.
            let shifted = { (t: Int64) in map.wallClock(t &- first.offsetNs) }
            var moved: [AccelerationSample] = []
            let shiftBatch: SampleBatchSink? = batch.map { batch in
                { run in
                    moved.removeAll(keepingCapacity: true)
                    moved.append(contentsOf: run)
                    for k in moved.indices {
                        moved[k].time.nanosecondsSinceEpoch = shifted(moved[k].time.nanosecondsSinceEpoch)
                    }
                    moved.withUnsafeBufferPointer { batch($0) }
                }
            }
            summary = try InputFormats.read(
                path: r.path, format: r.format, options: anchored, source: r.source, batch: shiftBatch
            ) { item in
                guard case .sample(var s) = item else { return sink(item) }
                s.time.nanosecondsSinceEpoch = shifted(s.time.nanosecondsSinceEpoch)
                sink(.sample(s))
            }
            summary.first = summary.first.map { Instant(nanosecondsSinceEpoch: shifted($0.nanosecondsSinceEpoch)) }
            summary.last = summary.last.map { Instant(nanosecondsSinceEpoch: shifted($0.nanosecondsSinceEpoch)) }
        }
        summary.skippedLines += notes.skippedLines
        summary.issues = Array((notes.issues + summary.issues).prefix(options.maxReportedIssues))
        return summary
    }
}
