import Foundation
import StepDetection

/// An input with its format decided and, for an export (a zip or a folder), the file in it that is the recording:
/// what detection found, handed to the reader so that nothing is looked up twice (a zip's directory is read once).
struct ResolvedInput {
    var format: InputFormat
    /// The input as named: a file, a zip, a folder.
    var input: String
    /// What is read: the input itself, or the recording in an export (`export.zip:folder/file`, `folder/file`).
    var path: String
    var source: LineSource
    /// The export the recording is in, and its path there.
    var export: Export?
    var file: String?
}

/// The registry of formats (one file per format under `Formats/`), detection and dispatch.
public enum InputFormats {
    public static let all: [InputFormat] = [
        GadgetbridgeFormat.format, GarminFITFormat.format, GoogleFitFormats.allData, GoogleFitCSV.dailySummary,
        GoogleFitCSV.intraday, SamsungHealthCSV.steps, SamsungHealthCSV.daily, ZeppLifeCSV.minutes, ZeppLifeCSV.daily,
        AppleHealthFormat.format, FitbitStepsFormat.format, StepLogFormat.format,
        ActiGraphRawFormat.format, ActiGraphEpochFormat.format,
        SensorLoggerPedometerFormat.format, HeaderCSVFormats.sensorLogger, HeaderCSVFormats.phyphox, ShimmerCSV.format,
        HeaderCSVFormats.physicsToolbox, AxivityFormat.format, GENEActivFormat.format, WISDMFormat.format,
        OxfordFormat.format,
        UCIRawFormat.format, HeaderCSVFormats.generic,
    ]

    /// Folder forms of a format in `all` (Fitbit's `Physical Activity/` of `fitbit-steps`), by that format's name:
    /// found by a folder's files and read by their own whole reader, never named by `--format` (which reads a
    /// folder as its format's folder form).
    static let folderForm: [String: InputFormat] = ["fitbit-steps": FitbitTakeoutFolder.format]

    /// Names accepted by `--format`.
    public static var names: [String] { all.map(\.name) }

    /// The format named `name`, if any.
    public static func named(_ name: String) -> InputFormat? { all.first { $0.name == name.lowercased() } }

    /// Reads the first lines of `path` for detection.
    public static func sniff(path: String, source: LineSource = .file) throws -> Sniff {
        var lines: [String] = []
        var head: [UInt8] = []
        _ = try source.forEachLine(path: path, chunkSize: 64 * 1024) { line, _, _ in
            if head.count < 8192 {
                head += line.prefix(8192 - head.count)
                head.append(0x0A)
            }
            var blank = true
            for b in line where b != 0x20 && b != 0x09 {
                blank = false
                break
            }
            if !blank { lines.append(String(decoding: line.prefix(4096), as: UTF8.self)) }
            return lines.count < 12 && head.count < 8192
        }
        // Excel's `sep=` line names the delimiter: the formats are told by the header under it.
        let separator = lines.first.flatMap(SeparatorLine.delimiter)
        if separator != nil { lines.removeFirst() }
        let name = path.split(separator: "/").last.map(String.init) ?? path
        var sniff = Sniff(
            lines: lines, fileName: name, head: String(decoding: head, as: UTF8.self),
            magic: try source.head(path: path))
        sniff.separator = separator.map { Character(Unicode.Scalar($0)) }
        return sniff
    }

    /// The format `sniff` most likely is, nil when none fits.
    public static func detect(_ sniff: Sniff) -> InputFormat? {
        var best: (InputFormat, Int)?
        for f in all {
            let score = f.sniff(sniff)
            if score > 0 && score > (best?.1 ?? 0) { best = (f, score) }
        }
        return best?.0
    }

    /// The format to read `path` as: `options.format` when given, else the detected one.
    public static func resolve(path: String, options: ReadOptions, source: LineSource = .file) throws -> InputFormat {
        try resolveInput(path: path, options: options, source: source).format
    }

