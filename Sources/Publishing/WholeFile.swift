import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A file written whole or not at all: `count --plot`'s SVG, the charts of `preview --image`, `fetch --dry-run
/// --image-dir` and the file target, `eval --features`' tables.
public enum WholeFile {
    /// A file that could not be written whole: which, and the system's reason.
    public struct Failure: Error, CustomStringConvertible {
        public var path: String
        public var reason: String
        public init(path: String, reason: String) {
            self.path = path
            self.reason = reason
        }
        public var description: String { "cannot write \(path): \(reason)" }
    }

    /// Writes `bytes` beside `path` and renames them over it; returns the system's reason when that fails (nil when
    /// written). Foundation's `.atomic` goes through a folder in /tmp that it leaves behind on Linux, and its errors
    /// say "The file doesn't exist" without a path.
    public static func write(_ bytes: Data, to path: String) -> String? {
        let partial = path + ".partial"
        let fd = open(partial, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return String(cString: strerror(errno)) }
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        let reason = written == bytes.count ? nil : String(cString: strerror(written < 0 ? errno : ENOSPC))
        close(fd)
        guard reason == nil, rename(partial, path) == 0 else {
            let why = reason ?? String(cString: strerror(errno))
            unlink(partial)
            return why
        }
        return nil
    }
}
