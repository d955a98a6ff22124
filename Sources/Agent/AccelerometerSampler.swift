import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Messages
import SensorInput
import StepDetection

/// A live accelerometer as a source (`source.device` naming an IIO accelerometer or an evdev node): the agent samples
/// it between fetches into a growing `time_ns,x,y,z` CSV (m/s²) next to the state database, and fetches read that file
/// with the usual cursor (complete lines only, never twice). The file is rotated to `<name>.1` past `rotateBytes`
/// when the previous rotated file has been read; a fetch deletes the rotated file once it has read it to its end.
public struct AccelerometerDevice: Sendable, Equatable {
    /// How the device is read.
    public enum Method: String, Sendable, Equatable {
        /// `in_accel_{x,y,z}_raw` polled at `rateHz` (works everywhere; costs a wake-up per sample).
        case poll
        /// The IIO buffer (`/dev/iio:deviceN`), timestamps from the device; enabled when it is not.
        case buffer
        /// An evdev node (`/dev/input/eventN`), blocking reads.
        case evdev
    }

    public var method: Method
    /// The IIO device's sysfs folder (poll, buffer); empty for evdev.
    public var sysfsPath: String
    /// The character device read (buffer, evdev); empty for poll.
    public var node: String
    /// Polling rate (poll only).
    public var rateHz: Double
    /// Where samples are written.
    public var samplePath: String
    /// Size past which the sample file is rotated.
    public var rotateBytes: Int64 = 32 << 20

    public init(method: Method, sysfsPath: String, node: String, rateHz: Double, samplePath: String) {
        self.method = method
        self.sysfsPath = sysfsPath
        self.node = node
        self.rateHz = rateHz
        self.samplePath = samplePath
    }

    /// The rotated file beside the sample file.
    public var rotatedPath: String { samplePath + ".1" }

    /// A short description for logs and `status`.
    public var summary: String {
        switch method {
        case .poll: return "\((sysfsPath as NSString).lastPathComponent) polled at \(Self.format(rateHz)) Hz"
        case .buffer: return "\(node) (IIO buffer)"
        case .evdev: return "\(node) (evdev)"
        }
    }

    static func format(_ hz: Double) -> String { hz == hz.rounded() ? String(Int(hz)) : String(hz) }

    /// After a fetch committed a cursor past the file it started in (`finishedInode`, read to its end): removes the
    /// rotated file if it is that file. A rotated file no fetch has finished is never removed.
    public func removeRotatedFile(ifFinished finishedInode: UInt64?) {
        var st = stat()
        guard let finishedInode, stat(rotatedPath, &st) == 0, UInt64(st.st_ino) == finishedInode else { return }
        unlink(rotatedPath)
    }
}

/// What `source.device` names, once resolved.
public enum SourceDevice: Sendable, Equatable {
    case stepCounter(StepCounterDevice)
    case accelerometer(AccelerometerDevice)

