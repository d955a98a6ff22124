#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import StepDetection

/// Reader for CSV files with a header row naming a time column (`t_ms`, `t_s`, `time`, `timestamp`, with units in the
/// name or in brackets) and either `x,y,z` or `magnitude` columns. Delimiter `,`, `;`, tab or spaces. Time in s, ms,
/// µs or ns, relative or since the epoch; values in m/s² or g, told apart from the data (|a| at rest ≈ 9.8 or ≈ 1).
/// When the delimiter is not `,` a decimal comma is accepted too (phyphox "Semicolon, decimal comma" exports).
public enum GenericCSVReader {
    public static let formatName = "generic-csv"

    /// Which columns hold what, found from the header.
    struct Layout: Sendable {
        var delimiter: UInt8  // 0 = runs of spaces
        var fieldCount: Int
        var time: Int
        var timeUnitNs: Double?  // nil: infer from the data
        var axes: (Int, Int, Int)?
        var magnitude: Int?
        /// The acceleration unit the header states (`[g]`, `(m/s^2)`, `gFx`), nil: told from the data.
        var accelerationUnit: AccelerationUnit?

        /// Columns of the one-pass fast path (comma-separated, three axes or a magnitude), or nil.
        var plainColumns: (time: Int, a: Int, b: Int, c: Int)? {
            guard delimiter == 0x2C else { return nil }
            if let (x, y, z) = axes { return (time, x, y, z) }
            if let m = magnitude { return (time, m, -1, -1) }
            return nil
        }
    }

    /// One comma-separated field of the plainest kind, `-12.345` or `1763686800123456789`, parsed from `i`, which is
    /// left on the byte after it. Nil for anything else: the general path then reads the line. No bounds checks: the
    /// caller guarantees a newline after the field. The value is the one `NumberParsing.parseDouble` gives (the same
    /// exact mantissa and one correctly rounded division).
    @inline(__always)
    static func plainField(_ p: UnsafePointer<UInt8>, _ i: inout Int) -> Double? {
        var j = i
        let negative = p[j] == 0x2D
        if negative { j += 1 }
        var mantissa: UInt64 = 0
        let digitsStart = j
        while true { let d = p[j] &- 0x30; if d > 9 { break }; mantissa = mantissa &* 10 &+ UInt64(d); j += 1 }
        var digits = j - digitsStart
        var fraction = 0
        if p[j] == 0x2E {
            j += 1
            let fractionStart = j
            while true { let d = p[j] &- 0x30; if d > 9 { break }; mantissa = mantissa &* 10 &+ UInt64(d); j += 1 }
            fraction = j - fractionStart
            digits += fraction
        }
        // Up to 15 digits with a fraction (Clinger's exact fast path), or an integer of up to 19 (epoch ns: one
        // correctly rounded conversion); anything longer goes to the general path.
        guard digits > 0, digits <= (fraction > 0 ? 15 : 19) else { return nil }
        i = j
        var value = Double(mantissa)
        if fraction > 0 { value /= NumberParsing.exactPowerOfTen(fraction) }
        return negative ? -value : value
    }

    /// A whole comma-separated row of plain fields in one pass from `i` (a line start), leaving `i` after its
    /// newline (`\n` or `\r\n`); nil when any field is not plain or the field count differs (the general path then
    /// reads the line and says what is wrong). The line must end with a newline inside the buffer (a sentinel).
    @inline(__always)
    static func plainRow(_ p: UnsafePointer<UInt8>, _ i: inout Int, _ fieldCount: Int,
                         _ columns: (time: Int, a: Int, b: Int, c: Int)) -> (Double, Double, Double, Double)? {
        var j = i
        if fieldCount == 4 && columns == (0, 1, 2, 3) {
            // The most common layout, `t,x,y,z`, without the column bookkeeping.
            guard let t = plainField(p, &j), p[j] == 0x2C else { return nil }
            j += 1
            guard let a = plainField(p, &j), p[j] == 0x2C else { return nil }
            j += 1
            guard let b = plainField(p, &j), p[j] == 0x2C else { return nil }
            j += 1
            guard let c = plainField(p, &j) else { return nil }
            if p[j] == 0x0D { j += 1 }
            guard p[j] == 0x0A else { return nil }
            i = j + 1
            return (t, a, b, c)
        }
        var t = 0.0, a = 0.0, b = 0.0, c = 0.0
        var column = 0
        while true {
            if column == columns.time {
                guard let v = plainField(p, &j) else { return nil }
                t = v
            } else if column == columns.a {
                guard let v = plainField(p, &j) else { return nil }
                a = v
            } else if column == columns.b {
                guard let v = plainField(p, &j) else { return nil }
                b = v
            } else if column == columns.c {
                guard let v = plainField(p, &j) else { return nil }
                c = v
            } else {
                while p[j] != 0x2C && p[j] != 0x0A { j += 1 }
            }
            column += 1
            if column == fieldCount { break }
            guard p[j] == 0x2C else { return nil }
            j += 1
        }
        if p[j] == 0x0D { j += 1 }
        guard p[j] == 0x0A else { return nil }
        i = j + 1
        return (t, a, b, c)
    }

