import Foundation
import StepDetection

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What an input yields: acceleration samples (to be run through the detector) or step readings (to be summed).
public enum InputItem: Sendable, Equatable {
    case sample(AccelerationSample)
    case reading(StepReading)
    /// A record of one source, not combined with the others yet: only in follow mode, while an export whose records
    /// are out of time order is gathered (`SourceCursor.Gathering`).
    case record(SourcedReading)
}

/// Where reading of a growing file stopped: position, the file's identity, and what its format needs to go on.
public struct SourceCursor: Sendable, Equatable, Codable {
    /// Byte offset just after the last consumed (complete) line.
    public var offset: Int64
    /// Lines consumed so far, for error messages.
    public var lineNumber: Int
    /// Identity of the file read, to notice rotation (another inode) and truncation (size below offset).
    public var device: UInt64
    public var inode: UInt64
    /// Format state needed to continue (header, units), opaque to callers.
    var generic: GenericCSVReader.ResumeState?
    /// The format the file was detected as, and that format's parser state (JSON), opaque to callers.
    public internal(set) var format: String?
    var parserState: Data?
    /// The bytes just before `offset` (up to `SourceReader.tailLength`), to notice a file rewritten in place (a newer
    /// export copied over the old one): nil in cursors saved before they were kept.
    var tail: Data?
    /// The hash of the bytes before `offset`, to know a file replaced by a copy of what was read (`ContentHash`): nil
    /// in cursors saved before it was kept.
    var hash: ContentHash?
    /// Set while the file's records, out of time order, are gathered and settled (`Gathering`); nil otherwise and in
    /// cursors saved before it was kept.
    public var gathering: Gathering?

    public init(offset: Int64, lineNumber: Int, device: UInt64, inode: UInt64) {
        self.offset = offset
        self.lineNumber = lineNumber
        self.device = device
        self.inode = inode
    }

    /// The cursor after a read of `format` that stopped at `resume`.
    init(resuming resume: InputFormats.Resume, format: String, device: UInt64, inode: UInt64, tail: Data?) {
        self.init(offset: resume.offset, lineNumber: resume.lineNumber, device: device, inode: inode)
        generic = resume.generic
        parserState = resume.state
        self.format = format
        self.tail = tail
    }

    /// Where a parser goes on from this cursor.
    var resume: InputFormats.Resume {
        InputFormats.Resume(offset: offset, lineNumber: lineNumber, state: parserState, generic: generic)
    }
}