    /// The format of `path` and, for an export (a zip or a folder), the file in it that is the recording: the format
    /// named by `options.format`, else the one detected (a folder by its files, a zip's recording and any file by
    /// content). A recording's file outside an export still gets the files beside it that complete it
    /// (`Export.beside`). Whole readers (databases, FIT folders, Takeouts) open their zips and folders themselves.
    static func resolveInput(path: String, options: ReadOptions, source: LineSource = .file) throws -> ResolvedInput {
        let plain = { (f: InputFormat) in ResolvedInput(format: f, input: path, path: path, source: source) }
        let isFolder: Bool
        if case .file = source {
            let input = WholeInput(path: path)
            if let stream = input.stream {
                throw InputError(
                    file: path,
                    message: "\(stream), not a file: a recording is read twice (its format, then its samples); "
                        + "save it to a file first", kind: .unreadable)
            }
            isFolder = input.isDirectory
        } else {
            isFolder = false
        }
        if let name = options.format {
            guard let f = named(name) else {
                throw InputError(
                    file: path, message: "unknown format '\(name)'; known: \(names.joined(separator: ", "))")
            }
            guard f.whole == nil else { return plain(f) }
            if isFolder, let folder = folderForm[f.name] { return plain(folder) }
            guard let export = isFolder ? Export(folder: path) : try Export.zip(path: path, source: source) else {
                return Export.beside(plain(f))
            }
            return try export.resolved(export.recording(format: f.name), as: f)
        }
        if isFolder {
            let files = WholeInput.files(under: path)
            let scored = (all + folderForm.values).compactMap { f in f.whole.map { (f, $0.sniffDirectory(files)) } }
                .filter { $0.1 > 0 }
            if let best = scored.max(by: { $0.1 < $1.1 }) { return plain(best.0) }
            // A recording's folder (an unzipped export): the recording in it, told by content as in a zip.
            let export = Export(folder: path, files: files)
            let file = try export.recording(format: nil)
            let (p, member) = export.member(file)
            return export.resolved(file, as: try detect(path: p, sniff: sniff(path: p, source: member), source: member))
        }
        let s = try sniff(path: path, source: source)
        if ZipArchive.isZip(s.magic), let export = try Export.zip(path: path, source: source) {
            // A zip export: the format of the recording inside, told from its content.
            let file = try export.recording(format: nil)
            let (p, member) = export.member(file)
            return export.resolved(file, as: try detect(path: p, sniff: sniff(path: p, source: member), source: member))
        }
        return Export.beside(plain(try detect(path: path, sniff: s, source: source)))
    }

    /// The format `s` (the first lines and bytes of `path`) is, or the error saying why there is none.
    static func detect(path: String, sniff s: Sniff, source: LineSource) throws -> InputFormat {
        let found = s.magic.isEmpty ? nil : detect(s)
        if BinarySniff.isBinary(s.magic), found?.whole == nil {
            let size = source.size(path: path)
            throw InputError(
                file: path, message: "not a recording: \(BinarySniff.describe(s.magic)), \(BinarySniff.byteCount(size))"
            )
        }
        guard !s.lines.isEmpty || found != nil else { throw InputError(file: path, message: "file is empty") }
        // Lines are split at LF (a CR before it is dropped): a file whose lines end in CR alone (classic Mac, Excel
        // 2011's "CSV (Macintosh)") would be one line, misread as a header of every row.
        if found?.whole == nil, s.first.contains("\r") {
            throw InputError(
                file: path, line: 1,
                message:
                    "lines end in a carriage return alone (classic Mac line endings); convert them first, e.g. tr '\\r' '\\n' < IN > OUT"
            )
        }
        guard let f = found else {
            throw InputError(
                file: path, line: 1,
                message:
                    "unrecognised format (first line: '\(s.first.prefix(60))'); pass --format with one of \(names.joined(separator: ", "))"
            )
        }
        return f
    }

    /// Reads all of `path` as `format`.
    static func read(
        path: String, format: InputFormat, options: ReadOptions, source: LineSource = .file,
        batch: SampleBatchSink? = nil, _ sink: (InputItem) -> Void
    ) throws -> ReadSummary {
        try read(
            path: path, format: format, options: options, state: nil, completeLinesOnly: false, source: source,
            batch: batch, sink
        ).summary
    }

    /// Where one read stopped, so the next can go on from there.
    struct Resume {
        var offset: Int64
        var lineNumber: Int
        var state: Data?
        var generic: GenericCSVReader.ResumeState?
    }

