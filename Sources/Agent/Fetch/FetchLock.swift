import Foundation

/// An exclusive lock on `<state>.lock` so that two fetches (agent, timer, cron) never overlap.
final class FetchLock {
    let fd: Int32

    init(path: String) throws {
        try? FileManager.default.createDirectory(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path,
                                                 withIntermediateDirectories: true)
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw FetchLockError.cannotOpen(path, String(cString: strerror(errno))) }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            close(fd)
            throw FetchLockError.busy(path)
        }
    }

    func release() {
        flock(fd, LOCK_UN)
        close(fd)
    }
}

enum FetchLockError: Error, CustomStringConvertible {
    case cannotOpen(String, String)
    case busy(String)

    var description: String {
        switch self {
        case .cannotOpen(let p, let e): return "cannot open lock file \(p): \(e)"
        case .busy(let p): return "another fetch is running (lock \(p) is held)"
        }
    }
}