    /// Resolves `device` (`iio:device0`, `/dev/iio:device0`, a sysfs folder, or `/dev/input/eventN`) under the roots.
    /// `sampling` chooses how: `counter` (the hardware step counter, the default when there is one), `poll`
    /// (the default for an accelerometer without one) or `buffer`; an evdev node is always read as evdev.
    public static func resolve(_ device: String, roots: DeviceRoots, sampling: String?, rateHz: Double?,
                               stateDirectory: String) throws(ConfigurationError) -> SourceDevice {
        let name = (device as NSString).lastPathComponent
        let fileStem = URL(fileURLWithPath: stateDirectory).appendingPathComponent("device-" + name.replacingOccurrences(of: ":", with: "_")).path
        let rate = rateHz ?? 50
        guard rate > 0, rate <= 2000 else {
            throw ConfigurationError(path: "source.rate", message: "\(rate) Hz is not a sampling rate between 0 and 2000 Hz")
        }
        if device.contains("/input/") {
            if let s = sampling, s != "evdev" {
                throw ConfigurationError(path: "source.sampling", message: "'\(s)' does not apply to an evdev node (\(device)); leave it out")
            }
            let node = device.hasPrefix("/") ? device : roots.dev + "/input/" + name
            return .accelerometer(AccelerometerDevice(method: .evdev, sysfsPath: "", node: node, rateHz: rate,
                                                      samplePath: fileStem + ".accel.csv"))
        }
        let folder: String
        if device.hasPrefix("/dev/") || !device.contains("/") {
            guard name.hasPrefix("iio:device") else {
                throw ConfigurationError(path: "source.device", message: "'\(device)' is not an IIO device or evdev node (expected iio:deviceN, /dev/iio:deviceN, its sysfs folder, or /dev/input/eventN)")
            }
            folder = roots.sys + "/bus/iio/devices/" + name
        } else {
            folder = device
        }
        let fm = FileManager.default
        let hasCounter = fm.fileExists(atPath: folder + "/in_steps_input")
        let hasAccel = fm.fileExists(atPath: folder + "/in_accel_x_raw")
        let present = fm.fileExists(atPath: folder)
        let method = sampling ?? (hasCounter || !present ? "counter" : "poll")
        switch method {
        case "counter":
            if present && !hasCounter {
                throw ConfigurationError(path: "source.device", message: "\(folder) has no in_steps_input: not an IIO step counter")
            }
            return .stepCounter(StepCounterDevice(sysfsPath: folder, logPath: fileStem + ".steplog.jsonl"))
        case "poll", "buffer":
            if present && !hasAccel {
                throw ConfigurationError(path: "source.device", message: "\(folder) has no in_accel_x_raw: not an IIO accelerometer")
            }
            let node = device.hasPrefix("/dev/") ? device : roots.dev + "/" + (folder as NSString).lastPathComponent
            return .accelerometer(AccelerometerDevice(method: method == "poll" ? .poll : .buffer, sysfsPath: folder,
                                                      node: method == "poll" ? "" : node, rateHz: rate,
                                                      samplePath: fileStem + ".accel.csv"))
        default:
            throw ConfigurationError(path: "source.sampling", message: "'\(method)' is not \"counter\", \"poll\" or \"buffer\"")
        }
    }
}

/// Appends samples as `time_ns,x,y,z` lines (m/s², 5 decimals) to the sample file, in whole-line writes, and
/// rotates it. Samples not later than the last one written are dropped (a reader needs time to go forward).
final class SampleFileWriter: @unchecked Sendable {  // used by one thread at a time
    static let header = "time_ns,x,y,z\n"
    let device: AccelerometerDevice
    private var fd: Int32 = -1
    private var buffer: [UInt8] = []
    private var size: Int64 = 0
    private(set) var lastNs: Int64 = .min
    private(set) var written = 0
    var onRotate: (String) -> Void = { _ in }

    init(device: AccelerometerDevice) throws {
        self.device = device
        buffer.reserveCapacity(1 << 16)
        try open()
        try ensureHeader()
        lastNs = Self.lastTime(in: device.samplePath) ?? Self.lastTime(in: device.rotatedPath) ?? .min
    }

    deinit { if fd >= 0 { close(fd) } }

