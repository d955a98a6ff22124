import Foundation
import GRDB
import SensorInput

/// What kind of problem failed a fetch, for callers that choose an exit status or a retry policy. Chosen from the
/// error's type where it is thrown or caught, never from its message.
public enum FetchFailureKind: String, Codable, Sendable, Equatable {
    /// Likely to pass by itself: network, 5xx/429, lock held, deadline, a vanished device, a source the sampler has
    /// not written yet, a busy or full database.
    case temporary
    /// Needs the user: configuration or credentials, a source path that does not exist or may not be read, a
    /// target that refuses the post for good.
    case configuration
    /// An input that cannot be read as its format (or a state database that is not one).
    case input
}

/// One reason a fetch failed, with its kind.
struct FetchFailure: Sendable {
    var reason: String
    var kind: FetchFailureKind
}

/// An error whose kind is known where it is thrown; prints as the error it wraps.
struct ClassifiedError: Error, CustomStringConvertible {
    var kind: FetchFailureKind
    var underlying: any Error
    var description: String { "\(underlying)" }
}

extension FetchFailureKind {
    /// The kind of `error` as the fetch sees it.
    static func of(_ error: any Error) -> FetchFailureKind {
        switch error {
        case let e as ClassifiedError: return e.kind
        case let e as InputError: return e.kind == .malformed ? .input : .configuration
        case let e as FetchLockError:
            if case .busy = e { return .temporary }
            return .configuration
        case let e as DatabaseError:
            switch e.resultCode {
            case .SQLITE_CORRUPT, .SQLITE_NOTADB: return .input
            case .SQLITE_READONLY, .SQLITE_PERM, .SQLITE_CANTOPEN: return .configuration
            default: return .temporary
            }
        default: return .temporary
        }
    }

    /// The kind of a delivery that did not go through: refused for good means the target's configuration or
    /// credentials; a target missing from the configuration likewise; anything else is retried later.
    static func of(_ delivery: FetchReport.Delivery, targetKnown: Bool) -> FetchFailureKind {
        if delivery.outcome == "permanent" || !targetKnown { return .configuration }
        return .temporary
    }
}
