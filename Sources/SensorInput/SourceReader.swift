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

    public init(offset: Int64, lineNumber: Int, device: UInt64, inode: UInt64) {
        self.offset = offset
        self.lineNumber = lineNumber
        self.device = device
        self.inode = inode
    }
}

/// Reads what is new in an input since a cursor: the path behind the agent's ingestion and follow mode.
public enum SourceReader {
    /// Reads the complete lines after `cursor` (from the start when nil, or when the file was rotated or truncated)
    /// and returns the cursor to pass next time. A last line without a newline is left for the next call.
    public static func readNew(
        path: String,
        options: ReadOptions = ReadOptions(),
        cursor: SourceCursor?,
        _ sink: (InputItem) -> Void
    ) throws -> (summary: ReadSummary, cursor: SourceCursor?) {
        var st = stat()
        guard stat(path, &st) == 0 else { throw InputError(file: path, message: LineReader.openErrorMessage(errno)) }
        let device = UInt64(st.st_dev), inode = UInt64(st.st_ino), size = Int64(st.st_size)
        var resume = cursor?.generic
        if let c = cursor, c.device != device || c.inode != inode || size < c.offset {
            resume = nil  // rotated or truncated: the file is a new one, read it from its start
        }
        let (summary, next) = try GenericCSVReader.read(path: path, options: options, resume: resume,
                                                        completeLinesOnly: true) { sink(.sample($0)) }
        guard let next else { return (summary, cursor) }
        var out = SourceCursor(offset: next.offset, lineNumber: next.lineNumber, device: device, inode: inode)
        out.generic = next
        return (summary, out)
    }
}