    static func normalize(_ raw: String) -> (name: String, unit: String?) {
        var s = raw.trimmingCharacters(in: " \t\"'").lowercased()
        var unit: String?
        for (open, close) in [("(", ")"), ("[", "]"), ("{", "}")] {
            if let o = s.firstIndex(of: Character(open)), let c = s[o...].firstIndex(of: Character(close)) {
                unit = String(s[s.index(after: o)..<c]).trimmingCharacters(in: " ")
                s.removeSubrange(o...c)
            }
        }
        return (s.trimmingCharacters(in: " _-"), unit)
    }

    static func timeUnit(name: String, unit: String?) -> Double?? {
        let units: [(String, Double)] = [("ns", 1), ("us", 1e3), ("µs", 1e3), ("ms", 1e6), ("s", 1e9), ("sec", 1e9)]
        if let unit, let u = units.first(where: { $0.0 == unit }) { return .some(u.1) }
        let timeNames = ["t", "time", "timestamp", "ts", "seconds", "elapsed", "seconds_elapsed", "time_since_start"]
        if timeNames.contains(name) { return .some(name == "seconds" || name == "seconds_elapsed" ? 1e9 : nil) }
        for prefix in ["t_", "time_", "timestamp_", "ts_", "t", "time"] where name.hasPrefix(prefix) {
            let rest = String(name.dropFirst(prefix.count))
            if let u = units.first(where: { $0.0 == rest }) { return .some(u.1) }
        }
        return nil
    }

    static func layout(header: [String], delimiter: UInt8, file: String) throws -> Layout {
        let cols = header.map(normalize)
        var time: Int?
        var timeUnit: Double?
        for (i, c) in cols.enumerated() {
            if let u = self.timeUnit(name: c.name, unit: c.unit) { time = i; timeUnit = u; break }
        }
        guard let time else {
            throw InputError(file: file, line: 1, message:
                "no time column in the header (expected a column named t_ms, t_s, time or timestamp); found: "
                + header.map { $0.trimmingCharacters(in: " \"") }.joined(separator: ", "))
        }
        func find(_ names: [String]) -> Int? {
            if let exact = cols.firstIndex(where: { names.contains($0.name) }) { return exact }
            // "Linear Acceleration x", "acc-x", "Accelerometer_X": an acceleration name ending in the axis letter.
            guard let axis = names.first, axis.count == 1 else { return nil }
            return cols.firstIndex { c in
                c.name.contains("acc") && [" ", "_", "-", "."].contains { c.name.hasSuffix($0 + axis) }
            }
        }
        let x = find(["x", "ax", "acc_x", "accel_x", "accx", "acceleration x", "accelerometer x", "gfx"])
        let y = find(["y", "ay", "acc_y", "accel_y", "accy", "acceleration y", "accelerometer y", "gfy"])
        let z = find(["z", "az", "acc_z", "accel_z", "accz", "acceleration z", "accelerometer z", "gfz"])
        let m = find(["magnitude", "mag", "norm", "total", "abs", "absolute acceleration", "|a|", "tgf", "at"])
        var layout = Layout(delimiter: delimiter, fieldCount: header.count, time: time, timeUnitNs: timeUnit)
        if let column = x ?? m {
            let c = cols[column]
            let unit = (c.unit ?? "").replacingOccurrences(of: " ", with: "")
            if unit == "g" || c.name.hasPrefix("gf") {
                layout.accelerationUnit = .g
            } else if unit.hasPrefix("m/s") || unit.hasPrefix("ms^-2") || unit.hasPrefix("ms-2") {
                layout.accelerationUnit = .metersPerSecondSquared
            }
        }
        if let x, let y, let z {
            layout.axes = (x, y, z)
        } else if let m {
            layout.magnitude = m
        } else {
            throw InputError(file: file, line: 1, message:
                "no acceleration columns in the header (expected x, y, z or magnitude); found: "
                + header.map { $0.trimmingCharacters(in: " \"") }.joined(separator: ", "))
        }
        return layout
    }