    static func read(
        path: String, format: InputFormat, options: ReadOptions, state: Resume?, completeLinesOnly: Bool,
        source: LineSource = .file, batch: SampleBatchSink? = nil,
        _ sink: (InputItem) -> Void
    ) throws -> (summary: ReadSummary, resume: Resume?) {
        if format.whole == nil, let export = try Export.zip(path: path, source: source) {
            let file = try export.recording(format: format.name)
            // Follow mode would keep offsets into the inflated entry under the zip's identity and size.
            guard state == nil, !completeLinesOnly else {
                throw InputError(
                    file: path, message: "a zip is read whole, not followed: unzip \(file) and follow that file")
            }
            let (p, member) = export.member(file)
            let resolved = ResolvedInput(
                format: format, input: path, path: p, source: member, export: export, file: file)
            return (try read(resolved, options: options, batch: batch, sink), nil)
        }
        if let whole = format.whole {
            var memory: [UInt8]?
            if case .memory(let bytes) = source { memory = bytes }
            let (summary, state) = try readWhole(
                whole, path: path, memory: memory, format: format, options: options,
                state: state?.state, sink)
            return (summary, Resume(offset: 0, lineNumber: 0, state: state, generic: nil))
        }
        guard let parser = format.parser else {
            let (summary, next) = try GenericCSVReader.read(
                path: path, options: options, resume: state?.generic,
                completeLinesOnly: completeLinesOnly, formatName: format.name,
                source: source, batch: batch
            ) {
                sink(.sample($0))
            }
            return (summary, next.map { Resume(offset: $0.offset, lineNumber: $0.lineNumber, state: nil, generic: $0) })
        }
        return try run(
            parser, path: path, format: format, options: options, state: state,
            completeLinesOnly: completeLinesOnly, source: source, sink)
    }

    /// Reads a whole-input format, delivering what `state` does not cover; returns the summary and the next state.
    /// `entry`: the zip entry detection found the input in (a Gadgetbridge backup's database), `path` being the zip.
    static func readWhole(
        _ reader: any WholeReader.Type, path: String, memory: [UInt8]?, entry: ZipEntrySource? = nil,
        format: InputFormat, options: ReadOptions, state: Data?, _ sink: (InputItem) -> Void
    ) throws -> (ReadSummary, Data?) {
        try withoutActuallyEscaping(sink) { sink in
            var summary = ReadSummary(format: format.name)
            summary.kind = format.kind
            var report = WholeReport(summary: summary, options: options, sink: sink)
            let input = WholeInput(path: path, memory: entry == nil ? memory : nil, entry: entry)
            let next = try reader.read(input, state: state, report: &report)
            return (report.summary, next)
        }
    }

    /// Reads a resolved whole input (a Gadgetbridge backup from the zip entry detection found), delivering what
    /// `state` does not cover; returns the summary and the next state.
    static func readWhole(
        _ r: ResolvedInput, options: ReadOptions, state: Data?, _ sink: (InputItem) -> Void
    ) throws -> (ReadSummary, Data?) {
        guard let whole = r.format.whole else { return (ReadSummary(format: r.format.name), nil) }
        var entry: ZipEntrySource?
        if case .zipEntry(let e) = r.source { entry = e }
        var memory: [UInt8]?
        if case .memory(let bytes) = r.source { memory = bytes }
        return try readWhole(
            whole, path: entry == nil ? r.path : r.input, memory: memory, entry: entry, format: r.format,
            options: options, state: state, sink)
    }

    /// Reads all of a resolved input: a whole input (given the zip entry it was found in), a recording completed by
    /// the files beside it in its export (Sensor Logger's gravity, phyphox's start time), or its one file.
    static func read(
        _ r: ResolvedInput, options: ReadOptions, batch: SampleBatchSink? = nil, _ sink: (InputItem) -> Void
    ) throws -> ReadSummary {
        if r.format.whole != nil { return try readWhole(r, options: options, state: nil, sink).0 }
        if let export = r.export, let file = r.file {
            if let gravity = try SensorLoggerGravity.companion(of: r) {
                return try SensorLoggerGravity.read(
                    r, in: export, companion: gravity, options: options, batch: batch, sink)
            }
            if r.format.name == HeaderCSVFormats.phyphox.name, options.start == nil,
                let time = export.completing(file, format: r.format.name)
            {
                return try PhyphoxTime.read(r, time: export.member(time), options: options, batch: batch, sink)
            }
        }
        return try read(
            path: r.path, format: r.format, options: options, state: nil, completeLinesOnly: false, source: r.source,
            batch: batch, sink
        ).summary
    }

    static func run<P: LineParser>(
        _ type: P.Type, path: String, format: InputFormat, options: ReadOptions, state: Resume?,
        completeLinesOnly: Bool, source: LineSource,
        _ sink: (InputItem) -> Void
    ) throws -> (summary: ReadSummary, resume: Resume?) {
        try withoutActuallyEscaping(sink) { sink in
            try runEscaping(
                type, path: path, format: format, options: options, state: state,
                completeLinesOnly: completeLinesOnly, source: source, sink)
        }
    }

