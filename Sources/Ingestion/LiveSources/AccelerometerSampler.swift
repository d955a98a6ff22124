import Foundation
import SensorInput
import StepDetection
import WallTime

#if canImport(Glibc)
    import Glibc
#endif

/// Samples an `AccelerometerDevice` on a thread of its own into its sample file until `stop()`. A device that is
/// missing or vanishes is reported (`.lost`) and retried every `retry` seconds; its return is reported
/// (`.recovered`). Buffered and evdev devices are read with blocking `poll(2)` (no wake-ups while nothing arrives);
/// polling runs as a task on that thread (`ThreadExecutor`) and sleeps on the clock once per sample.
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
    private var running = false
    private var pollTask: Task<Void, Never>?
    private let finished = DispatchSemaphore(value: 0)
    private var stopPipe: [Int32] = [-1, -1]
    /// The time of polled samples and the poller's sleeps, a stream's wall time when its device has none, and how
    /// long samples wait in the writer (tests inject one that never sleeps); nil: the time of day, the poller sleeping
    /// on the stop pipe (`StopPipeClock`).
    let injectedClock: WallClock?
    private let clock: WallClock

    public init(
        device: AccelerometerDevice, retry: TimeInterval = 1, clock: WallClock? = nil,
        onEvent: @escaping @Sendable (Event) -> Void = { _ in }
    ) {
        self.device = device
        self.retryNs = Int64(retry * 1e9)
        self.injectedClock = clock
        self.clock = clock ?? .system
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
        lock.withLock { running = true }
        if device.method == .poll {
            let executor = ThreadExecutor(name: "steptweet-sampler")
            let task = Task(executorPreference: executor) { [self] in
                onEvent(.started(device.summary))
                await runPolling(writer)
                finish(writer)
                executor.shutdown()
            }
            lock.withLock { pollTask = task }
            return
        }
        let t = Thread { [self] in
            onEvent(.started(device.summary))
            runStreaming(writer)
            finish(writer)
        }
        t.name = "steptweet-sampler"
        t.start()
    }

    /// Writes what is buffered and says the sampler stopped.
    private func finish(_ writer: SampleFileWriter) {
        try? writer.flush()
        onEvent(.stopped(samples: writer.written))
        finished.signal()
    }

    /// Stops sampling, writes what is buffered, and waits (at most `timeout` seconds) for the sampling to end.
    public func stop(timeout: TimeInterval = 5) {
        let (wasRunning, task): (Bool, Task<Void, Never>?) = lock.withLock {
            let r = running && !stopRequested
            stopRequested = true
            return (r, pollTask)
        }
        guard wasRunning else { return }
        task?.cancel()  // ends the poller's sleep at once
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

    private func runPolling(_ writer: SampleFileWriter) async {
        let iio = IIODevice(sysfsPath: device.sysfsPath, devNode: device.node)
        let clock = injectedClock ?? .system(sleepingOn: StopPipeClock { [self] ns in _ = waitForStop(ns: ns) })
        var poller = IIOPolledAccelerometer(device: iio, rateHz: device.rateHz, clock: clock)
        poller.retry = .nanoseconds(retryNs)
        // Written once a second, and at once after the first sample: the file shows the device working (and
        // `status` a last sample) from the start.
        let perFlush = max(1, Int(device.rateHz.rounded()))
        var sinceFlush = perFlush - 1
        var failed = false
        await poller.poll(
            while: { !self.shouldStop },
            { sample in
                writer.append(sample)
                sinceFlush += 1
                if sinceFlush >= perFlush {
                    sinceFlush = 0
                    self.flush(writer, failed: &failed)
                }
            },
            events: { event in
                switch event {
                case .lost(let e): self.onEvent(.lost(e.description))
                case .recovered(let p): self.onEvent(.recovered(p))
                }
            })
    }

    private func flush(_ writer: SampleFileWriter, failed: inout Bool) {
        do {
            try writer.flush()
            if failed {
                failed = false
                onEvent(.recovered(device.samplePath))
            }
        } catch {
            // A full disk: keep sampling into memory only up to a point, and say so once.
            if !failed {
                failed = true
                onEvent(.lost("\(error)"))
            }
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
            case .buffer(var b):
                let n = b.decode(bytes, sink)
                self = .buffer(b)
                return n
            case .evdev(var e):
                let n = e.decode(bytes, sink)
                self = .evdev(e)
                return n
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
        guard
            (try? String(contentsOfFile: enable, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
                != "1"
        else { return }
        func put(_ file: String, _ value: String) throws {
            do { try Data((value + "\n").utf8).write(to: URL(fileURLWithPath: file)) } catch {
                throw DeviceError(
                    path: file,
                    message:
                        "the IIO buffer is off and cannot be turned on (\(error.localizedDescription)); run once as root: for c in x y z; do echo 1 > \(iio.path)/scan_elements/in_accel_${c}_en; done; echo 1 > \(enable) — or set source.sampling = \"poll\""
                )
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
        while !shouldStop {
            let fd: Int32
            var decoder: Decoder
            do {
                decoder = try openDecoder()
                fd = open(device.node, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
                guard fd >= 0 else {
                    throw DeviceError(path: device.node, message: "cannot open: \(String(cString: strerror(errno)))")
                }
            } catch {
                if !lost {
                    lost = true
                    onEvent(.lost("\(error)"))
                }
                if waitForStop(ns: retryNs) { break }
                continue
            }
            if lost {
                lost = false
                onEvent(.recovered(device.node))
            }
            lost = readStream(
                fd, decoder: &decoder, buffer: UnsafeMutableRawBufferPointer(start: buffer, count: capacity),
                into: writer, failed: &failed)
            flush(writer, failed: &failed)
            close(fd)
            if lost && !shouldStop { _ = waitForStop(ns: retryNs) }
        }
        if let enable = bufferTurnedOn { try? Data("0\n".utf8).write(to: URL(fileURLWithPath: enable)) }
    }

    /// The shift from the device's timestamps to CLOCK_REALTIME when it can be known before the first sample: the
    /// difference of the named clocks for a buffer, none for polled samples; nil: judge from the first sample.
    private func knownClockOffset() -> Int64? {
        guard device.method == .buffer else { return 0 }
        return (try? String(contentsOfFile: device.sysfsPath + "/current_timestamp_clock", encoding: .utf8))
            .flatMap { Self.offsetToRealtime(clock: $0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    /// Reads and decodes the open stream into `writer` (writing at least once a second) until the sampler stops or
    /// the device is lost; returns whether it was lost.
    private func readStream(
        _ fd: Int32, decoder: inout Decoder, buffer: UnsafeMutableRawBufferPointer,
        into writer: SampleFileWriter, failed: inout Bool
    ) -> Bool {
        // Device timestamps in another clock than CLOCK_REALTIME are shifted by the clocks' difference now; when
        // the clock is not named, by the first sample's distance from now if it is clearly not a wall-clock time.
        var offset = knownClockOffset()
        if let offset, offset != 0 { onEvent(.clockOffset(offset)) }
        var filled = 0
        var sinceFlush = clock.stopwatch()  // how long samples wait in the writer: on the clock, not the time of day
        while !shouldStop {
            var fds = [
                pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
                pollfd(fd: stopPipe[0], events: Int16(POLLIN), revents: 0),
            ]
            // Block until data comes; with samples waiting to be written, wake within a second to write them.
            let rc = Glibc.poll(&fds, 2, writer.hasBuffered ? 1000 : -1)
            if rc < 0 && errno != EINTR { return false }
            if fds[1].revents != 0 { return false }
            if fds[0].revents & Int16(POLLIN) != 0 {
                let n = read(fd, buffer.baseAddress! + filled, buffer.count - filled)
                if n < 0 {
                    if errno == EAGAIN || errno == EINTR { continue }
                    onEvent(.lost("\(device.node): read failed (device gone?): \(String(cString: strerror(errno)))"))
                    return true
                }
                if n == 0 {
                    // End of a capture or of a FIFO's writer: wait, then look for more on the same descriptor.
                    flush(writer, failed: &failed)
                    if waitForStop(ns: retryNs) { return false }
                    continue
                }
                filled += n
                let used = decoder.decode(UnsafeRawBufferPointer(start: buffer.baseAddress, count: filled)) { s in
                    writer.append(shifted(s, offset: &offset))
                }
                if used < filled { memmove(buffer.baseAddress!, buffer.baseAddress! + used, filled - used) }
                filled -= used
            } else if fds[0].revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 {
                onEvent(.lost("\(device.node): device gone"))
                return true
            }
            if sinceFlush.elapsed() >= .seconds(1) || !writer.hasBuffered {
                flush(writer, failed: &failed)
                sinceFlush = clock.stopwatch()
            }
        }
        return false
    }

    /// `sample` in wall-clock time; the first sample of a stream whose clock is unknown fixes `offset`: its distance
    /// from now when it is clearly not a wall-clock time (before 2000), else none.
    private func shifted(_ sample: AccelerationSample, offset: inout Int64?) -> AccelerationSample {
        let epoch2000: Int64 = 946_684_800_000_000_000
        if offset == nil {
            offset =
                sample.time.nanosecondsSinceEpoch < epoch2000
                ? clock.nowInstant().nanosecondsSinceEpoch - sample.time.nanosecondsSinceEpoch : 0
            if offset != 0 { onEvent(.clockOffset(offset!)) }
        }
        var shifted = sample
        shifted.time.nanosecondsSinceEpoch += offset ?? 0
        return shifted
    }
}

extension AccelerometerSampler {
    /// Nanoseconds to add to a time read on the named IIO timestamp clock to make it CLOCK_REALTIME; nil for an
    /// unknown name. Measured on the real clocks whatever clock the sampler is given: the device stamps with the
    /// kernel's.
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
        let wall = WallClock.system
        var ts = timespec()
        let before = wall.nowInstant().nanosecondsSinceEpoch
        clock_gettime(id, &ts)  // the device's own timestamp clock, which no `Clock` reads: the one raw read here
        let after = wall.nowInstant().nanosecondsSinceEpoch
        return (before / 2 + after / 2) - (Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec))
    }
}

/// The continuous clock, slept on by waiting on the sampler's stop pipe: the poller's task runs on the sampler's own
/// thread, so one wake-up a sample (a task's sleep on `ContinuousClock` wakes a timer thread, a pool thread and then
/// this one), and a stop ends the wait at once.
struct StopPipeClock: Clock {
    let waitForStop: @Sendable (Int64) -> Void

    var now: ContinuousClock.Instant { .now }
    var minimumResolution: Duration { ContinuousClock().minimumResolution }

    func sleep(until deadline: ContinuousClock.Instant, tolerance: Duration?) async throws {
        let wait = now.duration(to: deadline).nanoseconds
        if wait > 0 { waitForStop(wait) }
        try Task.checkCancellation()
    }
}
