import Foundation
import Publishing
import Store

#if canImport(Glibc)
    import Glibc
#endif

/// An exclusive `flock(2)` on a file beside the state database, holding the holder's PID:
/// - `<state>.lock` while a fetch runs, so that two fetches (agent, timer, cron) never overlap;
/// - `<state>.agent.lock` for an agent's whole life, so that only one agent runs per state database.
/// The kernel drops the lock when its holder exits, even by SIGKILL, so a stale lock never blocks anyone.
final class StateLock {
    let fd: Int32
    let path: String

    /// Takes the lock now, or throws `StateLockError.busy` naming the holder.
    init(path: String) throws {
        try? FileManager.default.createDirectory(
            atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path,
            withIntermediateDirectories: true)
        self.path = path
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            // The file system says what is in the way (ENOENT: the folder could not be created above).
            let code = errno
            let obstacle = StateFileError.find(path: path, writing: true)
            let parent = (path as NSString).deletingLastPathComponent
            throw StateLockError.cannotOpen(
                path, errno: code == ENOENT ? obstacle?.code ?? code : code, folder: obstacle?.obstacle,
                folderMissing: code == ENOENT && access(parent, F_OK) != 0)
        }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let holder = Self.recordedPID(fd)
            close(fd)
            throw StateLockError.busy(path, holder)
        }
        let text = "\(getpid())\n"
        _ = ftruncate(fd, 0)
        _ = text.withCString { pwrite(fd, $0, strlen($0), 0) }
    }

    /// Takes the lock, waiting for it while `deadline` allows (polling every 50 ms on the deadline's clock), else
    /// throws `busy`.
    static func acquire(path: String, waitingUntil deadline: Deadline) async throws -> StateLock {
        while true {
            do { return try StateLock(path: path) } catch StateLockError.busy(let p, let holder) {
                guard deadline.remaining > .milliseconds(50), !Task.isCancelled else {
                    throw StateLockError.busy(p, holder)
                }
                try? await deadline.pause(for: .milliseconds(50))
            }
        }
    }

    func release() {
        _ = ftruncate(fd, 0)
        flock(fd, LOCK_UN)
        close(fd)
    }

    /// The PID of the process holding the lock at `path` now, or nil when nobody holds it (or the file is absent).
    static func holder(of path: String) -> Int32? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        if flock(fd, LOCK_SH | LOCK_NB) == 0 {
            flock(fd, LOCK_UN)
            return nil
        }
        return recordedPID(fd) ?? 0
    }

    static func recordedPID(_ fd: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let n = pread(fd, &buffer, buffer.count, 0)
        guard n > 0 else { return nil }
        return Int32(String(decoding: buffer[0..<n], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}

enum StateLockError: Error, CustomStringConvertible {
    /// The lock file could not be opened or created, with `errno`, the folder in the way if the file system says, and
    /// whether its own folder was missing then (looked at when thrown: a message is never made by asking the file
    /// system again, which may have changed).
    case cannotOpen(String, errno: Int32, folder: String?, folderMissing: Bool)
    case busy(String, Int32?)

    /// Busy may pass by itself; a lock file that cannot be opened needs a person (permissions, a path).
    var kind: FailureKind {
        if case .cannotOpen(_, let e, _, _) = self { return FailureKind.of(errno: e) }
        return .temporary
    }

    var description: String {
        switch self {
        case .cannotOpen(let p, let e, let folder, let folderMissing):
            // The lock is beside the state database: the key to change is state.path.
            let key = "; state.path must be in a folder this user can create and write"
            if e == ENOTDIR, let folder { return "cannot open lock file \(p): \(folder) is not a folder\(key)" }
            let reason = String(cString: strerror(e))
            let parent = (p as NSString).deletingLastPathComponent
            if e == ENOENT, folder == nil, folderMissing {
                return "cannot open lock file \(p): the state folder \(parent) could not be created (\(reason))\(key)"
            }
            let place = folder.map { " in the folder \($0)" } ?? ""
            let hint = kind == .permission ? " (it must be writable by the user that runs steptweet)" : ""
            return "cannot open lock file \(p): \(reason)\(place)\(hint)\(key)"
        case .busy(let p, let pid):
            let who = pid.map { " (pid \($0))" } ?? ""
            return p.hasSuffix(".agent.lock")
                ? "another agent\(who) is running on this state database (lock \(p) is held)"
                : "busy: another fetch\(who) held the state database for the whole budget (lock \(p))"
        }
    }
}