    /// The parser as `state` saved it, else a new one: without its saved state it goes on at the saved line (a step
    /// log's next total starts afresh), and the summary says the state was unreadable.
    static func restoredParser<P: LineParser>(
        _ type: P.Type, from state: Resume?, path: String, options: ReadOptions, _ summary: inout ReadSummary
    ) throws -> P {
        if let data = state?.state, let decoded = try? JSONDecoder().decode(P.self, from: data) { return decoded }
        summary.savedStateUnreadable = state?.state != nil
        return try P(path: path, options: options)
    }

    /// Whether a line holds only spaces, tabs and a carriage return.
    @inline(__always)
    static func isBlank(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        for b in line where b != 0x20 && b != 0x09 && b != 0x0D { return false }
        return true
    }

    static func runEscaping<P: LineParser>(
        _ type: P.Type, path: String, format: InputFormat, options: ReadOptions, state: Resume?,
        completeLinesOnly: Bool, source: LineSource, _ sink: @escaping (InputItem) -> Void
    ) throws -> (summary: ReadSummary, resume: Resume?) {
        var summary = ReadSummary(format: format.name)
        summary.kind = format.kind
        var parser = try restoredParser(type, from: state, path: path, options: options, &summary)
        let lineBase = state?.lineNumber ?? 0
        var lastLine = lineBase
        var rejection: String?
        var order = EmittedOrder()
        let emit: (InputItem) -> Void = { item in
            guard case .sample(let s) = item else {
                if case .reading(let r) = item { summary.note(r) }
                return sink(item)
            }
            let problem =
                SampleCheck.valueProblem(s)
                ?? order.admit(s, line: lastLine, path: path) {
                    summary.note(sampleAt: $0.time.nanosecondsSinceEpoch)
                    sink(.sample($0))
                }
            if let problem { rejection = problem }
        }
        var budget = ByteBudget(options.byteLimit)
        let consumed = try source.forEachLine(path: path, startingAt: state?.offset ?? 0, progress: options.progress) {
            line, relative, complete in
            if completeLinesOnly && !complete { return false }
            if !budget.admit(line.count) { return false }
            let number = lineBase + relative
            lastLine = number
            if isBlank(line) { return true }
            // Excel's `sep=` line above a line format's header is no line of data.
            if number == 1, SeparatorLine.delimiter(line) != nil { return true }
            rejection = nil
            if let problem = try parser.parse(line, number: number, options: options, emit) ?? rejection {
                try summary.skip(InputError(file: path, line: number, message: problem), options: options)
            }
            if let e = order.takeDropped() { try summary.skip(e, options: options) }
            return true
        }
        summary.paused = budget.refused
        if budget.refused {
            parser.pause(options: options, emit)  // a slice: the lines after it may still change what is held
        } else {
            parser.finish(options: options, emit)
        }
        if let e = order.takeDropped() { try summary.skip(e, options: options) }
        order.finish {
            summary.note(sampleAt: $0.time.nanosecondsSinceEpoch)
            sink(.sample($0))
        }
        parser.describe(&summary)
        if summary.kind == .acceleration, summary.samples > 0 {
            summary.absoluteTime = summary.absoluteTime || options.start != nil
        }
        let data = try? JSONEncoder().encode(parser)
        return (summary, Resume(offset: consumed, lineNumber: lastLine, state: data, generic: nil))
    }
}

/// Checks every sample a reader delivers: finite values, a plausible magnitude, time not going backwards (and, in
/// `AheadHold`, not jumping far ahead of the rows around it).
package enum SampleCheck {
    /// Largest plausible acceleration magnitude (50 g); beyond it a value is a glitch or a unit error.
    @inline(__always) static var maxMagnitude: Double { maximumPlausibleAcceleration }

    /// The words for a sample over `maximumPlausibleAcceleration`.
    static let overLimit = "absurd acceleration (over 50 g)"

    /// What is wrong with a sample's values (NaN, infinite, over 50 g), nil when nothing.
    @inline(__always)
    package static func valueProblem(_ s: AccelerationSample) -> String? {
        let m = s.x * s.x + s.y * s.y + s.z * s.z
        if m.isNaN { return "acceleration is NaN" }
        if m.isInfinite {
            return s.x.isInfinite || s.y.isInfinite || s.z.isInfinite ? "acceleration is infinite" : overLimit
        }
        if m > maxMagnitude * maxMagnitude {
            return "absurd acceleration \(Int(min(m.squareRoot(), 1e15))) m/s^2 (over 50 g)"
        }
        return nil
    }

    /// The problem of a sample at `timeNs` after one at `previousNs`, nil when in order.
    @inline(__always)
    static func orderProblem(_ timeNs: Int64, previousNs: Int64?) -> String? {
        if let p = previousNs, timeNs < p { return "time goes backwards (\(timeNs) ns after \(p) ns)" }
        return nil
    }
}