    private func open() throws {
        let path = device.samplePath
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        fd = Glibc.open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw DeviceError(path: path, message: "cannot write samples: \(String(cString: strerror(errno)))") }
        var st = stat()
        fstat(fd, &st)
        size = Int64(st.st_size)
        // A line cut short (power lost mid-write) would be glued to the next one: cut it off.
        if size > 0, let end = Self.endOfLastCompleteLine(fd: fd, size: size), end < size {
            _ = ftruncate(fd, off_t(end))
            size = end
        }
    }

    /// The header goes first into an empty file (also when writing it failed before, e.g. on a full disk).
    private func ensureHeader() throws {
        if size == 0 { try writeAll(Array(Self.header.utf8)) }
    }

    /// The offset just after the last newline within the file's last 64 KB (0 when there is none).
    static func endOfLastCompleteLine(fd: Int32, size: Int64) -> Int64? {
        let from = max(0, size - 65_536)
        var bytes = [UInt8](repeating: 0, count: Int(size - from))
        let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(from)) }
        guard n == bytes.count else { return nil }
        if let last = bytes.lastIndex(of: UInt8(ascii: "\n")) { return from + Int64(last) + 1 }
        return from == 0 ? 0 : nil
    }

    /// The time of the last complete line of an existing sample file, so a restart never writes time backwards.
    static func lastTime(in path: String) -> Int64? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        let end = (try? handle.seekToEnd()) ?? 0
        let from = end > 4096 ? end - 4096 : 0
        try? handle.seek(toOffset: from)
        let tail = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        let lines = tail.split(separator: "\n", omittingEmptySubsequences: true)
        let complete = tail.hasSuffix("\n") ? lines : lines.dropLast()
        for line in complete.reversed() {
            if let t = line.split(separator: ",").first.flatMap({ Int64($0) }) { return t }
        }
        return nil
    }

    /// Buffers one sample; returns false when it was dropped for not going forward in time.
    @discardableResult
    func append(_ s: AccelerationSample) -> Bool {
        guard s.timeNs > lastNs, s.x.isFinite, s.y.isFinite, s.z.isFinite else { return false }
        lastNs = s.timeNs
        Self.appendInteger(s.timeNs, to: &buffer)
        for v in [s.x, s.y, s.z] {
            buffer.append(UInt8(ascii: ","))
            Self.appendFixed(v, to: &buffer)
        }
        buffer.append(UInt8(ascii: "\n"))
        written += 1
        return true
    }

    var hasBuffered: Bool { !buffer.isEmpty }

    /// Writes what is buffered (whole lines), then rotates when the file is past its size and the rotated file was read.
    func flush() throws {
        guard !buffer.isEmpty else { return }
        if fd < 0 { try open() }  // reopening after a rotation failed earlier
        try ensureHeader()
        try writeAll(buffer)
        buffer.removeAll(keepingCapacity: true)
        if size >= device.rotateBytes && access(device.rotatedPath, F_OK) != 0 {
            guard rename(device.samplePath, device.rotatedPath) == 0 else {
                throw DeviceError(path: device.samplePath, message: "cannot rotate: \(String(cString: strerror(errno)))")
            }
            close(fd)
            fd = -1
            try open()
            try ensureHeader()
            onRotate(device.rotatedPath)
        }
    }

    /// Writes all of `bytes` or nothing: a failed write (a full disk) is cut back so no half line stays in the file.
    private func writeAll(_ bytes: [UInt8]) throws {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0 {
                if errno == EINTR { continue }
                let reason = String(cString: strerror(errno))
                _ = ftruncate(fd, off_t(size))
                if buffer.count > 8 << 20 { buffer.removeAll(keepingCapacity: true) }  // cannot hold more: these samples are lost
                throw DeviceError(path: device.samplePath, message: "cannot write samples: \(reason)")
            }
            done += n
        }
        size += Int64(bytes.count)
    }

    static func appendInteger(_ value: Int64, to out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        var v = value.magnitude
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var n = 0
        withUnsafeMutableBytes(of: &digits) { d in
            repeat { d[n] = UInt8(ascii: "0") + UInt8(v % 10); v /= 10; n += 1 } while v > 0
            for i in stride(from: n - 1, through: 0, by: -1) { out.append(d[i]) }
        }
    }

    /// `value` with 5 decimals (|value| is far below 2^63 / 10^5 for any acceleration).
    static func appendFixed(_ value: Double, to out: inout [UInt8]) {
        let scaled = (value * 100_000).rounded()
        guard abs(scaled) < 9e18 else { out.append(contentsOf: Array("0".utf8)); return }
        let units = Int64(scaled)
        if units < 0 { out.append(UInt8(ascii: "-")) }
        let m = units.magnitude
        appendInteger(Int64(m / 100_000), to: &out)
        out.append(UInt8(ascii: "."))
        var frac = m % 100_000
        var digits = [UInt8](repeating: UInt8(ascii: "0"), count: 5)
        for i in stride(from: 4, through: 0, by: -1) { digits[i] = UInt8(ascii: "0") + UInt8(frac % 10); frac /= 10 }
        out.append(contentsOf: digits)
    }
}

/// Samples an `AccelerometerDevice` on its own thread into its sample file until `stop()`. A device that is missing
/// or vanishes is reported (`.lost`) and retried every `retry` seconds; its return is reported (`.recovered`).
/// Buffered and evdev devices are read with blocking `poll(2)` (no wake-ups while nothing arrives); polling wakes
/// once per sample.
public final class AccelerometerSampler: @unchecked Sendable {
    public enum Event: Sendable, Equatable {
        case started(String)
        case lost(String)
        case recovered(String)
        case rotated(String)
        /// The device's timestamps are not wall-clock times (e.g. CLOCK_BOOTTIME): shifted by this many ns.
        case clockOffset(Int64)
        case stopped(samples: Int)
    }

