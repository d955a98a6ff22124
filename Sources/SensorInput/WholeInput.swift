import Foundation

/// An input that is read as a whole — a binary file, a database, a zip, a folder — instead of line by line: its
/// path, and its bytes when they are held in memory (pushed data, fuzzing).
struct WholeInput {
    var path: String
    var memory: [UInt8]?
    /// The zip entry that holds the input, when detection found it in a zip (`path`): read instead of the zip.
    var entry: ZipEntrySource?

    /// Whether the input is a folder on disk.
    var isDirectory: Bool {
        guard memory == nil else { return false }
        var isDir: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDir) && isDir.boolValue
    }

    /// What the input is when it is a stream rather than a file or folder (a named pipe, `/dev/stdin` fed by a pipe,
    /// a socket), nil otherwise: its bytes can be read only once, and an input is read twice (detection reads its
    /// first lines, then the reader opens it again), so the second read waited forever or began mid-stream.
    var stream: String? {
        guard memory == nil else { return nil }
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        switch st.st_mode & S_IFMT {
        case S_IFIFO: return "a pipe"
        case S_IFSOCK: return "a socket"
        default: return nil
        }
    }

    /// All bytes of the (file) input: the zip entry's when it is one.
    func bytes() throws -> [UInt8] {
        if let entry { return try entry.open().readAll() }
        if let memory { return memory }
        return try Self.bytes(of: path)
    }

    static func bytes(of path: String) throws -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw InputError(
                file: path, message: FileManager.default.fileExists(atPath: path) ? "permission denied" : "no such file"
            )
        }
        defer { try? handle.close() }
        do {
            return [UInt8](try handle.readToEnd() ?? Data())
        } catch {
            throw InputError(file: path, message: "cannot read: \(error.localizedDescription)")
        }
    }

    /// Regular files under `path` (recursively, at most `depth` folders down, hidden names skipped), sorted by path.
    static func files(under path: String, depth: Int = 4, limit: Int = 200_000) -> [String] {
        var out: [String] = []
        func walk(_ dir: String, _ level: Int) {
            guard out.count < limit, let names = try? FileManager.default.contentsOfDirectory(atPath: dir) else {
                return
            }
            for name in names.sorted() where !name.hasPrefix(".") {
                let full = dir + "/" + name
                var isDir: ObjCBool = false
                guard FileManager.default.fileExists(atPath: full, isDirectory: &isDir) else { continue }
                if isDir.boolValue {
                    if level < depth { walk(full, level + 1) }
                } else if out.count < limit {
                    out.append(full)
                }
            }
        }
        walk(path, 0)
        return out
    }
}

/// What a whole-input reader reports back: readings, and problems that skip part of the input.
struct WholeReport {
    var summary: ReadSummary
    var options: ReadOptions
    var sink: (InputItem) -> Void
    /// Readings ending at or before this are not delivered: the saved state was unusable and the reader starts over.
    private var countedThroughNs: Int64?

    init(summary: ReadSummary, options: ReadOptions, sink: @escaping (InputItem) -> Void) {
        self.summary = summary
        self.options = options
        self.sink = sink
    }

    /// The reader's saved state, nil when there is none or it cannot be decoded; then the reader starts over, and the
    /// readings counted before (`ReadOptions.countedThrough`) are not delivered again.
    mutating func savedState<State: Decodable>(_ type: State.Type, from data: Data?) -> State? {
        guard let data else { return nil }
        if let state = try? JSONDecoder().decode(type, from: data) { return state }
        summary.savedStateUnreadable = true
        countedThroughNs = options.countedThrough?.nanosecondsSinceEpoch
        return nil
    }

    /// Delivers a reading (never a negative one).
    mutating func emit(_ r: StepReading) {
        guard r.steps >= 0, r.endNs >= r.startNs else { return }
        if let countedThroughNs, r.endNs <= countedThroughNs { return }
        summary.note(r)
        sink(.reading(r))
    }

    /// Notes a damaged or skipped part (`file:where: message`); with `strict`, throws it.
    mutating func problem(_ e: InputError) throws {
        try summary.skip(e, options: options)
    }
}

