import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A program the tests run, started with `posix_spawn`: the part of Foundation's `Process` the tests use, under the
/// same names (`run`, `processIdentifier`, `isRunning`, `terminate`, `waitUntilExit`, `terminationStatus`).
///
/// Why not `Process`: on Linux its `run()` (swift-corelibs-foundation up to Swift 6.3.1) lists `/proc/self/fd` with
/// a 256-byte copy of each entry's name, which can read past glibc's directory buffer and crash the whole test
/// process (swiftlang/swift-corelibs-foundation#5472; seen here once, in `CommandRunner` on a loaded machine). This
/// type closes every inherited descriptor above the three standard ones with glibc's `closefrom` file action
/// instead, so it lists nothing.
public final class ChildProcess: @unchecked Sendable {
    public var executableURL: URL?
    public var arguments: [String] = []
    /// The child's environment; nil inherits this process's.
    public var environment: [String: String]?
    /// The child's working folder; nil keeps this process's.
    public var currentDirectoryURL: URL?
    /// Each a `Pipe` (the child gets the end it uses) or a `FileHandle`; nil inherits this process's.
    public var standardInput: Any?
    public var standardOutput: Any?
    public var standardError: Any?

    private let lock = NSLock()
    private var pid: pid_t = 0
    private var exitStatus: Int32?

    public init() {}

    /// Why a child could not be started: the call that failed and its `errno`.
    public struct LaunchError: Error, CustomStringConvertible {
        public var call: String
        public var code: Int32
        public var description: String { "\(call): \(String(cString: strerror(code))) (\(code))" }
    }

    public var processIdentifier: Int32 { lock.withLock { pid } }

    /// Starts the program; throws `LaunchError` when it cannot be started (a missing or non-executable file).
    public func run() throws {
        guard let path = executableURL?.path else { throw LaunchError(call: "executableURL", code: ENOENT) }
        guard access(path, X_OK) == 0 else { throw LaunchError(call: "access(\(path))", code: errno) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        try Self.check("a standard stream's file action", streamActions(&actions).first { $0 != 0 } ?? 0)
        try Self.check("posix_spawn_file_actions_addclosefrom_np", Self.addCloseFrom(&actions, 3))
        if let folder = currentDirectoryURL?.path {
            try Self.check("posix_spawn_file_actions_addchdir_np", Self.addChdir(&actions, folder))
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Its own process group, as `Process` does: a terminal's Ctrl-C reaches the tests, not their children. And
        // started as a shell starts it: no signal blocked or ignored because a thread of the tests blocks or ignores it.
        var none = sigset_t()
        var all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let env = (environment ?? ProcessInfo.processInfo.environment).map { "\($0)=\($1)" }
        var child: pid_t = 0
        let result = Self.withCStrings([path] + arguments) { argv in
            Self.withCStrings(env) { envp in posix_spawn(&child, path, &actions, &attributes, argv, envp) }
        }
        try Self.check("posix_spawn(\(path))", result)
        lock.withLock { pid = child }
        closeChildEnds()
    }

    /// Whether the child has not ended yet (an ended child is reaped here, its status kept).
    public var isRunning: Bool {
        lock.withLock {
            guard pid > 0, exitStatus == nil else { return false }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid { exitStatus = status }
            return exitStatus == nil
        }
    }

    /// Sends SIGTERM to a started child (never to pid 0, which `kill` reads as the whole process group).
    public func terminate() {
        let child = processIdentifier
        if child > 0 { kill(child, SIGTERM) }
    }

    /// Blocks until the child ends: call it off the cooperative pool (`offThePool`).
    public func waitUntilExit() {
        let child = processIdentifier
        guard child > 0, lock.withLock({ exitStatus }) == nil else { return }
        var status: Int32 = 0
        var reaped: pid_t
        repeat { reaped = waitpid(child, &status, 0) } while reaped == -1 && errno == EINTR
        lock.withLock { if exitStatus == nil, reaped == child { exitStatus = status } }
    }

    /// How the child ended, as `Process` says it.
    public enum TerminationReason: Sendable { case exit, uncaughtSignal }

    /// The exit code, or the signal that ended the child (as `Process` says it); 0 before it ended.
    public var terminationStatus: Int32 {
        guard let status = lock.withLock({ exitStatus }) else { return 0 }
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : signal
    }

    /// `.exit` when the child returned an exit code (and before it ended), `.uncaughtSignal` when a signal ended it.
    public var terminationReason: TerminationReason {
        (lock.withLock { exitStatus }).map { $0 & 0x7F == 0 ? .exit : .uncaughtSignal } ?? .exit
    }

    /// One file action per standard stream that does not inherit this process's: a `dup2` of the descriptor the child
    /// gets, or an open of /dev/null for `FileHandle.nullDevice` (which has no descriptor of its own); their results.
    private func streamActions(_ actions: inout posix_spawn_file_actions_t) -> [Int32] {
        [(standardInput, STDIN_FILENO), (standardOutput, STDOUT_FILENO), (standardError, STDERR_FILENO)]
            .compactMap { stream, target in
                switch stream {
                case let pipe as Pipe:
                    let end = target == STDIN_FILENO ? pipe.fileHandleForReading : pipe.fileHandleForWriting
                    return posix_spawn_file_actions_adddup2(&actions, end.fileDescriptor, target)
                case let handle as FileHandle where handle.fileDescriptor >= 0:
                    return posix_spawn_file_actions_adddup2(&actions, handle.fileDescriptor, target)
                case is FileHandle:
                    return posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_RDWR, 0)
                default: return nil
                }
            }
    }

    /// Closes this process's copy of the ends the child uses, so reading a pipe ends when the child does.
    private func closeChildEnds() {
        if let pipe = standardInput as? Pipe { try? pipe.fileHandleForReading.close() }
        if let pipe = standardOutput as? Pipe { try? pipe.fileHandleForWriting.close() }
        if let pipe = standardError as? Pipe { try? pipe.fileHandleForWriting.close() }
    }

    private static func check(_ call: String, _ result: Int32) throws {
        if result != 0 { throw LaunchError(call: call, code: result) }
    }

    /// `strings` as a NULL-terminated array of C strings, for `argv` and `envp`.
    private static func withCStrings<T>(
        _ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> T
    ) -> T {
        let pointers = strings.map { strdup($0) } + [nil]
        defer { pointers.forEach { free($0) } }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }

    // glibc has both (2.34 and 2.29), but Swift's Glibc module does not declare them: looked up once by name.
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private typealias AddChdir =
        @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
    private static let closeFrom = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np").map {
        unsafeBitCast($0, to: AddCloseFrom.self)
    }
    private static let chdir = dlsym(nil, "posix_spawn_file_actions_addchdir_np").map {
        unsafeBitCast($0, to: AddChdir.self)
    }

    private static func addCloseFrom(_ actions: inout posix_spawn_file_actions_t, _ lowest: Int32) -> Int32 {
        closeFrom.map { $0(&actions, lowest) } ?? ENOSYS
    }

    private static func addChdir(_ actions: inout posix_spawn_file_actions_t, _ folder: String) -> Int32 {
        chdir.map { add in folder.withCString { add(&actions, $0) } } ?? ENOSYS
    }
}