    public let device: AccelerometerDevice
    let retryNs: Int64
    let onEvent: @Sendable (Event) -> Void
    private let lock = NSLock()
    private var stopRequested = false
    private var thread: Thread?
    private let finished = DispatchSemaphore(value: 0)
    private var stopPipe: [Int32] = [-1, -1]
    private var clockFactory: () -> any PollClock

    /// `clock` is used by the poll method (tests inject one that never sleeps).
    public init(device: AccelerometerDevice, retry: TimeInterval = 1,
                clock: @escaping () -> any PollClock = { SystemPollClock() },
                onEvent: @escaping @Sendable (Event) -> Void = { _ in }) {
        self.device = device
        self.retryNs = Int64(retry * 1e9)
        self.clockFactory = clock
        self.onEvent = onEvent
    }

    deinit {
        for fd in stopPipe where fd >= 0 { close(fd) }
    }

    private var shouldStop: Bool { lock.withLock { stopRequested } }

    /// Creates the sample file (so fetches find it) and starts sampling.
    public func start() throws {
        let writer = try SampleFileWriter(device: device)
        writer.onRotate = { [onEvent] path in onEvent(.rotated(path)) }
        guard pipe(&stopPipe) == 0 else { throw DeviceError(path: "pipe", message: String(cString: strerror(errno))) }
        let t = Thread { [self] in
            self.onEvent(.started(self.device.summary))
            switch self.device.method {
            case .poll: self.runPolling(writer)
            case .buffer, .evdev: self.runStreaming(writer)
            }
            try? writer.flush()
            self.onEvent(.stopped(samples: writer.written))
            self.finished.signal()
        }
        t.name = "steptweet-sampler"
        thread = t
        t.start()
    }

    /// Stops sampling, writes what is buffered, and waits (at most `timeout` seconds) for the thread to end.
    public func stop(timeout: TimeInterval = 5) {
        let wasRunning: Bool = lock.withLock {
            let r = thread != nil && !stopRequested
            stopRequested = true
            return r
        }
        guard wasRunning else { return }
        var byte: UInt8 = 1
        _ = write(stopPipe[1], &byte, 1)
        _ = finished.wait(timeout: .now() + timeout)
    }

    /// Waits up to `ns` for a stop; true when asked to stop.
    private func waitForStop(ns: Int64) -> Bool {
        var fds = [pollfd(fd: stopPipe[0], events: Int16(POLLIN), revents: 0)]
        _ = Glibc.poll(&fds, 1, Int32(clamping: max(0, (ns + 999_999) / 1_000_000)))
        return shouldStop
    }

    // MARK: polling

    private func runPolling(_ writer: SampleFileWriter) {
        let iio = IIODevice(sysfsPath: device.sysfsPath, devNode: device.node)
        let clock = AnyPollClock(clockFactory(), stopped: { [self] in shouldStop }, waitForStop: { [self] ns in _ = waitForStop(ns: ns) })
        var poller = IIOPolledAccelerometer(device: iio, rateHz: device.rateHz, clock: clock)
        poller.retryNs = retryNs
        let perFlush = max(1, Int(device.rateHz.rounded()))
        var sinceFlush = 0
        var failed = false
        poller.poll(while: { !self.shouldStop }, { sample in
            writer.append(sample)
            sinceFlush += 1
            if sinceFlush >= perFlush {
                sinceFlush = 0
                self.flush(writer, failed: &failed)
            }
        }, events: { event in
            switch event {
            case .lost(let e): self.onEvent(.lost(e.description))
            case .recovered(let p): self.onEvent(.recovered(p))
            }
        })
    }

    private func flush(_ writer: SampleFileWriter, failed: inout Bool) {
        do {
            try writer.flush()
            if failed { failed = false; onEvent(.recovered(device.samplePath)) }
        } catch {
            // A full disk: keep sampling into memory only up to a point, and say so once.
            if !failed { failed = true; onEvent(.lost("\(error)")) }
        }
    }