/// A format read as a whole. `state` is what the previous read of the same input left (follow mode): the reader
/// delivers only what that state does not cover yet and returns the state to keep.
protocol WholeReader: Sendable {
    static func read(_ input: WholeInput, state: Data?, report: inout WholeReport) throws -> Data?
    /// Score for how surely a folder is this format (0: not it).
    static func sniffDirectory(_ files: [String]) -> Int
}

extension WholeReader {
    static func sniffDirectory(_ files: [String]) -> Int { 0 }
}

/// Recognising binary content: known magic numbers, and a one-line description of anything that is not text.
enum BinarySniff {
    /// Whether `head` (the first bytes of a file) cannot be text: NUL bytes, or mostly invalid UTF-8/control bytes.
    static func isBinary(_ head: [UInt8]) -> Bool {
        guard !head.isEmpty else { return false }
        if head.count >= 2, (head[0] == 0xFF && head[1] == 0xFE) || (head[0] == 0xFE && head[1] == 0xFF) { return true }
        if head.contains(0) { return true }
        let control = head.filter { $0 < 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D && $0 != 0x0C && $0 != 0x1B }
            .count
        if control * 10 > head.count { return true }
        // Invalid UTF-8 (allow a multi-byte sequence cut at the end of the head).
        let text = String(decoding: head.prefix(max(0, head.count - 4)), as: UTF8.self)
        let replaced = text.unicodeScalars.filter { $0 == "\u{FFFD}" }.count
        return replaced * 20 > head.count
    }

    /// What a non-text file looks like, from its magic number.
    static func describe(_ head: [UInt8]) -> String {
        func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + magic.count && Array(head[offset..<offset + magic.count]) == magic
        }
        if starts([0x7F, 0x45, 0x4C, 0x46]) { return "ELF executable" }
        if starts(Array("SQLite format 3".utf8) + [0]) { return "SQLite database" }
        if starts(Array(".FIT".utf8), at: 8) { return "Garmin FIT file" }
        if starts([0x50, 0x4B, 0x03, 0x04]) || starts([0x50, 0x4B, 0x05, 0x06]) { return "zip archive" }
        if starts([0x1F, 0x8B]) { return "gzip data" }
        if starts([0x42, 0x5A, 0x68]) { return "bzip2 data" }
        if starts([0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00]) { return "xz data" }
        if starts([0x28, 0xB5, 0x2F, 0xFD]) { return "zstd data" }
        if starts([0x89, 0x50, 0x4E, 0x47]) { return "PNG image" }
        if starts([0xFF, 0xD8, 0xFF]) { return "JPEG image" }
        if starts(Array("GIF8".utf8)) { return "GIF image" }
        if starts(Array("%PDF".utf8)) { return "PDF document" }
        // An Axivity .cwa header block: "MD", then its packet length 1020 (a file cut short may hold less of it).
        if starts(Array("MD".utf8)) && (starts([0xFC, 0x03], at: 2) || head.count >= 512) {
            return "Axivity .cwa (binary; convert it to CSV with `omconvert FILE.cwa -csv-file FILE.csv`)"
        }
        if starts([0xFF, 0xFE]) || starts([0xFE, 0xFF]) { return "UTF-16 text (save it as UTF-8)" }
        if starts([0xCA, 0xFE, 0xBA, 0xBE]) || starts([0xCF, 0xFA, 0xED, 0xFE]) { return "Mach-O executable" }
        if starts(Array("MZ".utf8)) { return "Windows executable" }
        return "binary data"
    }

    /// `142,312 bytes`.
    static func byteCount(_ n: Int) -> String {
        let digits = String(n)
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return out + (n == 1 ? " byte" : " bytes")
    }

    /// The first `count` bytes of a file (fewer when it is shorter).
    static func head(of path: String, count: Int = 4096) -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: path) else { return [] }
        defer { try? handle.close() }
        return [UInt8]((try? handle.read(upToCount: count)) ?? Data())
    }

    /// Size of the file at `path` in bytes.
    static func size(of path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
    }
}
