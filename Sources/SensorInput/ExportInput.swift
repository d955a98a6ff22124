import Foundation

/// One entry of a zip read as an input (`LineSource.zipEntry`): the archive stays open, the entry is streamed.
public struct ZipEntrySource: Sendable {
    let archive: ZipArchive
    let entry: ZipArchive.Entry

    /// `archive.zip:folder/entry`, the name errors and summaries give.
    var name: String { archive.name + ":" + entry.name }

    /// A stream of the entry's bytes from its start.
    func open() throws -> ZipEntryReader { try ZipEntryReader(archive, entry) }
}

/// An export as an app writes it, a zip or the folder it unzips to: its files by their path inside it, which of them
/// is the recording (by the name the app gives it) and the files beside it that complete it (Sensor Logger's
/// `Gravity.csv`, phyphox's `meta/time.csv`). A zip's central directory is read once, here, and the export is handed
/// to the reader with the recording found (`ResolvedInput`).
struct Export: Sendable {
    enum Container: Sendable {
        case zip(ZipArchive)
        case folder(String)
    }

    let container: Container
    /// The files (no folders, `__MACOSX/` copies or `._` resource forks), by their path inside the export.
    let files: [String]
    /// The zip's entries of `files`, in the same order.
    private let entries: [ZipArchive.Entry]

    init(archive: ZipArchive) {
        container = .zip(archive)
        entries = archive.entries.filter { !$0.isDirectory && Self.isContent($0.name) }
        files = entries.map(\.name)
    }

    /// The folder at `folder`, whose files (`WholeInput.files(under:)`) are `all`.
    init(folder: String, files all: [String]? = nil) {
        container = .folder(folder)
        let prefix = folder.hasSuffix("/") ? folder : folder + "/"
        files = (all ?? WholeInput.files(under: folder)).map { String($0.dropFirst(prefix.count)) }.filter(
            Self.isContent)
        entries = []
    }

    static func isContent(_ name: String) -> Bool { !name.hasPrefix("__MACOSX/") && !baseName(name).hasPrefix("._") }

    /// The name after the last `/`.
    static func baseName(_ name: String) -> Substring {
        name.split(separator: "/", omittingEmptySubsequences: false).last ?? ""
    }

    /// The zip at `path` (or in the bytes of `source`), nil when it does not start like one.
    static func zip(path: String, source: LineSource) throws -> Export? {
        switch source {
        case .file:
            guard ZipArchive.isZip(BinarySniff.head(of: path, count: 4)) else { return nil }
            return Export(archive: try ZipArchive(path: path))
        case .memory(let bytes):
            guard ZipArchive.isZip(Array(bytes.prefix(4))) else { return nil }
            return Export(archive: try ZipArchive(bytes: bytes, name: path))
        case .zipEntry:
            return nil  // a zip inside a zip is not looked into
        }
    }

    /// The zip or folder's path, for errors.
    var name: String {
        switch container {
        case .zip(let archive): return archive.name
        case .folder(let path): return path
        }
    }

    var what: String {
        if case .folder = container { return "folder" }
        return "zip"
    }

    /// The error `message` about the export (`file: message`).
    func error(_ message: String) -> InputError { InputError(file: name, message: message) }

    /// `file` as an input: the name its errors give (`export.zip:folder/file`, `folder/file`) and its bytes.
    func member(_ file: String) -> (path: String, source: LineSource) {
        if let entry = zipEntry(file) { return (entry.name, .zipEntry(entry)) }
        return ((name.hasSuffix("/") ? name : name + "/") + file, .file)
    }

    /// The zip's entry `file`, nil for a folder's file.
    func zipEntry(_ file: String) -> ZipEntrySource? {
        guard case .zip(let archive) = container, let k = files.firstIndex(of: file) else { return nil }
        return ZipEntrySource(archive: archive, entry: entries[k])
    }

    /// `file` of the export read as `format`.
    func resolved(_ file: String, as format: InputFormat) -> ResolvedInput {
        let (path, source) = member(file)
        return ResolvedInput(format: format, input: name, path: path, source: source, export: self, file: file)
    }

    /// Files apps write beside a recording to complete it, by the recording's format and name: Sensor Logger's
    /// gravity for `Accelerometer.csv`, phyphox's start time for `Raw Data.csv` and its other data sets.
    static func companions(format: String, file: String) -> [String] {
        switch format {
        case HeaderCSVFormats.sensorLogger.name where baseName(file).lowercased() == "accelerometer.csv":
            return ["Gravity.csv", "AccelerometerUncalibrated.csv"]
        case HeaderCSVFormats.phyphox.name: return ["meta/time.csv"]
        default: return []
        }
    }

    /// `r`, a file on its own, with the folder it lies in as its export when that holds a file completing it (a
    /// recording unzipped by hand reads as its export does); else `r` as it is. Only those files are looked at, not
    /// the folder (a Downloads folder may hold thousands).
    static func beside(_ r: ResolvedInput) -> ResolvedInput {
        guard case .file = r.source else { return r }
        let slash = r.path.lastIndex(of: "/")
        let folder = slash.map { String(r.path[..<$0]) } ?? "."
        let base = slash.map { String(r.path[r.path.index(after: $0)...]) } ?? r.path
        let found = companions(format: r.format.name, file: base).filter {
            FileManager.default.fileExists(atPath: folder + "/" + $0)
        }
        guard !found.isEmpty else { return r }
        var out = r
        out.export = Export(folder: folder, files: ([base] + found).map { folder + "/" + $0 })
        out.file = base
        return out
    }

    /// The first of the `companions` of `file` (read as `format`) the export holds, nil when it holds none.
    func completing(_ file: String, format: String) -> String? {
        Self.companions(format: format, file: file).lazy.compactMap { companion(of: file, $0) }.first
    }