    // MARK: buffer and evdev

    /// Decodes bytes read from the device into samples.
    private enum Decoder {
        case buffer(IIOBufferedAccelerometer)
        case evdev(EvdevAccelerometer)
        var unit: Int {
            switch self {
            case .buffer(let b): return b.layout.scanBytes
            case .evdev: return EvdevAccelerometer.eventSize
            }
        }
        mutating func decode(_ bytes: UnsafeRawBufferPointer, _ sink: (AccelerationSample) -> Void) -> Int {
            switch self {
            case .buffer(var b): let n = b.decode(bytes, sink); self = .buffer(b); return n
            case .evdev(var e): let n = e.decode(bytes, sink); self = .evdev(e); return n
            }
        }
    }

    private func openDecoder() throws -> Decoder {
        switch device.method {
        case .evdev:
            // Only a character device answers EVIOCGABS; a capture or a FIFO (whose open would block without a
            // writer) is read with the 256-per-g convention.
            var st = stat()
            guard stat(device.node, &st) == 0 else {
                throw DeviceError(path: device.node, message: "cannot be opened: \(String(cString: strerror(errno)))")
            }
            if (st.st_mode & S_IFMT) != S_IFCHR { return .evdev(EvdevAccelerometer()) }
            return .evdev(try EvdevAccelerometer(devicePath: device.node))
        default:
            let iio = IIODevice(sysfsPath: device.sysfsPath, devNode: device.node)
            try enableBuffer(iio)
            return .buffer(try IIOBufferedAccelerometer(device: iio))
        }
    }

    /// Turns the IIO buffer on (x, y, z and timestamp channels) when it is off; a clear error when that is not allowed.
    private func enableBuffer(_ iio: IIODevice) throws {
        let enable = iio.path + "/buffer/enable"
        guard (try? String(contentsOfFile: enable, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) != "1" else { return }
        func put(_ file: String, _ value: String) throws {
            do { try Data((value + "\n").utf8).write(to: URL(fileURLWithPath: file)) } catch {
                throw DeviceError(path: file, message: "the IIO buffer is off and cannot be turned on (\(error.localizedDescription)); run once as root: for c in x y z; do echo 1 > \(iio.path)/scan_elements/in_accel_${c}_en; done; echo 1 > \(enable) — or set source.sampling = \"poll\"")
            }
        }
        for c in ["in_accel_x", "in_accel_y", "in_accel_z", "in_timestamp"] {
            let file = iio.path + "/scan_elements/\(c)_en"
            if FileManager.default.fileExists(atPath: file) { try put(file, "1") }
        }
        if device.rateHz > 0, let f = iio.samplingFrequency(atLeast: device.rateHz) {
            try? put(iio.path + "/sampling_frequency", String(f))
        }
        try put(enable, "1")
        bufferTurnedOn = enable
    }

    /// The `buffer/enable` file this sampler turned on, to turn off again when it stops (the sensor can then idle).
    private var bufferTurnedOn: String?

    private func runStreaming(_ writer: SampleFileWriter) {
        var lost = false
        var failed = false
        let capacity = 64 * 1024
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 8)
        defer { buffer.deallocate() }
        let epoch2000: Int64 = 946_684_800_000_000_000
        while !shouldStop {
            let fd: Int32
            var decoder: Decoder
            do {
                decoder = try openDecoder()
                fd = open(device.node, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
                guard fd >= 0 else { throw DeviceError(path: device.node, message: "cannot open: \(String(cString: strerror(errno)))") }
            } catch {
                if !lost { lost = true; onEvent(.lost("\(error)")) }
                if waitForStop(ns: retryNs) { break }
                continue
            }
            if lost { lost = false; onEvent(.recovered(device.node)) }
            // Device timestamps in another clock than CLOCK_REALTIME are shifted by the clocks' difference now; when
            // the clock is not named, by the first sample's distance from now if it is clearly not a wall-clock time.
            var offset: Int64? = device.method == .buffer
                ? (try? String(contentsOfFile: device.sysfsPath + "/current_timestamp_clock", encoding: .utf8))
                    .flatMap { Self.offsetToRealtime(clock: $0.trimmingCharacters(in: .whitespacesAndNewlines)) }
                : 0
            if let offset, offset != 0 { onEvent(.clockOffset(offset)) }
            var filled = 0
            var lastFlush = DispatchTime.now()
            reading: while !shouldStop {
                var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: stopPipe[0], events: Int16(POLLIN), revents: 0)]
                // Block until data comes; with samples waiting to be written, wake within a second to write them.
                let rc = Glibc.poll(&fds, 2, writer.hasBuffered ? 1000 : -1)
                if rc < 0 && errno != EINTR { break reading }
                if fds[1].revents != 0 { break reading }
                if fds[0].revents & Int16(POLLIN) != 0 {
                    let n = read(fd, buffer + filled, capacity - filled)
                    if n < 0 {
                        if errno == EAGAIN || errno == EINTR { continue }
                        onEvent(.lost("\(device.node): read failed (device gone?): \(String(cString: strerror(errno)))"))
                        lost = true
                        break reading
                    }
                    if n == 0 {
                        // End of a capture or of a FIFO's writer: wait, then look for more on the same descriptor.
                        flush(writer, failed: &failed)
                        if waitForStop(ns: retryNs) { break reading }
                        continue
                    }
                    filled += n
                    let used = decoder.decode(UnsafeRawBufferPointer(start: buffer, count: filled)) { s in
                        var sample = s
                        if offset == nil {
                            let now = SystemPollClock().nowNs()
                            offset = s.timeNs < epoch2000 ? now - s.timeNs : 0
                            if offset != 0 { onEvent(.clockOffset(offset!)) }
                        }
                        sample.timeNs += offset ?? 0
                        writer.append(sample)
                    }
                    if used < filled { memmove(buffer, buffer + used, filled - used) }
                    filled -= used
                } else if fds[0].revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 {
                    onEvent(.lost("\(device.node): device gone"))
                    lost = true
                    break reading
                }
                if DispatchTime.now().uptimeNanoseconds - lastFlush.uptimeNanoseconds >= 1_000_000_000 || !writer.hasBuffered {
                    flush(writer, failed: &failed)
                    lastFlush = DispatchTime.now()
                }
            }
            flush(writer, failed: &failed)
            close(fd)
            if lost && !shouldStop { _ = waitForStop(ns: retryNs) }
        }
        if let enable = bufferTurnedOn { try? Data("0\n".utf8).write(to: URL(fileURLWithPath: enable)) }
    }
}

