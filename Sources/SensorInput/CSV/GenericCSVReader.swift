import StepDetection

/// Reader for CSV files with a header row naming a time column (`t_ms`, `t_s`, `time`, `timestamp`, with units in the
/// name or in brackets) and either `x,y,z` or `magnitude` columns. Delimiter `,`, `;`, tab or spaces. Time in s, ms,
/// µs or ns, relative or since the epoch; values in m/s² or g, told apart from the data (|a| at rest ≈ 9.8 or ≈ 1).
/// When the delimiter is not `,` a decimal comma is accepted too (phyphox "Semicolon, decimal comma" exports).
public enum GenericCSVReader {
    public static let formatName = "generic-csv"

    /// Reads every sample of `path`.
    public static func read(
        path: String,
        options: ReadOptions = ReadOptions(),
        _ sink: (AccelerationSample) -> Void
    ) throws -> ReadSummary {
        try read(path: path, options: options, resume: nil, completeLinesOnly: false, sink).summary
    }

    /// What a later read needs to continue where this one stopped: the header, the units found, the position.
    public struct ResumeState: Sendable, Equatable, Codable {
        var header: String
        var scale: Scale?
        public var offset: Int64
        public var lineNumber: Int
        /// The delimiter a `sep=` line declared, nil when there was none.
        var separator: UInt8?
        /// Whether the time column is date-time text without an offset, and the last time delivered: a next read's
        /// first time that goes back into an hour the clocks repeat is its second pass, as within a read.
        var localTimes: Bool?
        var lastNs: Int64?
        /// The offset a device kept over a spring change, once a time in its gap was read (`HeldClock`).
        var heldClock: HeldClock?
    }

    /// Where a read is: what is known of the file and what has been delivered.
    struct ReadState {
        var summary: ReadSummary
        var layout: Layout?
        var headerText: String?
        var probe = UnitProbe()
        var lastNs: Int64?
        var offset: Int64
        var lastLine: Int
        var sawAnyLine: Bool
        /// Why the first line is not a header, while the second is tried (AndroSensor's title line).
        var titleError: InputError?
        /// The delimiter Excel's `sep=` line declared, and whether the line after the header may be a units row.
        var separator: UInt8?
        var unitsRowPending = false
        /// The zone of the time column when it is date-time text without an offset (nil: numbers, offsets, UTC).
        var localZone: ZoneOffsets?
        /// Rows read forward over a gap or into the second pass of a repeated hour, for the notes.
        var clockChanges = ClockChangeNotes()
        /// The offset the device kept over a spring change, and the lines of the first rows (read line by line) at
        /// times the zone skips.
        var held: HeldClock?
        var gapLines: Set<Int> = []
        /// A sample far ahead of the one before it, until the next tells a gap from a wrong time (`AheadHold`).
        var ahead: AheadHold?

        /// Delivers a sample held far ahead (a gap after all, or the read's end); `ahead` is the caller's.
        mutating func deliverHeld(
            _ held: AccelerationSample, batch: SampleBatchSink?, _ sink: (AccelerationSample) -> Void
        ) {
            var sample = held
            if let batch {
                withUnsafePointer(to: &sample) { batch(UnsafeBufferPointer(start: $0, count: 1)) }
            } else {
                sink(sample)
            }
            lastNs = sample.time.nanosecondsSinceEpoch
            summary.note(sampleAt: sample.time.nanosecondsSinceEpoch)
        }
    }

    /// Reads the samples after `resume` (from the start when nil). With `completeLinesOnly` a last line without a
    /// newline is left for the next read (a file another program is still writing).
    ///
    /// The header and the first rows (until the units are told) are read line by line; the rest goes in byte ranges
    /// of `options.chunkBytes` parsed on `options.jobs` threads and delivered in file order, so the samples, step
    /// times and error line numbers are the same whatever the number of jobs.
    public static func read(
        path: String,
        options: ReadOptions,
        resume: ResumeState?,
        completeLinesOnly: Bool,
        formatName: String = GenericCSVReader.formatName,
        source: LineSource = .file,
        batch: SampleBatchSink? = nil,
        _ sink: (AccelerationSample) -> Void
    ) throws -> (summary: ReadSummary, resume: ResumeState?) {
        var state = try resumedState(resume, path: path, options: options, formatName: formatName)
        var budget = ByteBudget(options.byteLimit)
        var handOff = true
        if state.layout == nil || state.probe.scale == nil {
            handOff = try readHead(
                path: path, options: options, completeLinesOnly: completeLinesOnly,
                formatName: formatName, source: source, budget: &budget, &state, sink)
        }
        if handOff, let layout = state.layout, let scale = state.probe.scale {
            try readChunks(
                path: path, options: options, completeLinesOnly: completeLinesOnly, source: source,
                layout: layout, scale: scale, byteBudget: budget.left, &state, batch: batch, sink)
        }
        guard state.sawAnyLine else { throw InputError(file: path, message: "file is empty") }
        guard let l = state.layout, let headerText = state.headerText else {
            if let e = state.titleError { throw e }
            if completeLinesOnly { return (state.summary, nil) }
            throw InputError(file: path, message: "file is empty")
        }
        if state.probe.scale == nil && !state.probe.rows.isEmpty {
            let scale = state.probe.decide(layout: l)
            for r in state.probe.rows { try deliver(r, scale: scale, &state, options, path, sink) }
        }
        if let held = state.ahead {
            state.ahead = nil
            state.deliverHeld(held.sample, batch: batch, sink)
        }
        return (
            finishedSummary(state, layout: l),
            ResumeState(
                header: headerText, scale: state.probe.scale, offset: state.offset,
                lineNumber: state.lastLine, separator: state.separator, localTimes: state.localZone != nil,
                lastNs: state.lastNs, heldClock: state.held)
        )
    }