/// Reads what is new in an input since a cursor: the path behind the agent's ingestion and follow mode. Works for
/// every line-based format, acceleration or steps.
public enum SourceReader {
    /// Reads the complete lines after `cursor` (from the start when nil, or when the file was rotated — another
    /// inode —, truncated — smaller than the offset — or rewritten in place — other bytes before the offset than
    /// were read there: `SourceCursor.tail`) and returns the cursor to pass next time. A last line without
    /// a newline is left for the next call; no line is delivered twice. After a rotation, the rest of the old file is
    /// read first when it is still beside the new one under a rotated name (`steps.jsonl.1`, `steps.jsonl-20261122`:
    /// same directory, name starting with the file's name, same inode), so what was written before the rename is not
    /// lost.
    public static func readNew(
        path: String,
        options: ReadOptions = ReadOptions(),
        cursor: SourceCursor?,
        batch: SampleBatchSink? = nil,
        _ sink: (InputItem) -> Void
    ) throws -> (summary: ReadSummary, cursor: SourceCursor?) {
        if let whole = try wholeFormat(path: path, options: options, cursor: cursor) {
            return try readWhole(whole, options: options, cursor: cursor, sink)
        }
        if WholeInput(path: path).isDirectory {
            let recording = try InputFormats.resolveInput(path: path, options: options).file ?? path
            throw InputError(
                file: path,
                message: "a recording's folder is read whole (count, inspect), not followed: follow the file "
                    + "\(recording) instead")
        }
        // Open once and read through that descriptor: a rotation between looking at the file and reading it cannot
        // put one file's offsets under the other's identity.
        let (fd, device, inode, size) = try openWithIdentity(path)
        defer { close(fd) }
        let openPath = access("/proc/self/fd", F_OK) == 0 ? "/proc/self/fd/\(fd)" : path
        let named = { (e: InputError) in Self.naming(e, openPath: openPath, path: path) }
        let (previous, rotatedRest) = try continuation(
            of: cursor, path: path, fd: fd, identity: (device, inode, size), options: options, sink)
        // After a rotation, the next read starts the new file from its beginning.
        let fromStart = SourceCursor(offset: 0, lineNumber: 0, device: device, inode: inode)
        // A file gathered to its end has its records settled by the caller: nothing to read until that is done.
        if size == 0 || size == previous?.offset || previous?.gathering?.complete == true {
            let empty = ReadSummary(format: previous?.format ?? options.format ?? "unknown")
            return (
                rotatedRest.map { $0.merged(with: empty) } ?? empty, rotatedRest != nil ? fromStart : previous ?? cursor
            )
        }
        guard let format = try format(previous: previous, path: path, openPath: openPath, options: options) else {
            // The writer has not finished the first line yet. After a rotation, the old file's rest was delivered:
            // go on from the start of the new file next time.
            return rotatedRest.map { ($0, fromStart) } ?? (ReadSummary(format: "unknown"), cursor)
        }
        var (summary, next): (ReadSummary, InputFormats.Resume?)
        var gathering = previous?.gathering
        do {
            (summary, next) = try readLines(
                openPath, format: format, options: options, from: previous?.resume, gathering: &gathering, batch: batch,
                sink)
        } catch let e as InputError {
            throw named(e)
        }
        summary.issues = summary.issues.map(named)
        summary.startedOver = summary.startedOver || (cursor != nil && previous == nil && rotatedRest == nil)
        if let rotatedRest { summary = rotatedRest.merged(with: summary) }
        guard let next else { return (summary, rotatedRest != nil ? fromStart : previous ?? cursor) }
        // Gathering from the start hashes from the start.
        let hashed = summary.gatherBegan ? nil : previous
        return (
            summary,
            Self.cursor(after: next, format: format.name, fd: fd, identity: (device, inode), hashed, gathering)
        )
    }

    /// The cursor after a read of `format` that stopped at `next`: the bytes before it (`tail`), their hash gone on
    /// from `previous`'s (from the file's start without one) and where gathering stands.
    static func cursor(
        after next: InputFormats.Resume, format: String, fd: Int32, identity: (device: UInt64, inode: UInt64),
        _ previous: SourceCursor?, _ gathering: SourceCursor.Gathering?
    ) -> SourceCursor {
        let tail = bytes(of: fd, before: next.offset)
        var out = SourceCursor(
            resuming: next, format: format, device: identity.device, inode: identity.inode, tail: tail)
        out.hash =
            previous?.hash.flatMap { $0.extended(fd: fd, from: previous?.offset ?? 0, to: next.offset) }
            ?? ContentHash().extended(fd: fd, from: 0, to: next.offset)
        out.gathering = gathering
        return out
    }

