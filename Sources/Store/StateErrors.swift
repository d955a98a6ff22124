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

    /// Whether a state database error needs a person: a corrupt, read-only or unopenable database (its permissions,
    /// its path, else the configuration); a locked or busy database, or a full disk, may pass by itself.
    public static func needsPerson(_ error: Error) -> Bool {
        guard let e = error as? DatabaseError else { return false }
        return [.SQLITE_CORRUPT, .SQLITE_NOTADB, .SQLITE_READONLY, .SQLITE_PERM, .SQLITE_CANTOPEN].contains(
            e.resultCode)
    }
}

/// The state database, or the folder that holds it, cannot be opened, created or written, with the file system's
/// reason: SQLite's codes (`SQLITE_CANTOPEN`, `SQLITE_READONLY`) do not say whether a permission or a path is wrong.
public struct StateFileError: Error, CustomStringConvertible {
    /// The state database.
    public var path: String
    /// What is in the way: the database file, or the nearest existing folder above it.
    public var obstacle: String
    public var code: Int32

    public var description: String {
        let reason = String(cString: strerror(code))
        if obstacle == path { return "state database \(path) cannot be opened: \(reason)" }
        if code == ENOTDIR { return "state database \(path) cannot be created: \(obstacle) is not a folder" }
        return "state database \(path) cannot be created or written: \(reason) in the folder \(obstacle)"
    }

    /// What stands in the way of reading (and, with `writing`, writing) `path` and of creating files beside it (the
    /// journal, a lock): the file itself, else the nearest existing folder above it; nil when nothing does, or when
    /// the file system does not say.
    package static func find(path: String, writing: Bool) -> StateFileError? {
        if access(path, F_OK) == 0, access(path, writing ? R_OK | W_OK : R_OK) != 0 {
            return StateFileError(path: path, obstacle: path, code: errno)
        }
        var folder = (path as NSString).deletingLastPathComponent
        while !folder.isEmpty {
            var info = stat()
            if stat(folder, &info) == 0 {
                guard info.st_mode & S_IFMT == S_IFDIR else {
                    return StateFileError(path: path, obstacle: folder, code: ENOTDIR)
                }
                guard access(folder, writing ? W_OK | X_OK : X_OK) != 0 else { return nil }
                return StateFileError(path: path, obstacle: folder, code: errno)
            }
            let parent = (folder as NSString).deletingLastPathComponent
            if parent == folder { return nil }
            folder = parent
        }
        return nil
    }
}