    /// The state a read starts from: where `resume` left off (the header's layout made again from its text, the
    /// zone's table when the times are local), or the file's start.
    static func resumedState(
        _ resume: ResumeState?, path: String, options: ReadOptions, formatName: String
    ) throws -> ReadState {
        var state = ReadState(
            summary: ReadSummary(format: formatName), headerText: resume?.header,
            offset: resume?.offset ?? 0, lastLine: resume?.lineNumber ?? 0, sawAnyLine: resume != nil)
        state.probe.scale = resume?.scale
        state.separator = resume?.separator
        guard let h = resume?.header else { return state }
        let bytes = Array(h.utf8)
        state.layout = try bytes.withUnsafeBufferPointer {
            try makeLayout(
                $0.baseAddress!, bytes.count, 1, path: path, formatName: formatName, separator: state.separator)
        }
        state.layout?.zone = ZoneOffsets.converting(options.timeZone)
        if resume?.localTimes == true, let zone = state.layout?.zone {
            state.localZone = zone
            state.lastNs = resume?.lastNs
            state.held = resume?.heldClock
        }
        return state
    }

    /// The read's summary with what only its end knows: the clock changes met, a stated unit the rows contradicted,
    /// the unit used and whether the file has axes.
    static func finishedSummary(_ state: ReadState, layout l: Layout) -> ReadSummary {
        var summary = state.summary
        if let zone = state.localZone { summary.notes += state.clockChanges.notes(zone: zone.zone) }
        if let c = state.probe.contradicted, let used = state.probe.scale?.unit {
            summary.notes.append(
                UnitProbe.contradictionNote(stated: c.stated, used: used, median: c.median))
        }
        summary.unit = state.probe.scale?.unit ?? .metersPerSecondSquared
        summary.hasAxes = l.axes != nil
        return summary
    }

    /// Reads line by line from `state.offset` until the header is read and the units are told from the first rows.
    /// Returns whether the rest of the file is left to `readChunks` (false: the file, or what may be read, ended).
    static func readHead(
        path: String, options: ReadOptions, completeLinesOnly: Bool, formatName: String,
        source: LineSource, budget: inout ByteBudget, _ state: inout ReadState,
        _ sink: (AccelerationSample) -> Void
    ) throws -> Bool {
        let scratch = FieldScratch()
        let lineBase = state.lastLine
        var handOff = false
        state.offset = try source.forEachLine(path: path, startingAt: state.offset) { line, relative, complete in
            if state.layout != nil && state.probe.scale != nil {
                handOff = true
                return false
            }
            let number = lineBase + relative
            if completeLinesOnly && !complete { return false }
            if !budget.admit(line.count) { return false }
            state.lastLine = number
            guard let p = line.baseAddress, line.count > 0 else { return true }
            guard let l = state.layout else {
                try readHeaderLine(line, number: number, path: path, formatName: formatName, &state)
                state.layout?.zone = ZoneOffsets.converting(options.timeZone)
                return true
            }
            state.sawAnyLine = true
            if state.unitsRowPending {
                state.unitsRowPending = false
                if let stated = applyingUnitsRow(fields(p, line.count, l.delimiter), to: l) {
                    state.layout = stated
                    return true
                }
            }
            switch parseLine(p, line.count, l, number, scratch, path: path) {
            case .blank: return true
            case .bad(let e): try state.summary.skip(e, options: options)
            case .row(let row):
                if scratch.inGap { state.gapLines.insert(number) }
                if state.probe.rows.isEmpty, let hasOffset = dateTimeHasOffset(fields(p, line.count, l.delimiter), l) {
                    // Date-time text is read as ms since the epoch, however far apart the rows (a minute's spacing
                    // is not µs); without an offset, on the zone's clock.
                    state.layout?.timeUnitNs = 1e6
                    if !hasOffset, let zone = l.zone { state.localZone = zone }
                }
                state.probe.add((row.0, row.1, row.2, row.3, number))
                if state.probe.isFull {
                    let scale = state.probe.decide(layout: l)
                    for r in state.probe.rows { try deliver(r, scale: scale, &state, options, path, sink) }
                    state.probe.rows.removeAll()
                }
            }
            return true
        }
        state.clockChanges.add(scratch.clockChanges)
        return handOff
    }

