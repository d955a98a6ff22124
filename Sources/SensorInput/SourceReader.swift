import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import StepDetection

/// What an input yields: acceleration samples (to be run through the detector) or step readings (to be summed).
public enum InputItem: Sendable, Equatable {
    case sample(AccelerationSample)
    case reading(StepReading)
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

    public init(offset: Int64, lineNumber: Int, device: UInt64, inode: UInt64) {
        self.offset = offset
        self.lineNumber = lineNumber
        self.device = device
        self.inode = inode
    }
}

/// Reads what is new in an input since a cursor: the path behind the agent's ingestion and follow mode. Works for
/// every line-based format, acceleration or steps.
public enum SourceReader {
    /// Reads the complete lines after `cursor` (from the start when nil, or when the file was rotated — another
    /// inode — or truncated — smaller than the offset) and returns the cursor to pass next time. A last line without
    /// a newline is left for the next call; no line is delivered twice.
    public static func readNew(
        path: String,
        options: ReadOptions = ReadOptions(),
        cursor: SourceCursor?,
        _ sink: (InputItem) -> Void
    ) throws -> (summary: ReadSummary, cursor: SourceCursor?) {
        var st = stat()
        guard stat(path, &st) == 0 else { throw InputError(file: path, message: LineReader.openErrorMessage(errno)) }
        let device = UInt64(st.st_dev), inode = UInt64(st.st_ino), size = Int64(st.st_size)
        var previous = cursor
        if let c = cursor, c.device != device || c.inode != inode || size < c.offset {
            previous = nil  // rotated or truncated: the file is a new one, read it from its start
        }
        if size == 0 || size == previous?.offset {
            return (ReadSummary(format: previous?.format ?? options.format ?? "unknown"), previous ?? cursor)
        }
        let format: InputFormat
        if let name = previous?.format, let known = InputFormats.named(name) {
            format = known
        } else {
            if options.format == nil, !(try hasCompleteLine(path)) {
                return (ReadSummary(format: "unknown"), cursor)  // the writer has not finished the first line yet
            }
            format = try InputFormats.resolve(path: path, options: options)
        }
        let resume = previous.map {
            InputFormats.Resume(offset: $0.offset, lineNumber: $0.lineNumber, state: $0.parserState, generic: $0.generic)
        }
        let (summary, next) = try InputFormats.read(path: path, format: format, options: options, state: resume,
                                                    completeLinesOnly: true, sink)
        guard let next else { return (summary, previous ?? cursor) }
        var out = SourceCursor(offset: next.offset, lineNumber: next.lineNumber, device: device, inode: inode)
        out.generic = next.generic
        out.parserState = next.state
        out.format = format.name
        return (summary, out)
    }

    static func hasCompleteLine(_ path: String) throws -> Bool {
        var found = false
        try LineReader.forEachLine(path: path, chunkSize: 64 * 1024) { _, _, complete in found = complete; return false }
        return found
    }
}
