import Foundation
import GRDB

#if canImport(Glibc)
    import Glibc
#endif

/// What a state database error means to a person, in one place for the fetch, the agent and the commands that read
/// the state (`status`, `history`, `outbox`, `steps`).
extension StateStore {
    /// Whether the file system holding `path` has (almost) no space left.
    static func diskIsFull(near path: String) -> Bool {
        var info = statvfs()
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        guard statvfs(directory, &info) == 0 else { return false }
        return UInt64(info.f_bavail) * UInt64(info.f_frsize) < 64 * 1024
    }

    /// A clear reason for a state database error: locked, corrupt, full disk, read-only, ...
    public static func describe(_ error: Error, path: String) -> String {
        if let e = error as? DatabaseError {
            switch e.resultCode {
            case .SQLITE_BUSY, .SQLITE_LOCKED:
                return "state database \(path) is locked by another process"
            case .SQLITE_CORRUPT, .SQLITE_NOTADB:
                return
                    "state database \(path) is corrupt or not a SQLite database (\(e.message ?? "\(e.resultCode)")); move it aside to start afresh"
            case .SQLITE_FULL:
                return "state database \(path): disk full"
            case .SQLITE_IOERR where Self.diskIsFull(near: path):
                return "state database \(path): disk full (\(e.message ?? "I/O error"))"
            case .SQLITE_READONLY, .SQLITE_PERM, .SQLITE_CANTOPEN:
                return "state database \(path) cannot be written (\(e.message ?? "\(e.resultCode)"))"
            default:
                return "state database \(path): \(e.message ?? "\(e.resultCode)")"
            }
        }
        return "\(error)"
    }

    /// The kind of a state database error: locked, busy or a full disk may pass by themselves; a corrupt, read-only
    /// or unopenable database needs a person: its permissions (77), its path (73), else the configuration (78).
    public static func failureKind(of error: Error) -> FailureKind {
        if let e = error as? StateFileError { return FailureKind.of(errno: e.code) }
        if let e = error as? StateLockError { return e.kind }
        guard let e = error as? DatabaseError else { return .temporary }
        switch e.resultCode {
        case .SQLITE_CORRUPT, .SQLITE_NOTADB, .SQLITE_READONLY, .SQLITE_PERM, .SQLITE_CANTOPEN: return .configuration
        default: return .temporary
        }
    }
}
