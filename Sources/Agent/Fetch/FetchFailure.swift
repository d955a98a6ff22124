import Foundation
import GRDB
import SensorInput

/// What kind of problem made a fetch `Failed`, chosen from typed errors (never from message text). Callers map it to
/// an exit status: `temporary` may succeed by itself later (75), `configuration` needs the configuration, a credential
/// or a source path fixed (78), `input` is a source that cannot be read as its format (65).
public enum FailureKind: String, Codable, Sendable, Comparable {
    /// Network, a server's 5xx or 429, the lock held, the deadline, a vanished device, a source not yet written.
    case temporary
    /// A source that cannot be read as its format.
    case input
    /// Configuration or credentials: missing credentials, a refused post (4xx), a source path that does not exist.
    case configuration

    /// The more serious of two kinds is the one a person must act on: configuration, then input, then temporary.
    public static func < (a: FailureKind, b: FailureKind) -> Bool { a.rank < b.rank }
    var rank: Int { self == .temporary ? 0 : self == .input ? 1 : 2 }

    /// The kind of a source read failure.
    static func of(_ error: InputError) -> FailureKind {
        switch error.kind {
        case .unreadable: return .configuration
        case .malformed: return .input
        case .notYetAvailable: return .temporary
        }
    }
}

/// A failure with its kind, for problems the fetch finds itself (not from a lower module's typed error).
struct FetchFailure: Error, CustomStringConvertible {
    var kind: FailureKind
    var message: String
    var description: String { message }
}

extension Fetcher {
    /// Whether the file system holding `path` has (almost) no space left.
    static func diskIsFull(near path: String) -> Bool {
        var info = statvfs()
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        guard statvfs(directory, &info) == 0 else { return false }
        return UInt64(info.f_bavail) * UInt64(info.f_frsize) < 64 * 1024
    }

    static func summarize(_ failures: [String]) -> String {
        failures.count == 1 ? failures[0] : "\(failures[0]) (and \(failures.count - 1) more)"
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
    /// or unopenable database needs a person.
    public static func kind(ofStateError error: Error) -> FailureKind {
        guard let e = error as? DatabaseError else { return .temporary }
        switch e.resultCode {
        case .SQLITE_CORRUPT, .SQLITE_NOTADB, .SQLITE_READONLY, .SQLITE_PERM, .SQLITE_CANTOPEN: return .configuration
        default: return .temporary
        }
    }
}
