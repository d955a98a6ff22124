import Foundation
import SensorInput
import Store

/// What kind of problem made a fetch `Failed`, chosen from typed errors (never from message text). Callers map it to
/// an exit status: `temporary` may succeed by itself later (75), `configuration` needs the configuration, a credential
/// or a source path fixed (78), `input` is a source that cannot be read as its format (65), `permission` is state
/// this user may not write (77), `cannotCreate` state that cannot be created where it is configured (73).
public enum FailureKind: String, Codable, Sendable, Comparable {
    /// Network, a server's 5xx or 429, the lock held, the deadline, a vanished device, a source not yet written.
    case temporary
    /// A source that cannot be read as its format.
    case input
    /// The state folder, database or a lock file may not be read or written by this user (EACCES, EPERM).
    case permission
    /// The state cannot be created where the configuration puts it: a path through a regular file, a read-only file
    /// system.
    case cannotCreate = "cannot_create"
    /// Configuration or credentials: missing credentials, a refused post (4xx), a source path that does not exist.
    case configuration

    /// The more serious of two kinds is the one a person must act on: configuration, then the state's permissions
    /// and path, then input, then temporary.
    public static func < (a: FailureKind, b: FailureKind) -> Bool { a.rank < b.rank }
    var rank: Int {
        switch self {
        case .temporary: return 0
        case .input: return 1
        case .cannotCreate: return 2
        case .permission: return 3
        case .configuration: return 4
        }
    }

    /// The kind of a file that could not be opened or created, from its `errno`.
    static func of(errno code: Int32) -> FailureKind {
        switch code {
        case EACCES, EPERM: return .permission
        case EROFS, ENOTDIR, ENOENT, EISDIR, ELOOP, ENAMETOOLONG: return .cannotCreate
        default: return .temporary
        }
    }

    /// The kind of a source read failure.
    static func of(_ error: InputError) -> FailureKind {
        switch error.kind {
        case .unreadable: return .configuration
        case .malformed: return .input
        case .notYetAvailable: return .temporary
        }
    }
}

extension StateStore {
    /// The kind of a state database error: locked, busy or a full disk may pass by themselves; a corrupt, read-only
    /// or unopenable database needs a person: its permissions (77), its path (73), else the configuration (78).
    public static func failureKind(of error: Error) -> FailureKind {
        if let e = error as? StateFileError { return FailureKind.of(errno: e.code) }
        if let e = error as? StateLockError { return e.kind }
        return needsPerson(error) ? .configuration : .temporary
    }
}

/// A failure with its kind, for problems the fetch finds itself (not from a lower module's typed error).
struct FetchFailure: Error, CustomStringConvertible {
    var kind: FailureKind
    var message: String
    var description: String { message }
}

extension Fetcher {
    static func summarize(_ failures: [String]) -> String {
        failures.count == 1 ? failures[0] : "\(failures[0]) (and \(failures.count - 1) more)"
    }
}

extension FetchReport {
    /// The fetch's one result: Failed with the gravest kind and every reason, else NewData when it closed a window or
    /// delivered a post, else NoData.
    mutating func conclude(failures: [(kind: FailureKind, reason: String)], delivered: Int) {
        if !failures.isEmpty {
            fail(failures.map(\.kind).max() ?? .temporary, Fetcher.summarize(failures.map(\.reason)))
        } else {
            result = !windows.isEmpty || delivered > 0 ? .newData : .noData
        }
    }
}

extension AgentConfiguration {
    /// An input error, with the key and line of `source.path` when it is about that file itself (it does not exist,
    /// it may not be read), as a configuration error names its key: `line 5: source.path: /x/walk.csv: no such file`.
    func described(_ error: InputError) -> String {
        guard error.kind == .unreadable, let s = source, let key = s.pathKey, error.file == s.path else {
            return "\(error)"
        }
        return "\(key): \(error)"
    }
}
