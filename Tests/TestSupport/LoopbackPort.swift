import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Ports of 127.0.0.1 for a server process a test starts (an agent's receiver), and starting it again when its port
/// was taken.
///
/// A port can only be chosen free, not kept free: between the choice and the process's bind, another test's server
/// (the suites run in parallel) may take it. The process then exits (an agent with code 75, naming the address), so
/// a test starts it through `startedOnFreePort`, which starts it again on another port.
public enum LoopbackPort {
    /// A TCP socket bound to a port of 127.0.0.1 the kernel chose: its descriptor (to close) and the port.
    public static func boundSocket() -> (fd: Int32, port: UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, UInt16(bigEndian: address.sin_port))
    }

    /// A port nothing listens on now (the kernel's choice for a socket bound to port 0, closed again).
    public static func free() -> UInt16 {
        let (fd, port) = boundSocket()
        close(fd)
        return port
    }
}

/// Starts a server process on a port of 127.0.0.1 that was free when chosen, and again on another port while it
/// exits instead (its port was taken before it could bind it), up to `attempts` times. `start` launches it on the
/// port and returns once the process answers or has exited, with what the test needs and the process. Returns the
/// first start whose process still runs, or the last start when none does (the test's expectations then say why).
/// `ports` chooses each port (a test of the retry offers a taken one first).
public func startedOnFreePort<T>(
    attempts: Int = 5, ports: () -> UInt16 = LoopbackPort.free,
    _ start: (_ port: UInt16) async throws -> (value: T, process: ChildProcess)
) async throws -> T {
    precondition(attempts > 0, "at least one attempt")
    var last: T?
    for _ in 0..<attempts {
        let (value, process) = try await start(ports())
        last = value
        if process.isRunning { break }
        await offThePool { process.waitUntilExit() }
    }
    return last!
}