extension AccelerometerSampler {
    /// Nanoseconds to add to a time read on the named IIO timestamp clock to make it CLOCK_REALTIME; nil for an
    /// unknown name.
    static func offsetToRealtime(clock name: String) -> Int64? {
        let id: clockid_t
        switch name {
        case "realtime", "realtime_coarse": return 0
        case "monotonic": id = CLOCK_MONOTONIC
        case "monotonic_raw": id = CLOCK_MONOTONIC_RAW
        case "monotonic_coarse": id = CLOCK_MONOTONIC_COARSE
        case "boottime": id = CLOCK_BOOTTIME
        case "tai": id = CLOCK_TAI
        default: return nil
        }
        func now(_ c: clockid_t) -> Int64 {
            var ts = timespec()
            clock_gettime(c, &ts)
            return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
        }
        let before = now(CLOCK_REALTIME), other = now(id), after = now(CLOCK_REALTIME)
        return (before / 2 + after / 2) - other
    }
}

/// A `PollClock` whose sleeps end early when the sampler is stopped.
struct AnyPollClock: PollClock {
    var base: any PollClock
    let stopped: () -> Bool
    let waitForStop: (Int64) -> Void

    init(_ base: any PollClock, stopped: @escaping () -> Bool, waitForStop: @escaping (Int64) -> Void) {
        self.base = base
        self.stopped = stopped
        self.waitForStop = waitForStop
    }

    func nowNs() -> Int64 { base.nowNs() }

    mutating func sleep(untilNs ns: Int64) {
        guard !stopped() else { return }
        if base is SystemPollClock {
            let wait = ns - base.nowNs()
            if wait > 0 { waitForStop(wait) }  // sleeps on the stop pipe: a stop ends it at once
        } else {
            base.sleep(untilNs: ns)
        }
    }
}