    static func detectDelimiter(_ line: UnsafeBufferPointer<UInt8>) -> UInt8 {
        var counts: [UInt8: Int] = [0x2C: 0, 0x3B: 0, 0x09: 0]
        for b in line where counts[b] != nil { counts[b]! += 1 }
        let best = counts.max { a, b in a.value < b.value || (a.value == b.value && a.key > b.key) }!
        return best.value > 0 ? best.key : 0
    }

    /// Splits `line` into field boundaries, writing at most `limit` (start, end) pairs; returns the field count.
    @inline(__always)
    static func split(_ p: UnsafePointer<UInt8>, _ count: Int, _ delimiter: UInt8,
                      _ starts: UnsafeMutablePointer<Int>, _ ends: UnsafeMutablePointer<Int>, _ limit: Int) -> Int {
        var n = 0
        var i = 0
        if delimiter == 0 {
            while i < count {
                while i < count && (p[i] == 0x20 || p[i] == 0x09) { i += 1 }
                if i >= count { break }
                let s = i
                while i < count && p[i] != 0x20 && p[i] != 0x09 { i += 1 }
                if n < limit { starts[n] = s; ends[n] = i }
                n += 1
            }
            return n
        }
        var s = 0
        while i < count {
            if p[i] == delimiter {
                if n < limit { starts[n] = s; ends[n] = i }
                n += 1
                s = i + 1
            }
            i += 1
        }
        if n < limit { starts[n] = s; ends[n] = count }
        return n + 1
    }

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
    }

    /// Where a read is: what is known of the file and what has been delivered.
    struct Progress {
        var summary: ReadSummary
        var layout: Layout?
        var headerText: String?
        var probe = UnitProbe()
        var lastNs: Int64?
        var offset: Int64
        var lastLine: Int
        var sawAnyLine: Bool
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
        _ sink: (AccelerationSample) -> Void
    ) throws -> (summary: ReadSummary, resume: ResumeState?) {
        var state = Progress(summary: ReadSummary(format: formatName), headerText: resume?.header,
                             offset: resume?.offset ?? 0, lastLine: resume?.lineNumber ?? 0, sawAnyLine: resume != nil)
        state.probe.scale = resume?.scale
        if let h = resume?.header {
            let bytes = Array(h.utf8)
            state.layout = try bytes.withUnsafeBufferPointer {
                try makeLayout($0.baseAddress!, bytes.count, 1, path: path, formatName: formatName)
            }
        }
        var budget = ByteBudget(options.byteLimit)
        var handOff = true
        if state.layout == nil || state.probe.scale == nil {
            handOff = try readHead(path: path, options: options, completeLinesOnly: completeLinesOnly,
                                   formatName: formatName, source: source, budget: &budget, &state, sink)
        }
        if handOff, let layout = state.layout, let scale = state.probe.scale {
            try readChunks(path: path, options: options, completeLinesOnly: completeLinesOnly, source: source,
                           layout: layout, scale: scale, byteBudget: budget.left, &state, sink)
        }
        guard state.sawAnyLine else { throw InputError(file: path, message: "file is empty") }
        guard let l = state.layout, let headerText = state.headerText else {
            if completeLinesOnly { return (state.summary, nil) }
            throw InputError(file: path, message: "file is empty")
        }
        if state.probe.scale == nil && !state.probe.rows.isEmpty {
            let scale = state.probe.decide(timeUnitNs: l.timeUnitNs, unit: l.accelerationUnit)
            for r in state.probe.rows { try deliver(r, scale: scale, &state.summary, &state.lastNs, options, path, sink) }
        }
        var summary = state.summary
        summary.unit = state.probe.scale?.unit ?? .metersPerSecondSquared
        summary.hasAxes = l.axes != nil
        return (summary, ResumeState(header: headerText, scale: state.probe.scale, offset: state.offset,
                                     lineNumber: state.lastLine))
    }

    /// Reads line by line from `state.offset` until the header is read and the units are told from the first rows.
    /// Returns whether the rest of the file is left to `readChunks` (false: the file, or what may be read, ended).
    static func readHead(path: String, options: ReadOptions, completeLinesOnly: Bool, formatName: String,
                         source: LineSource, budget: inout ByteBudget, _ state: inout Progress,
                         _ sink: (AccelerationSample) -> Void) throws -> Bool {
        let scratch = FieldScratch()
        let lineBase = state.lastLine
        var handOff = false
        state.offset = try source.forEachLine(path: path, startingAt: state.offset) { line, relative, complete in
            if state.layout != nil && state.probe.scale != nil { handOff = true; return false }
            let number = lineBase + relative
            if completeLinesOnly && !complete { return false }
            if !budget.admit(line.count) { return false }
            state.lastLine = number
            guard let p = line.baseAddress, line.count > 0 else { return true }
            guard let l = state.layout else {
                if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return true }
                state.sawAnyLine = true
                state.layout = try makeLayout(p, line.count, number, path: path, formatName: formatName)
                state.headerText = String(decoding: line, as: UTF8.self)
                return true
            }
            state.sawAnyLine = true
            switch parseLine(p, line.count, l, number, scratch, path: path) {
            case .blank: return true
            case .bad(let e): try state.summary.skip(e, options: options)
            case .row(let row):
                state.probe.add((row.0, row.1, row.2, row.3, number))
                if state.probe.isFull {
                    let scale = state.probe.decide(timeUnitNs: l.timeUnitNs, unit: l.accelerationUnit)
                    for r in state.probe.rows { try deliver(r, scale: scale, &state.summary, &state.lastNs, options, path, sink) }
                    state.probe.rows.removeAll()
                }
            }
            return true
        }
        return handOff
    }

    /// Reads the rest of the file from `state.offset` in byte ranges parsed on `options.jobs` threads, delivering
    /// samples and skipped lines in file order.
    static func readChunks(path: String, options: ReadOptions, completeLinesOnly: Bool, source: LineSource,
                           layout: Layout, scale: Scale, byteBudget: Int64?, _ state: inout Progress,
                           _ sink: (AccelerationSample) -> Void) throws {
        let bytes: ByteSource
        var fd: Int32 = -1
        defer { if fd >= 0 { close(fd) } }
        let size: Int64
        switch source {
        case .memory(let b):
            bytes = .memory(b)
            size = Int64(b.count)
        case .file:
            fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw InputError.unreadable(path, errno: errno) }
            var st = stat()
            guard fstat(fd, &st) == 0 else { throw InputError.unreadable(path, errno: errno) }
            bytes = .file(fd)
            size = Int64(st.st_size)
        }
        let limitEnd = min(size, byteBudget.map { state.offset + max(0, $0) } ?? size)
        let parser = CSVChunkParser(path: path, source: bytes, layout: layout, scale: scale, options: options,
                                    completeLinesOnly: completeLinesOnly, begin: state.offset, limitEnd: limitEnd,
                                    chunkBytes: Int64(max(1, options.chunkBytes)))
        var meter = ProgressMeter(total: limitEnd - state.offset, enabled: options.progress)
        defer { meter.finish() }
        let jobs = max(1, options.jobs)
        try Parallelism.ordered(parser.count, jobs: jobs, window: 2 * jobs, produce: parser.parse) { _, chunk in
            if let failure = chunk.failure { throw failure }
            try deliver(chunk, lineBase: state.lastLine, path: path, options: options, &state, sink)
            meter.advance(chunk.end - state.offset)
            state.offset = chunk.end
            state.lastLine += chunk.lineCount
            return !chunk.stops
        }
    }

    /// Delivers a parsed chunk's samples and skipped lines in line order, checking time order across chunks.
    static func deliver(_ chunk: ParsedChunk, lineBase: Int, path: String, options: ReadOptions, _ state: inout Progress,
                        _ sink: (AccelerationSample) -> Void) throws {
        var nextIssue = 0
        func skip(_ e: InputError) throws {
            var e = e
            e.line = e.line.map { lineBase + $0 }
            try state.summary.skip(e, options: options)
        }
        for (sample, line) in zip(chunk.samples, chunk.sampleLines) {
            while nextIssue < chunk.issues.count, chunk.issues[nextIssue].line ?? 0 < Int(line) {
                try skip(chunk.issues[nextIssue])
                nextIssue += 1
            }
            if let previous = state.lastNs, sample.timeNs < previous {
                try skip(InputError(file: path, line: Int(line),
                                    message: SampleCheck.orderProblem(sample.timeNs, previousNs: previous)!))
                continue
            }
            state.lastNs = sample.timeNs
            sink(sample)
            state.summary.note(sampleAt: sample.timeNs)
        }
        for e in chunk.issues[nextIssue...] { try skip(e) }
        state.summary.skippedLines += chunk.unreportedIssues
        if !chunk.samples.isEmpty { state.summary.absoluteTime = state.probe.scale?.absolute == true || options.startNs != nil }
    }

    /// Scratch space for splitting lines into fields, one per thread.
    final class FieldScratch {
        static let limit = 64
        let starts = UnsafeMutablePointer<Int>.allocate(capacity: limit)
        let ends = UnsafeMutablePointer<Int>.allocate(capacity: limit)
        deinit {
            starts.deallocate()
            ends.deallocate()
        }
    }

    /// The layout a header line gives.
    static func makeLayout(_ p: UnsafePointer<UInt8>, _ count: Int, _ number: Int, path: String,
                           formatName: String) throws -> Layout {
        let scratch = FieldScratch()
        let delimiter = detectDelimiter(UnsafeBufferPointer(start: p, count: count))
        let n = split(p, count, delimiter, scratch.starts, scratch.ends, FieldScratch.limit)
        let header = (0..<min(n, FieldScratch.limit)).map {
            String(decoding: UnsafeBufferPointer(start: p + scratch.starts[$0], count: scratch.ends[$0] - scratch.starts[$0]),
                   as: UTF8.self)
        }
        if header.allSatisfy({ NumberParsing.parseDouble(Array($0.utf8), 0, $0.utf8.count) != nil }) {
            throw InputError(file: path, line: number, message:
                "no header row: the first line is numbers; expected a header naming a time column (t_ms, t_s, time) and x,y,z or magnitude")
        }
        var found = try layout(header: header, delimiter: delimiter, file: path)
        if formatName == "sensor-logger" { found.accelerationUnit = .metersPerSecondSquared }  // always m/s²
        return found
    }

    /// What one data line holds.
    enum LineContent {
        case blank
        case row((Double, Double, Double, Double))
        case bad(InputError)
    }

    /// Reads one data line the general way: any delimiter, spaces, quotes, exponents, a decimal comma.
    static func parseLine(_ p: UnsafePointer<UInt8>, _ count: Int, _ l: Layout, _ number: Int, _ scratch: FieldScratch,
                          path: String) -> LineContent {
        var allBlank = true
        for k in 0..<count where p[k] != 0x20 && p[k] != 0x09 { allBlank = false; break }
        if allBlank { return .blank }
        let starts = scratch.starts, ends = scratch.ends
        let n = split(p, count, l.delimiter, starts, ends, FieldScratch.limit)
        if n < l.fieldCount && !(n == l.fieldCount - 1 && l.delimiter != 0 && p[count - 1] == l.delimiter) {
            return .bad(InputError(file: path, line: number, message: "expected \(l.fieldCount) fields, found \(n)"))
        }
        // A row one field short that ends in the delimiter: the missing fields are empty (never stale bounds).
        var missing = n
        while missing < min(l.fieldCount, FieldScratch.limit) { starts[missing] = 0; ends[missing] = 0; missing += 1 }
        let comma = l.delimiter != 0x2C
        let t = NumberParsing.parseDouble(p, starts[l.time], ends[l.time], decimalComma: comma)
        if let (xi, yi, zi) = l.axes {
            let x = NumberParsing.parseDouble(p, starts[xi], ends[xi], decimalComma: comma)
            let y = NumberParsing.parseDouble(p, starts[yi], ends[yi], decimalComma: comma)
            let z = NumberParsing.parseDouble(p, starts[zi], ends[zi], decimalComma: comma)
            guard let t, let x, let y, let z else {
                let bad = [(t, l.time, "time"), (x, xi, "x"), (y, yi, "y"), (z, zi, "z")].first { $0.0 == nil } ?? (t, l.time, "time")
                return .bad(badField(p, starts[bad.1], ends[bad.1], bad.2, path, number))
            }
            return .row((t, x, y, z))
        }
        guard let mi = l.magnitude else { return .blank }
        let m = NumberParsing.parseDouble(p, starts[mi], ends[mi], decimalComma: comma)
        guard let t, let m else {
            let (i, name) = t == nil ? (l.time, "time") : (mi, "magnitude")
            return .bad(badField(p, starts[i], ends[i], name, path, number))
        }
        return .row((t, m, 0, 0))
    }

    /// The error for a field that is not a number.
    @inline(never)
    static func badField(_ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int, _ name: String, _ path: String,
                         _ line: Int) -> InputError {
        let text = String(decoding: UnsafeBufferPointer(start: p + start, count: end - start), as: UTF8.self)
        return InputError(file: path, line: line, message: "\(name) is not a number: '\(text.prefix(40))'")
    }

    /// Time, x, y, z (or magnitude, 0, 0) and line number of one row.
    typealias Row = (Double, Double, Double, Double, Int)

    /// Delivers one row of the file's first lines (read line by line) through the same conversion and checks as
    /// the chunked path.
    static func deliver(_ row: Row, scale: Scale, _ summary: inout ReadSummary, _ lastNs: inout Int64?,
                        _ options: ReadOptions, _ path: String, _ sink: (AccelerationSample) -> Void) throws {
        let convert = SampleConversion(scale: scale, startNs: options.startNs)
        let values = (row.0, row.1, row.2, row.3)
        guard let sample = convert.sample(values) else {
            try summary.skip(InputError(file: path, line: row.4, message: convert.problem(values)), options: options)
            return
        }
        if let problem = SampleCheck.orderProblem(sample.timeNs, previousNs: lastNs) {
            try summary.skip(InputError(file: path, line: row.4, message: problem), options: options)
            return
        }
        lastNs = sample.timeNs
        sink(sample)
        summary.note(sampleAt: sample.timeNs)
        summary.absoluteTime = scale.absolute || options.startNs != nil
    }

    struct Scale: Sendable, Equatable, Codable {
        var timeNs: Double
        var absolute: Bool
        var unit: AccelerationUnit
    }

    /// Holds the first rows of a file until the time and acceleration units can be told from them.
    struct UnitProbe {
        var rows: [Row] = []
        var scale: Scale?
        var isFull: Bool { rows.count >= 256 }

        mutating func add(_ row: Row) { rows.append(row) }

        mutating func decide(timeUnitNs: Double?, unit stated: AccelerationUnit? = nil) -> Scale {
            let mags = rows.map { ($0.1 * $0.1 + $0.2 * $0.2 + $0.3 * $0.3).squareRoot() }.filter(\.isFinite).sorted()
            let median = mags.isEmpty ? standardGravity : mags[mags.count / 2]
            // Told from the data only when the header does not say: with gravity |a| ≈ 1 g or ≈ 9.8 m/s².
            let unit: AccelerationUnit = stated ?? (median < 3.5 ? .g : .metersPerSecondSquared)
            let first = rows.first?.0 ?? 0
            var unitNs = timeUnitNs
            if unitNs == nil {
                // Epoch magnitudes first, then the typical step between samples for relative times.
                let a = abs(first)
                if a > 1e17 { unitNs = 1 } else if a > 1e14 { unitNs = 1e3 } else if a > 1e11 { unitNs = 1e6 } else if a > 1e8 { unitNs = 1e9 } else {
                    var deltas = zip(rows.dropFirst(), rows).map { $0.0 - $1.0 }.filter { $0 > 0 }
                    deltas.sort()
                    let d = deltas.isEmpty ? 0.01 : deltas[deltas.count / 2]
                    unitNs = d >= 1e4 ? 1 : d >= 10 ? 1e3 : d >= 0.2 ? 1e6 : 1e9
                }
            }
            let absolute = abs(first) * (unitNs ?? 1e9) > 1e17  // after ~1973: a wall-clock time
            let decided = Scale(timeNs: unitNs ?? 1e9, absolute: absolute, unit: unit)
            scale = decided
            return decided
        }
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
