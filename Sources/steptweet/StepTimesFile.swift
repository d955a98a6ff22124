import Foundation

/// `count --step-times FILE`: one step time (ns) a line, written as the detector reports them through a 64 KB buffer,
/// so memory stays flat however many steps a recording holds. The lines go to a temporary file beside `path`, renamed
/// over it at `finish()`: the file appears whole or not at all.
final class StepTimesFile {
    /// The step times could not be written (exit 73): which file, and why.
    struct WriteError: Error, CustomStringConvertible {
        var path: String
        var reason: String
        var description: String { "cannot write step times to \(path): \(reason)" }
    }

    private let path: String
    private let partial: String
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private var finished = false
    /// The first write that failed (a full disk): reported by `finish()`.
    private var writeError: WriteError?

    init(path: String) throws {
        self.path = path
        partial = path + ".partial-\(getpid())"
        let fd = open(partial, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw WriteError(path: path, reason: String(cString: strerror(errno))) }
        handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        buffer.reserveCapacity(65_536)
    }

    deinit {
        if !finished { unlink(partial) }  // a failed count: leave nothing half-written behind
    }

    /// Adds one line: the time's decimal digits straight into the buffer (no string per step).
    func append(_ timeNs: Int64) {
        if timeNs < 0 { buffer.append(0x2D) }
        var rest = timeNs.magnitude
        let start = buffer.count
        repeat {
            buffer.append(0x30 + UInt8(rest % 10))
            rest /= 10
        } while rest > 0
        buffer[start...].reverse()
        buffer.append(0x0A)
        if buffer.count >= 65_000 { flush() }
    }

    /// Writes what is buffered, closes the file and puts it in place.
    func finish() throws {
        flush()
        if let writeError { throw writeError }
        guard rename(partial, path) == 0 else { throw WriteError(path: path, reason: String(cString: strerror(errno))) }
        finished = true
    }

    private func flush() {
        defer { buffer.removeAll(keepingCapacity: true) }
        guard !buffer.isEmpty, writeError == nil else { return }
        do { try handle.write(contentsOf: buffer) } catch {
            writeError = WriteError(path: path, reason: "\(error.localizedDescription)")
        }
    }
}
