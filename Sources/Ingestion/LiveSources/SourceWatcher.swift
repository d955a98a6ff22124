import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Calls `onChange` when the source file is written, created or moved into place (inotify on its directory), so the
/// walk trigger sees new data without polling. A dedicated thread blocks in `poll(2)`; `stop()` ends it.
public final class SourceWatcher: @unchecked Sendable {
    private let inotifyFD: Int32
    private let stopPipe: [Int32]
    private let thread: Thread
    private let lock = NSLock()
    private var stopped = false

    /// Starts watching `path`; throws when inotify is not available.
    public init(path: String, onChange: @escaping @Sendable () -> Void) throws {
        #if os(Linux)
            let url = URL(fileURLWithPath: path)
            // A folder source (Garmin FIT files): any file written in it or in its subfolders (Monitor, Activity) counts.
            var isFolder: ObjCBool = false
            let folder = FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && isFolder.boolValue
            let directory = folder ? path : url.deletingLastPathComponent().path
            let name = url.lastPathComponent
            let fd = inotify_init1(Int32(IN_CLOEXEC))
            guard fd >= 0 else { throw WatchError(message: "inotify_init1: \(String(cString: strerror(errno)))") }
            let mask = UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_CREATE | IN_MOVED_TO)
            guard inotify_add_watch(fd, directory, mask) >= 0 else {
                close(fd)
                throw WatchError(message: "cannot watch \(directory): \(String(cString: strerror(errno)))")
            }
            if folder {
                for sub in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] {
                    _ = inotify_add_watch(fd, path + "/" + sub, mask)  // fails harmlessly for files
                }
            }
            var p: [Int32] = [0, 0]
            guard pipe(&p) == 0 else {
                close(fd)
                throw WatchError(message: "pipe: \(String(cString: strerror(errno)))")
            }
            inotifyFD = fd
            stopPipe = p
            let stopRead = p[0]
            let stopWrite = p[1]
            thread = Thread {
                defer {
                    close(fd)
                    close(stopRead)
                    close(stopWrite)
                }
                var buffer = [UInt8](repeating: 0, count: 8192)
                while true {
                    var fds = [
                        pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
                        pollfd(fd: stopRead, events: Int16(POLLIN), revents: 0),
                    ]
                    if poll(&fds, 2, -1) < 0 { if errno == EINTR { continue } else { return } }
                    if fds[1].revents != 0 { return }
                    let n = read(fd, &buffer, buffer.count)
                    if n > 0 && Self.touches(buffer[..<n], name: folder ? nil : name) { onChange() }
                }
            }
            thread.start()
        #else
            throw WatchError(message: "watching files needs inotify (Linux)")
        #endif
    }

    /// Whether the inotify events in `events` name `name` (any name when nil).
    static func touches(_ events: ArraySlice<UInt8>, name: String?) -> Bool {
        let n = events.count
        let buffer = Array(events)
        var offset = 0
        var touched = false
        while offset + 16 <= n {
            let len =
                Int(buffer[offset + 12]) | Int(buffer[offset + 13]) << 8 | Int(buffer[offset + 14]) << 16
                | Int(buffer[offset + 15]) << 24
            let nameBytes = buffer[(offset + 16)..<min(n, offset + 16 + len)].prefix { $0 != 0 }
            if name == nil || String(decoding: nameBytes, as: UTF8.self) == name { touched = true }
            offset += 16 + len
        }
        return touched
    }

    public func stop() {
        lock.lock()
        defer { lock.unlock() }
        guard !stopped else { return }
        stopped = true
        var byte: UInt8 = 1
        _ = write(stopPipe[1], &byte, 1)
    }

    deinit {
        stop()
    }
}

struct WatchError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