    /// Reads the lines after `state`. When a record in them could have joined readings an earlier slice delivered
    /// (`RecordsOutOfOrder`: an export grouped by source, shuffled), reads nothing more: the next read starts at the
    /// file's start and gathers its records (`gathering`, `ReadSummary.gatherBegan`). While `gathering`, the read
    /// hands out records, not readings, a slice at most (`gatherBytes` without a byte limit), and counts them.
    static func readLines(
        _ path: String, format: InputFormat, options: ReadOptions, from state: InputFormats.Resume?,
        gathering: inout SourceCursor.Gathering?, batch: SampleBatchSink?, _ sink: (InputItem) -> Void
    ) throws -> (ReadSummary, InputFormats.Resume?) {
        do {
            guard gathering != nil else {
                return try InputFormats.read(
                    path: path, format: format, options: options, state: state, completeLinesOnly: true, batch: batch,
                    sink)
            }
            var gather = options
            (gather.gather, gather.byteLimit) = (true, options.byteLimit ?? gatherBytes)
            var records = 0
            let (summary, next) = try InputFormats.read(
                path: path, format: format, options: gather, state: state, completeLinesOnly: true, batch: batch
            ) { item in
                if case .record = item { records += 1 }
                sink(item)
            }
            gathering?.records += records
            gathering?.complete = !summary.paused
            return (summary, next)
        } catch let disorder as RecordsOutOfOrder {
            gathering = SourceCursor.Gathering()
            var summary = ReadSummary(format: format.name)
            (summary.kind, summary.gatherBegan) = (format.kind, true)
            let hours = Double(disorder.through - disorder.start) / 3.6e12
            summary.notes.append(
                "its records are not in time order (one starts \(String(format: "%.1f", hours)) h before the end of "
                    + "those an earlier slice counted): its records are gathered from its start, a slice a read, and "
                    + "settled in time order once all are read, so that it counts as one read")
            return (summary, InputFormats.Resume(offset: 0, lineNumber: 0, state: nil, generic: nil))
        }
    }

    /// How much a read gathers without a byte limit (the walk trigger's): a fetch's slice.
    static let gatherBytes: Int64 = 16 << 20

    /// The format to read `path` (open as `openPath`) with: the one the cursor names, the one asked for, or the one
    /// detected; nil while the first line is unfinished (detection needs it whole).
    static func format(
        previous: SourceCursor?, path: String, openPath: String, options: ReadOptions
    ) throws -> InputFormat? {
        if let name = previous?.format, let known = InputFormats.named(name) { return known }
        if options.format == nil, !(try hasCompleteLine(openPath)) { return nil }
        return try InputFormats.resolve(path: path, options: options)
    }

