import Foundation

/// `count --step-times FILE`: one step time (ns) a line, written as the detector reports them through a 64 KB buffer,
/// so memory stays flat however many steps a recording holds. The lines go to a temporary file beside `path`, renamed
/// over it at `finish()`: the file appears whole or not at all.
final class StepTimesFile {
    private let path: String
    private let partial: String
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private var finished = false
    /// The first write that failed (a full disk): reported by `finish()`.
    private var writeError: (any Error)?

    init(path: String) throws {
        self.path = path
        partial = path + ".partial-\(getpid())"
        guard FileManager.default.createFile(atPath: partial, contents: nil),
              let handle = FileHandle(forWritingAtPath: partial) else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path])
        }
        self.handle = handle
        buffer.reserveCapacity(65_536)
    }

    deinit {
        if !finished {  // a failed count: leave nothing half-written behind
            try? handle.close()
            unlink(partial)
        }
    }

    func append(_ timeNs: Int64) {
        buffer.append(contentsOf: "\(timeNs)\n".utf8)
        if buffer.count >= 65_000 { flush() }
    }

    /// Writes what is buffered, closes the file and puts it in place.
    func finish() throws {
        flush()
        if let writeError { throw writeError }
        try handle.close()
        guard rename(partial, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(partial)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path, NSLocalizedDescriptionKey: "\(path): \(reason)"])
        }
        finished = true
    }

    private func flush() {
        guard !buffer.isEmpty, writeError == nil else { return buffer.removeAll(keepingCapacity: true) }
        do { try handle.write(contentsOf: buffer) } catch { writeError = error }
        buffer.removeAll(keepingCapacity: true)
    }
}