    /// A line before the header is known: blank, Excel's `sep=` line (the delimiter), the header, or a title line
    /// above it (AndroSensor's: the next line may be the header).
    static func readHeaderLine(
        _ line: UnsafeBufferPointer<UInt8>, number: Int, path: String, formatName: String, _ state: inout ReadState
    ) throws {
        guard let p = line.baseAddress, !line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) else { return }
        if !state.sawAnyLine, let declared = SeparatorLine.delimiter(line) {
            state.sawAnyLine = true
            state.separator = declared
            return
        }
        state.sawAnyLine = true
        do {
            state.layout = try makeLayout(
                p, line.count, number, path: path, formatName: formatName, separator: state.separator)
        } catch let e as InputError where state.titleError == nil {
            state.titleError = e
            return
        } catch is InputError {
            throw state.titleError!  // neither is a header: what the first line lacks
        }
        state.headerText = String(decoding: line, as: UTF8.self)
        state.unitsRowPending = true
    }

    /// The layout a header line gives.
    static func makeLayout(
        _ p: UnsafePointer<UInt8>, _ count: Int, _ number: Int, path: String,
        formatName: String, separator: UInt8? = nil
    ) throws -> Layout {
        let delimiter = separator ?? detectDelimiter(UnsafeBufferPointer(start: p, count: count))
        let header = fields(p, count, delimiter)
        if header.allSatisfy({ NumberParsing.parseDouble(Array($0.utf8), 0, $0.utf8.count) != nil }) {
            throw InputError(
                file: path, line: number,
                message:
                    "no header row: the first line is numbers; expected a header naming a time column (t_ms, t_s, time) and x,y,z or magnitude"
            )
        }
        var found = try layout(header: header, delimiter: delimiter, file: path, line: number)
        // Sensor Logger writes m/s², except iOS's AccelerometerUncalibrated.csv, in g unless "Standardise Units &
        // Frames" was on: with gravity in it, its |a| tells which (the pushed payloads' rule).
        let name = path.split(separator: "/").last?.lowercased() ?? ""
        if formatName == "sensor-logger" && !name.contains("uncalibrated") {
            found.accelerationUnit = .metersPerSecondSquared
        }
        return found
    }

    /// The fields of one line split at `delimiter`, as text.
    static func fields(_ p: UnsafePointer<UInt8>, _ count: Int, _ delimiter: UInt8) -> [String] {
        let scratch = FieldScratch()
        let n = split(p, count, delimiter, scratch.starts, scratch.ends, FieldScratch.limit)
        return (0..<min(n, FieldScratch.limit)).map {
            String(
                decoding: UnsafeBufferPointer(
                    start: p + scratch.starts[$0], count: scratch.ends[$0] - scratch.starts[$0]),
                as: UTF8.self)
        }
    }

    /// Time, x, y, z (or magnitude, 0, 0) and line number of one row.
    typealias Row = (Double, Double, Double, Double, Int)

    /// Delivers one row of the file's first lines (read line by line) through the same conversion and checks as
    /// the chunked path.
    static func deliver(
        _ row: Row, scale: Scale, _ state: inout ReadState, _ options: ReadOptions, _ path: String,
        _ sink: (AccelerationSample) -> Void
    ) throws {
        let convert = SampleConversion(scale: scale, startNs: options.start?.nanosecondsSinceEpoch)
        let values = (row.0, row.1, row.2, row.3)
        guard var sample = convert.sample(values) else {
            let problem = convert.problem(values)
            try state.summary.skip(InputError(file: path, line: row.4, message: problem), options: options)
            return
        }
        sample.time.nanosecondsSinceEpoch = state.heldTime(
            sample.time.nanosecondsSinceEpoch, inGap: state.gapLines.contains(row.4))
        if let previous = state.lastNs,
            let second = state.secondPass(of: sample.time.nanosecondsSinceEpoch, after: previous)
        {
            sample.time.nanosecondsSinceEpoch = second
        }
        let judged = AheadHold.judge(sample, line: row.4, lastNs: state.lastNs, ahead: &state.ahead)
        if let held = judged.released { state.deliverHeld(held, batch: nil, sink) }
        if let d = judged.dropped {
            try state.summary.skip(InputError(file: path, line: d.line, message: d.message), options: options)
        }
        switch judged.verdict {
        case .backwards(let problem):
            try state.summary.skip(InputError(file: path, line: row.4, message: problem), options: options)
            return
        case .held: return
        case .deliver: break
        }
        let timeNs = sample.time.nanosecondsSinceEpoch
        state.lastNs = timeNs
        sink(sample)
        state.summary.note(sampleAt: sample.time.nanosecondsSinceEpoch)
        state.summary.absoluteTime = scale.absolute || options.start != nil
    }

    struct Scale: Sendable, Equatable, Codable {
        var timeNs: Double
        var absolute: Bool
        var unit: AccelerationUnit
    }

}

extension String {
    func trimmingCharacters(in set: String) -> String {
        var s = Substring(self)
        while let f = s.first, set.contains(f) { s.removeFirst() }
        while let l = s.last, set.contains(l) { s.removeLast() }
        return String(s)
    }
}