    /// Opens `path` for reading; returns the descriptor and the file's identity and size.
    static func openWithIdentity(_ path: String) throws -> (fd: Int32, device: UInt64, inode: UInt64, size: Int64) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw InputError.unreadable(path, errno: errno) }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            let error = InputError.unreadable(path, errno: errno)
            close(fd)
            throw error
        }
        return (fd, UInt64(st.st_dev), UInt64(st.st_ino), Int64(st.st_size))
    }

    /// Errors name the file, not the descriptor it was read through.
    static func naming(_ e: InputError, openPath: String, path: String) -> InputError {
        e.file == openPath ? InputError(file: path, line: e.line, message: e.message, kind: e.kind) : e
    }

    /// How many bytes before a cursor's offset it keeps (`SourceCursor.tail`).
    static let tailLength: Int64 = 64

    /// Up to `tailLength` bytes of the file open as `fd` just before `offset`; nil at the start or when unreadable.
    static func bytes(of fd: Int32, before offset: Int64) -> Data? {
        let count = Int(min(offset, tailLength))
        guard count > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: count)
        return pread(fd, &buffer, count, off_t(offset) - off_t(count)) == count ? Data(buffer) : nil
    }

    /// Where to go on in the file: `cursor`, or nil (from the start) when the file was rotated (another identity),
    /// truncated (smaller than the offset) or rewritten in place (the bytes before the offset changed); after a
    /// rotation, the rest of the renamed file is read first; a file replaced by a copy of the bytes read to their end
    /// (`SourceCursor.hash`) goes on at the cursor, with nothing to read. A file that starts over without a rotated file beside
    /// it (a newer export over the old one) delivers all its readings again and says so (`ReadSummary.startedOver`):
    /// what they count is the caller's to decide (the agent's reading ledger).
    static func continuation(
        of cursor: SourceCursor?, path: String, fd: Int32, identity: (device: UInt64, inode: UInt64, size: Int64),
        options: ReadOptions, _ sink: (InputItem) -> Void
    ) throws -> (SourceCursor?, ReadSummary?) {
        let (device, inode, size) = identity
        guard let c = cursor else { return (nil, nil) }
        let rewritten = c.tail.map { $0 != bytes(of: fd, before: c.offset) } ?? false
        guard c.device != device || c.inode != inode || size < c.offset || rewritten else { return (cursor, nil) }
        // An export being gathered (`SourceCursor.Gathering`) renamed aside is replaced, not rotated: the new file's
        // records are gathered from its start, and the old file's rest is not read into what they replace.
        if c.device != device || c.inode != inode, c.gathering == nil,
            let old = rotatedFile(of: path, device: c.device, inode: c.inode)
        {
            return (nil, try readNew(path: old, options: options, cursor: c, sink).summary)
        }
        if let hash = c.hash, size == c.offset, !rewritten, ContentHash().extended(fd: fd, from: 0, to: size) == hash {
            // Another file with the bytes read to their end (an export downloaded again): nothing new in it.
            var same = c
            (same.device, same.inode) = (device, inode)
            return (same, nil)
        }
        return (nil, nil)
    }

    /// The whole-input format (database, FIT, folder) `path` is read as in follow mode, with what detection found
    /// (the zip entry of a backup); nil for a line format.
    static func wholeFormat(path: String, options: ReadOptions, cursor: SourceCursor?) throws -> ResolvedInput? {
        if let name = cursor?.format ?? options.format, let known = InputFormats.named(name) {
            return known.whole != nil ? ResolvedInput(format: known, input: path, path: path, source: .file) : nil
        }
        if !WholeInput(path: path).isDirectory {
            let head = BinarySniff.head(of: path)
            if head.first == UInt8(ascii: "{") {
                // A JSON document (Google Fit) or JSON lines (step log, perhaps with its first line unfinished).
                let resolved = try? InputFormats.resolveInput(path: path, options: options)
                return resolved?.format.whole != nil ? resolved : nil
            }
            guard BinarySniff.isBinary(head) else { return nil }
        }
        let resolved = try InputFormats.resolveInput(path: path, options: options)
        return resolved.format.whole != nil ? resolved : nil
    }

    /// Follow mode for whole inputs: the whole input is read again (it is replaced, or gains files), and its reader
    /// delivers only what the cursor's state does not cover yet (newer minutes, new files), never a reading twice.
    static func readWhole(
        _ resolved: ResolvedInput, options: ReadOptions, cursor: SourceCursor?, _ sink: (InputItem) -> Void
    ) throws -> (summary: ReadSummary, cursor: SourceCursor?) {
        let (summary, state) = try InputFormats.readWhole(
            resolved, options: options, state: cursor?.format == resolved.format.name ? cursor?.parserState : nil,
            sink)
        // No file identity: the input is expected to be replaced or to grow; the state says what was delivered.
        var out = SourceCursor(offset: 0, lineNumber: 0, device: 0, inode: 0)
        out.format = resolved.format.name
        out.parserState = state
        return (summary, out)
    }

    /// The file beside `path` whose name starts with `path`'s name and that has the given identity: where a rotation
    /// moved the file a cursor was reading.
    static func rotatedFile(of path: String, device: UInt64, inode: UInt64) -> String? {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        let name = url.lastPathComponent
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return nil }
        for candidate in names.sorted() where candidate != name && candidate.hasPrefix(name) {
            let full = directory + "/" + candidate
            var st = stat()
            if stat(full, &st) == 0, UInt64(st.st_dev) == device, UInt64(st.st_ino) == inode,
                (st.st_mode & S_IFMT) == S_IFREG
            {
                return full
            }
        }
        return nil
    }

    static func hasCompleteLine(_ path: String) throws -> Bool {
        var found = false
        try LineReader.forEachLine(path: path, chunkSize: 64 * 1024) { _, _, complete in
            found = complete
            return false
        }
        return found
    }
}