    /// The file at `relative` (`Gravity.csv`, `meta/time.csv`, any case) from the folder `file` is in, nil when the
    /// export has none there.
    func companion(of file: String, _ relative: String) -> String? {
        let folder = file.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        let wanted = ((folder.isEmpty ? "" : folder + "/") + relative).lowercased()
        return files.first { $0.lowercased() == wanted }
    }

    /// A name an app gives its recording: a file name (any case), or one with an `<id>` (Zepp Life's
    /// `ACTIVITY_MINUTE_<id>.csv`: any text without `_` in its place).
    struct Pattern: Sendable {
        let text: String
        let formats: [String]

        func matches(_ file: String) -> Bool {
            let base = Export.baseName(file).lowercased()
            let pattern = text.lowercased()
            guard let id = pattern.range(of: "<id>") else { return base == pattern }
            let (prefix, suffix) = (pattern[..<id.lowerBound], pattern[id.upperBound...])
            guard base.count > prefix.count + suffix.count, base.hasPrefix(prefix), base.hasSuffix(suffix) else {
                return false
            }
            return !base.dropFirst(prefix.count).dropLast(suffix.count).contains("_")
        }
    }

    /// Names that are a recording, most wanted first, and the formats whose export holds them. Apple Health's
    /// `export.zip` holds `apple_health_export/export.xml` beside `export_cda.xml`, workout routes and ECGs;
    /// Gadgetbridge's backup `database/Gadgetbridge`; a Sensor Logger recording one CSV per sensor
    /// (`TotalAcceleration.csv` with gravity on Android; `Accelerometer.csv` without it, with `Gravity.csv` beside it;
    /// the phone's own count in `Pedometer.csv`); phyphox's export `<Experiment> <date>/Raw Data.csv` (multi-sensor
    /// experiments `Accelerometer.csv`) beside `meta/`; Zepp Life's `ACTIVITY_MINUTE/ACTIVITY_MINUTE_<id>.csv` and
    /// `ACTIVITY/ACTIVITY_<id>.csv` beside `SLEEP/`, `HEARTRATE_AUTO/`...
    static let known: [Pattern] = [
        Pattern(text: "export.xml", formats: ["apple-health"]),
        Pattern(text: "Gadgetbridge", formats: ["gadgetbridge"]),
        Pattern(text: "Gadgetbridge.db", formats: ["gadgetbridge"]),
        Pattern(text: "TotalAcceleration.csv", formats: ["sensor-logger"]),
        Pattern(text: "Raw Data.csv", formats: ["phyphox"]),
        Pattern(text: "Accelerometer.csv", formats: ["sensor-logger", "phyphox"]),
        Pattern(text: "Pedometer.csv", formats: ["sensor-logger-pedometer"]),
        Pattern(text: "ACTIVITY_MINUTE_<id>.csv", formats: ["zepp-life"]),
        Pattern(text: "ACTIVITY_<id>.csv", formats: ["zepp-life-daily"]),
    ]

    /// The file that is the recording (read as `format` when given): the first of `known` present, else the only
    /// file of an export holding one. Throws an error listing what the export holds when there is none, and one
    /// naming them when it holds that name twice (two exports zipped together: which one counts is not the directory
    /// order's choice).
    func recording(format: String?) throws -> String {
        let wanted = Self.known.filter { k in format.map { k.formats.contains($0) } ?? true }
        for k in wanted {
            let named = files.filter(k.matches)
            if named.count > 1 {
                throw error(
                    "\(named.count) files named \(k.text) in this \(what) (\(Self.list(named))): "
                        + (what == "zip" ? "unzip it and " : "") + "pass the one to read")
            }
            if let file = named.first { return file }
        }
        if files.count == 1, format == nil || wanted.isEmpty { return files[0] }
        let holds =
            "\(files.count) \(files.count == 1 ? "file" : "files")\(files.isEmpty ? "" : ": " + Self.list(files))"
        if let format, !wanted.isEmpty {
            let names = wanted.map(\.text).joined(separator: " or ")
            throw error("no \(names) in this \(what), so nothing to read as \(format) (it holds \(holds))")
        }
        if files.contains(where: { $0.hasPrefix("apple_health_export/") }) {
            throw error("no export.xml in this \(what) (an Apple Health export without it: it holds \(holds))")
        }
        let zepp = ["SLEEP", "HEARTRATE", "HEARTRATE_AUTO", "ACTIVITY_STAGE", "SPORT", "BODY", "USER"]
        if files.contains(where: { f in zepp.contains { f.uppercased().hasPrefix($0 + "/") } }) {
            throw error(
                "no ACTIVITY_MINUTE_<id>.csv or ACTIVITY_<id>.csv in this \(what) (a Zepp Life export without its "
                    + "step files: it holds \(holds))")
        }
        let folder = what == "folder" ? "Garmin FIT files, a Google Fit Takeout, " : ""
        throw error(
            "no recording steptweet reads in this \(what) (it holds \(holds)); from a \(what) it reads \(folder)"
                + "export.xml (Apple Health), database/Gadgetbridge, TotalAcceleration.csv, Accelerometer.csv with "
                + "Gravity.csv or Pedometer.csv (Sensor Logger), Raw Data.csv (phyphox), ACTIVITY_MINUTE_<id>.csv or "
                + "ACTIVITY_<id>.csv (Zepp Life), \(what == "folder" ? "Fitbit's steps-YYYY-MM-DD.json, " : "")"
                + "or the one file of a \(what) holding one")
    }

    /// The first five of `names`, comma-separated, `...` after them when there are more.
    static func list(_ names: [String]) -> String {
        names.prefix(5).joined(separator: ", ") + (names.count > 5 ? ", ..." : "")
    }
}
