/// One entry of a zip read as an input (`LineSource.zipEntry`): the archive stays open, the entry is streamed.
public struct ZipEntrySource: Sendable {
    let archive: ZipArchive
    let entry: ZipArchive.Entry

    /// `archive.zip:folder/entry`, the name errors and summaries give.
    var name: String { archive.name + ":" + entry.name }

    /// A stream of the entry's bytes from its start.
    func open() throws -> ZipEntryReader { try ZipEntryReader(archive, entry) }
}

/// The zips apps export: which entry is the recording. The zip is recognised by its magic bytes, the entry by its name
/// (as the apps write it), then the entry's format by its content, as any file's.
enum ZipInput {
    /// Entry names (after the last `/`, any case) that are a recording, most wanted first, and the format whose export
    /// holds them. Apple Health's `export.zip` holds `apple_health_export/export.xml`
    /// beside `export_cda.xml`, workout routes and ECGs; Gadgetbridge's backup `database/Gadgetbridge`; a Sensor
    /// Logger recording's zip one CSV per sensor (`TotalAcceleration.csv` with gravity on Android; `Accelerometer.csv`,
    /// without it, on iOS; the phone's own count in `Pedometer.csv`); phyphox's export `<Experiment> <date>/Raw
    /// Data.csv` (multi-sensor experiments `Accelerometer.csv`) beside `meta/`.
    static let known: [(name: String, formats: [String])] = [
        ("export.xml", ["apple-health"]),
        ("Gadgetbridge", ["gadgetbridge"]), ("Gadgetbridge.db", ["gadgetbridge"]),
        ("TotalAcceleration.csv", ["sensor-logger"]),
        ("Raw Data.csv", ["phyphox"]),
        ("Accelerometer.csv", ["sensor-logger", "phyphox"]),
        ("Pedometer.csv", ["sensor-logger-pedometer"]),
    ]

    /// The archive `path` (or the bytes of `source`) is, nil when it does not start like a zip.
    static func archive(path: String, source: LineSource) throws -> ZipArchive? {
        switch source {
        case .file:
            guard ZipArchive.isZip(BinarySniff.head(of: path, count: 4)) else { return nil }
            return try ZipArchive(path: path)
        case .memory(let bytes):
            guard ZipArchive.isZip(Array(bytes.prefix(4))) else { return nil }
            return try ZipArchive(bytes: bytes, name: path)
        case .zipEntry:
            return nil  // a zip inside a zip is not looked into
        }
    }

    /// The recording in `path` when it is a zip (its entry for `format`, or the first known one), nil when it is not
    /// a zip.
    static func member(path: String, source: LineSource, format: String?) throws -> ZipEntrySource? {
        guard let archive = try archive(path: path, source: source) else { return nil }
        return ZipEntrySource(archive: archive, entry: try recording(in: archive, format: format))
    }

    /// The entry of `archive` that is the recording (read as `format` when given): the first of `known` present, else
    /// the only file of a zip holding one. Throws an error listing what the zip holds when there is none, and one
    /// naming them when it holds that name twice (two exports zipped together: which one counts is not the directory
    /// order's choice).
    static func recording(in archive: ZipArchive, format: String?) throws -> ZipArchive.Entry {
        let files = archive.entries.filter {
            !$0.isDirectory && !$0.name.hasPrefix("__MACOSX/") && !$0.baseName.hasPrefix("._")
        }
        let wanted = known.filter { k in format.map { k.formats.contains($0) } ?? true }
        for k in wanted {
            let named = files.filter { $0.baseName.lowercased() == k.name.lowercased() }
            if named.count > 1 {
                let list = named.prefix(5).map(\.name).joined(separator: ", ") + (named.count > 5 ? ", ..." : "")
                throw archive.error(
                    "\(named.count) files named \(k.name) in this zip (\(list)): unzip it and pass the one to read")
            }
            if let entry = named.first { return entry }
        }
        if files.count == 1, format == nil || wanted.isEmpty { return files[0] }
        let listed = files.prefix(5).map(\.name).joined(separator: ", ") + (files.count > 5 ? ", ..." : "")
        let holds = "\(files.count) \(files.count == 1 ? "file" : "files")\(files.isEmpty ? "" : ": " + listed)"
        if let format, !wanted.isEmpty {
            let names = wanted.map(\.name).joined(separator: " or ")
            throw archive.error("no \(names) in this zip, so nothing to read as \(format) (it holds \(holds))")
        }
        if files.contains(where: { $0.name.hasPrefix("apple_health_export/") }) {
            throw archive.error("no export.xml in this zip (an Apple Health export without it: it holds \(holds))")
        }
        throw archive.error(
            "no recording steptweet reads in this zip (it holds \(holds)); from a zip it reads export.xml (Apple "
                + "Health), database/Gadgetbridge, TotalAcceleration.csv, Accelerometer.csv or Pedometer.csv (Sensor "
                + "Logger), Raw Data.csv (phyphox), or the one file of a zip holding one")
    }
}
