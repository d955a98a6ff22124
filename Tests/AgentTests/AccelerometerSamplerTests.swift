import Foundation
import Messages
import Publishing
import SensorInput
import StepDetection
import Testing
import WallTime

@testable import Agent
@testable import Ingestion
@testable import Store

#if canImport(Glibc)
    import Glibc
#endif

/// A fake IIO accelerometer (no step counter) in a temporary `/sys` + `/dev` tree.
struct FakeAccelerometerTree {
    let dir: TempDir
    var sys: String { dir.path("sys") }
    var dev: String { dir.path("dev") }
    var device: String { sys + "/bus/iio/devices/iio:device0" }

    init(scale: String = "0.001") throws {
        dir = try TempDir()
        try FileManager.default.createDirectory(atPath: dir.path("dev"), withIntermediateDirectories: true)
        let files = [
            "name": "fake_accel", "in_accel_x_raw": "0", "in_accel_y_raw": "0", "in_accel_z_raw": "9810",
            "in_accel_scale": scale, "sampling_frequency": "50",
            "in_accel_sampling_frequency_available": "12.5 25 50 100",
            "buffer/enable": "0", "buffer/length": "128",
            "scan_elements/in_accel_x_en": "0", "scan_elements/in_accel_x_index": "0",
            "scan_elements/in_accel_x_type": "le:s16/16>>0",
            "scan_elements/in_accel_y_en": "0", "scan_elements/in_accel_y_index": "1",
            "scan_elements/in_accel_y_type": "le:s16/16>>0",
            "scan_elements/in_accel_z_en": "0", "scan_elements/in_accel_z_index": "2",
            "scan_elements/in_accel_z_type": "le:s16/16>>0",
            "scan_elements/in_timestamp_en": "0", "scan_elements/in_timestamp_index": "3",
            "scan_elements/in_timestamp_type": "le:s64/64>>0",
        ]
        for (name, text) in files { try write(name, text) }
    }

    func write(_ name: String, _ text: String) throws {
        let url = URL(fileURLWithPath: device + "/" + name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data((text + "\n").utf8).write(to: url)
    }

    func read(_ name: String) -> String? {
        (try? String(contentsOfFile: device + "/" + name, encoding: .utf8))?.trimmingCharacters(
            in: .whitespacesAndNewlines)
    }

    func configuration(sampling: String? = nil, rate: Double? = nil, extra: String = "") throws -> AgentConfiguration {
        var text = "[source]\ndevice = \"iio:device0\"\nsys_root = \"\(sys)\"\ndev_root = \"\(dev)\"\n"
        if let sampling { text += "sampling = \"\(sampling)\"\n" }
        if let rate { text += "rate = \(rate)\n" }
        text +=
            extra
            + "[schedule]\ninterval = \"10m\"\n[text]\ntime_zone = \"Asia/Tokyo\"\n[state]\npath = \"state/state.sqlite\"\n"
        return try AgentConfiguration.parse(
            TestBudget.applied(to: text), file: dir.path("config.toml"), environment: [:])
    }
}

/// Events a sampler reported, collected across its thread.
final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [AccelerometerSampler.Event] = []
    func add(_ e: AccelerometerSampler.Event) { lock.withLock { items.append(e) } }
    var all: [AccelerometerSampler.Event] { lock.withLock { items } }
}

/// Lines of the sample file after its header.
func sampleLines(_ path: String) -> [String] {
    let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    return text.split(separator: "\n").dropFirst().map(String.init)
}

@Suite(.timeLimit(.minutes(1))) struct AccelerometerSamplerTests {
    @Test func sourceDeviceResolvesToTheRightSampling() throws {
        let tree = try FakeAccelerometerTree()
        let polled = try #require(try tree.configuration().source?.accelerometer)
        #expect(polled.method == .poll && polled.rateHz == 50 && polled.node == "")
        #expect(polled.samplePath == tree.dir.path("state/device-iio_device0.accel.csv"))
        let source = try #require(try tree.configuration(sampling: "buffer", rate: 100).source)
        #expect(source.accelerometer?.method == .buffer)
        #expect(source.accelerometer?.node == tree.dev + "/iio:device0")
        #expect(source.accelerometer?.rateHz == 100)
        #expect(source.path == source.accelerometer?.samplePath && source.follow && source.format == "generic-csv")
        let evdev = try AgentConfiguration.parse(
            "[source]\ndevice = \"/dev/input/event3\"\n[state]\npath = \"s.sqlite\"\n",
            file: tree.dir.path("c.toml"), environment: [:])
        #expect(evdev.source?.accelerometer?.method == .evdev)
        #expect(evdev.source?.accelerometer?.node == "/dev/input/event3")

        func problem(_ sampling: String?, rate: Double? = nil) -> String? {
            do {
                _ = try tree.configuration(sampling: sampling, rate: rate)
                return nil
            } catch let e as ConfigurationError {
                return e.path
            } catch { return "\(error)" }
        }
        #expect(problem("counter") == "source.device")  // no in_steps_input on this device
        #expect(problem("fast") == "source.sampling")
        #expect(problem(nil, rate: 0) == "source.rate")
        #expect(problem(nil, rate: 5000) == "source.rate")
    }

    @Test func pollingWritesCalibratedSamplesAndOutlivesAVanishingDevice() async throws {
        let tree = try FakeAccelerometerTree(scale: "0.01")
        try tree.write("in_accel_x_raw", "100")
        try tree.write("in_accel_y_raw", "-200")
        try tree.write("in_accel_z_raw", "1000")
        let device = try #require(try tree.configuration(rate: 50).source?.accelerometer)
        let done = DispatchSemaphore(value: 0)
        let start: Int64 = 1_763_700_000_000_000_000
        // The clock's closure holds the path, not the tree, so the tree's folder is removed when the test ends.
        let xRaw = tree.device + "/in_accel_x_raw"
        let clock = JumpingClock { n in
            if n == 20 { try? FileManager.default.removeItem(atPath: xRaw) }
            if n == 23 { try? Data("100\n".utf8).write(to: URL(fileURLWithPath: xRaw)) }
            if n == 120 { done.signal() }
        }
        let events = EventLog()
        let sampler = AccelerometerSampler(
            device: device, clock: clock.wall(startingAtNs: start), onEvent: events.add)
        try sampler.start()
        #expect(await offThePool { done.wait(timeout: .now() + patienceInSeconds) } == .success)
        await offThePool { sampler.stop() }
        let lines = sampleLines(device.samplePath)
        #expect(lines.count >= 110)
        #expect(lines.allSatisfy { $0.hasSuffix(",1.00000,-2.00000,10.00000") })
        let times = lines.compactMap { Int64($0.split(separator: ",")[0]) }
        #expect(times.first == start)
        #expect(zip(times.dropFirst(), times).allSatisfy { $0 > $1 })
        #expect(times[1] - times[0] == 20_000_000)  // 50 Hz
        // The gap while the device was gone: retried each second, no samples invented.
        #expect(zip(times.dropFirst(), times).contains { $0 - $1 >= 1_000_000_000 })
        let all = events.all
        #expect(
            all.contains { if case .lost(let why) = $0 { return why.contains("in_accel_x_raw") } else { return false } }
        )
        #expect(all.contains(.recovered(tree.device)))
        #expect(all.last == .stopped(samples: lines.count))
    }

    /// Scans for the fake tree's layout (s16 x, y, z, 2 bytes padding, s64 timestamp) from the committed 60 s walk.
    func walkCapture(startNs: Int64, scale: Double) throws -> (bytes: [UInt8], lastNs: Int64) {
        var bytes: [UInt8] = []
        var last: Int64 = 0
        _ = try AccelerationInput.read(
            path: Fixture.walk, options: ReadOptions(start: Instant(nanosecondsSinceEpoch: startNs))
        ) { s in
            for v in [s.x, s.y, s.z] {
                withUnsafeBytes(of: Int16(clamping: Int((v / scale).rounded())).littleEndian) { bytes += $0 }
            }
            bytes += [0, 0]
            withUnsafeBytes(of: s.time.nanosecondsSinceEpoch.littleEndian) { bytes += $0 }
            last = s.time.nanosecondsSinceEpoch
        }
        return (bytes, last)
    }

    @Test func bufferedDeviceIsEnabledSampledAndCountedByAFetch() async throws {
        let tree = try FakeAccelerometerTree(scale: "0.001")
        let start = Timestamps.nanoseconds(Fixture.date("2026-11-21T10:02:00+09:00"))
        let (capture, lastNs) = try walkCapture(startNs: start, scale: 0.001)
        try Data(capture).write(to: URL(fileURLWithPath: tree.dev + "/iio:device0"))
        var config = try tree.configuration(sampling: "buffer")
        let target = ScriptedPublisher()
        config.publishers = [target]
        let device = try #require(config.source?.accelerometer)

        // Before the agent has sampled anything, a fetch says why there is nothing to read.
        let early = await Fetcher(configuration: config, clock: ContinuousClock()).fetch(
            now: Instant(Fixture.date("2026-11-21T10:01:00+09:00")), trigger: [.manual])
        #expect(early.result == .failed)
        #expect(early.reason?.contains("no samples yet") == true, "\(early.line)")

        let events = EventLog()
        var small = device
        small.rotateBytes = 40_000  // the walk is ~130 kB: rotated before the first fetch reads anything
        let sampler = AccelerometerSampler(device: small, retry: 0.05, onEvent: events.add)
        try sampler.start()
        #expect(
            await eventually {
                (SampleFileWriter.lastTime(in: device.samplePath) ?? SampleFileWriter.lastTime(in: device.rotatedPath))
                    == Instant(nanosecondsSinceEpoch: lastNs)
            })
        // The buffer was off: the sampler turned on the channels it needs, and the buffer; off again when it stops.
        #expect(tree.read("buffer/enable") == "1")
        #expect(tree.read("scan_elements/in_accel_x_en") == "1" && tree.read("scan_elements/in_timestamp_en") == "1")
        await offThePool { sampler.stop() }
        #expect(tree.read("buffer/enable") == "0")
        #expect(events.all.first == .started(device.summary))
        #expect(events.all.contains(.rotated(device.rotatedPath)))

        let report = await Fetcher(configuration: config, clock: ContinuousClock()).fetch(
            now: Instant(Fixture.date("2026-11-21T10:10:00+09:00")), trigger: [.manual])
        #expect(report.result == .newData, "\(report.line)")
        let steps = try #require(report.windows.first?.steps)
        #expect(abs(steps - 109) <= 11, "\(steps) steps")
        // The fetch read the rotated file to its end and moved on: it is gone, the current file stays.
        #expect(!FileManager.default.fileExists(atPath: device.rotatedPath))
        #expect(FileManager.default.fileExists(atPath: device.samplePath))
    }

    @Test func fetchesReadAcrossRotationsInOrderAndCountAsOnePass() async throws {
        let tree = try FakeAccelerometerTree()
        var config = try tree.configuration()
        config.publishers = [ScriptedPublisher()]
        let device = try #require(config.source?.accelerometer)
        let start = Timestamps.nanoseconds(Fixture.date("2026-11-21T10:02:00+09:00"))
        var lines: [String] = []
        _ = try AccelerationInput.read(
            path: Fixture.walk, options: ReadOptions(start: Instant(nanosecondsSinceEpoch: start))
        ) { s in
            var out: [UInt8] = []
            SampleFileWriter.appendInteger(s.time.nanosecondsSinceEpoch, to: &out)
            for v in [s.x, s.y, s.z] {
                out.append(UInt8(ascii: ","))
                SampleFileWriter.appendFixed(v, to: &out)
            }
            lines.append(String(decoding: out, as: UTF8.self))
        }
        let third = lines.count / 3
        func write(_ path: String, _ part: ArraySlice<String>, header: Bool, append: Bool = false) throws {
            let text = (header ? SampleFileWriter.header : "") + part.map { $0 + "\n" }.joined()
            if append, let h = FileHandle(forWritingAtPath: path) {
                try h.seekToEnd()
                try h.write(contentsOf: Data(text.utf8))
                try h.close()
            } else {
                try FileManager.default.createDirectory(
                    atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            }
        }
        let fetcher = Fetcher(configuration: config, clock: ContinuousClock())
        // The agent has just started: a header and no sample. A fetch then has nothing to read.
        try write(device.samplePath, [], header: true)
        let r0 = await fetcher.fetch(now: Instant(Fixture.date("2026-11-21T10:01:00+09:00")), trigger: [.manual])
        #expect(r0.result == .noData, "\(r0.line)")
        // Samples arrive, the file is rotated, and more arrive in the new one before the next fetch.
        try write(device.samplePath, lines[0..<third], header: false, append: true)
        try FileManager.default.moveItem(atPath: device.samplePath, toPath: device.rotatedPath)
        try write(device.samplePath, lines[third..<(2 * third)], header: true)
        let r1 = await fetcher.fetch(now: Instant(Fixture.date("2026-11-21T10:02:45+09:00")), trigger: [.manual])
        #expect(!FileManager.default.fileExists(atPath: device.rotatedPath))  // finished, so removed
        // Once more: the rest of the current file, then the next one.
        try write(device.samplePath, lines[(2 * third)...].prefix(10), header: false, append: true)
        try FileManager.default.moveItem(atPath: device.samplePath, toPath: device.rotatedPath)
        try write(device.samplePath, lines[(2 * third + 10)...], header: true)
        let r2 = await fetcher.fetch(now: Instant(Fixture.date("2026-11-21T10:10:00+09:00")), trigger: [.manual])
        #expect(!FileManager.default.fileExists(atPath: device.rotatedPath))
        let posted = (r1.windows + r2.windows).map(\.steps).reduce(0, +)

        // The same samples in one file, read by one fetch: the same count.
        let single = try TempDir()
        let whole = single.path("all.csv")
        try write(whole, lines[...], header: true)
        var one = try Fixture.config(dir: single, source: whole, extra: "follow = true")
        one.publishers = [ScriptedPublisher()]
        let r = await Fetcher(configuration: one, clock: ContinuousClock()).fetch(
            now: Instant(Fixture.date("2026-11-21T10:10:00+09:00")), trigger: [.manual])
        #expect(posted == r.windows.map(\.steps).reduce(0, +), "\(r1.windows) \(r2.windows) vs \(r.windows)")
        #expect(abs(posted - 109) <= 11)
    }

    @Test func evdevCaptureIsTailedAndScaled() async throws {
        let dir = try TempDir()
        let node = dir.path("event7")
        func frame(_ sec: Int64, _ x: Int32, _ y: Int32, _ z: Int32) -> [UInt8] {
            var out: [UInt8] = []
            for (type, code, value) in [(UInt16(3), UInt16(0), x), (3, 1, y), (3, 2, z), (0, 0, 0)] {
                withUnsafeBytes(of: sec) { out += $0 }
                withUnsafeBytes(of: Int64(0)) { out += $0 }
                withUnsafeBytes(of: type) { out += $0 }
                withUnsafeBytes(of: code) { out += $0 }
                withUnsafeBytes(of: value) { out += $0 }
            }
            return out
        }
        let t0: Int64 = 1_763_700_000
        try Data(frame(t0, 0, 0, 256) + frame(t0 + 1, 128, 0, 256)).write(to: URL(fileURLWithPath: node))
        let config = try AgentConfiguration.parse(
            "[source]\ndevice = \"\(node.replacingOccurrences(of: "event7", with: "input/event7"))\"\n[state]\npath = \"s.sqlite\"\n",
            file: dir.path("c.toml"), environment: [:])
        var device = try #require(config.source?.accelerometer)
        device.node = node
        let sampler = AccelerometerSampler(device: device, retry: 0.02)
        try sampler.start()
        #expect(await eventually { sampleLines(device.samplePath).count == 2 })
        // More events arrive later: read from where the sampler was, never twice.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: node))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(frame(t0 + 2, -256, 0, 0)))
        try handle.close()
        #expect(await eventually { sampleLines(device.samplePath).count == 3 })
        await offThePool { sampler.stop() }
        let lines = sampleLines(device.samplePath)
        #expect(
            lines == [
                "\(t0)000000000,0.00000,0.00000,9.80665", "\(t0 + 1)000000000,4.90333,0.00000,9.80665",
                "\(t0 + 2)000000000,-9.80665,0.00000,0.00000",
            ])
    }

    @Test func sampleFileRotatesOnlyWhenTheLastRotationWasRead() throws {
        let dir = try TempDir()
        var device = AccelerometerDevice(
            method: .poll, sysfsPath: "", node: "", rateHz: 50, samplePath: dir.path("d.accel.csv"))
        device.rotateBytes = 300
        let writer = try SampleFileWriter(device: device)
        var rotations: [String] = []
        writer.onRotate = { rotations.append($0) }
        var t: Int64 = 1_763_700_000_000_000_000
        func write(_ n: Int) throws {
            for _ in 0..<n {
                t += 20_000_000
                writer.append(AccelerationSample(time: Instant(nanosecondsSinceEpoch: t), x: 0.1, y: -0.2, z: 9.8))
            }
            try writer.flush()
        }
        try write(10)  // past 300 bytes: rotated
        #expect(rotations == [device.rotatedPath])
        #expect(try String(contentsOfFile: device.samplePath, encoding: .utf8) == SampleFileWriter.header)
        try write(10)
        try write(10)
        #expect(rotations.count == 1)  // the rotated file has not been read yet: keep growing instead
        // Only a fetch that finished the rotated file removes it: not one that finished another file, not one that
        // finished none.
        var st = stat()
        _ = stat(device.samplePath, &st)
        device.removeRotatedFile(ifFinished: UInt64(st.st_ino))
        device.removeRotatedFile(ifFinished: nil)
        #expect(FileManager.default.fileExists(atPath: device.rotatedPath))
        _ = stat(device.rotatedPath, &st)
        device.removeRotatedFile(ifFinished: UInt64(st.st_ino))
        #expect(!FileManager.default.fileExists(atPath: device.rotatedPath))
        try write(1)
        #expect(rotations.count == 2)
        // Going backwards in time (a clock step, a restart) drops the sample rather than writing it.
        let again = try SampleFileWriter(device: device)
        #expect(again.lastNs == t)
        #expect(!again.append(AccelerationSample(time: Instant(nanosecondsSinceEpoch: t), x: 0, y: 0, z: 9.8)))
        #expect(
            again.append(AccelerationSample(time: Instant(nanosecondsSinceEpoch: t + 1), x: .nan, y: 0, z: 9.8))
                == false)
    }

    @Test func aLineCutShortByACrashIsNotGluedToTheNext() throws {
        let dir = try TempDir()
        let device = AccelerometerDevice(
            method: .poll, sysfsPath: "", node: "", rateHz: 50, samplePath: dir.path("d.accel.csv"))
        try Data("time_ns,x,y,z\n1000,0.1,0.2,9.8\n2000,0.1,0.".utf8).write(to: URL(fileURLWithPath: device.samplePath))
        let writer = try SampleFileWriter(device: device)
        #expect(writer.lastNs == 1000)
        writer.append(AccelerationSample(time: Instant(nanosecondsSinceEpoch: 3000), x: 0, y: 0, z: 9.8))
        try writer.flush()
        #expect(
            try String(contentsOfFile: device.samplePath, encoding: .utf8)
                == "time_ns,x,y,z\n1000,0.1,0.2,9.8\n3000,0.00000,0.00000,9.80000\n")
        // A file holding only a cut header starts over with a whole one.
        try Data("time_n".utf8).write(to: URL(fileURLWithPath: device.samplePath))
        let again = try SampleFileWriter(device: device)
        again.append(AccelerationSample(time: Instant(nanosecondsSinceEpoch: 4000), x: 0, y: 0, z: 9.8))
        try again.flush()
        #expect(
            try String(contentsOfFile: device.samplePath, encoding: .utf8)
                == "time_ns,x,y,z\n4000,0.00000,0.00000,9.80000\n")
    }

    @Test func timestampClocksAreShiftedToWallClock() throws {
        func now(_ c: clockid_t) -> Int64 {
            var ts = timespec()
            clock_gettime(c, &ts)
            return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
        }
        #expect(AccelerometerSampler.offsetToRealtime(clock: "realtime") == 0)
        #expect(AccelerometerSampler.offsetToRealtime(clock: "sundial") == nil)
        let boot = try #require(AccelerometerSampler.offsetToRealtime(clock: "boottime"))
        #expect(abs(now(CLOCK_BOOTTIME) + boot - now(CLOCK_REALTIME)) < 50_000_000)
        let mono = try #require(AccelerometerSampler.offsetToRealtime(clock: "monotonic"))
        #expect(abs(now(CLOCK_MONOTONIC) + mono - now(CLOCK_REALTIME)) < 50_000_000)
    }

    @Test func aBufferStampedWithTheMonotonicClockIsWrittenInWallClockTime() async throws {
        let tree = try FakeAccelerometerTree()
        try tree.write("current_timestamp_clock", "monotonic")
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        let mono = Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
        var bytes: [UInt8] = []
        for k in 0..<3 {
            for v: Int16 in [0, 0, 9810] { withUnsafeBytes(of: v.littleEndian) { bytes += $0 } }
            bytes += [0, 0]
            withUnsafeBytes(of: (mono + Int64(k) * 20_000_000).littleEndian) { bytes += $0 }
        }
        try Data(bytes).write(to: URL(fileURLWithPath: tree.dev + "/iio:device0"))
        let device = try #require(try tree.configuration(sampling: "buffer").source?.accelerometer)
        let events = EventLog()
        let sampler = AccelerometerSampler(device: device, retry: 0.05, onEvent: events.add)
        let wall = Date()
        try sampler.start()
        #expect(await eventually { sampleLines(device.samplePath).count == 3 })
        await offThePool { sampler.stop() }
        let first = try #require(sampleLines(device.samplePath).first.flatMap { Int64($0.split(separator: ",")[0]) })
        #expect(abs(Double(first) / 1e9 - wall.timeIntervalSince1970) < 5, "\(first)")
        #expect(events.all.contains { if case .clockOffset = $0 { return true } else { return false } })
    }

    @Test func aFIFOWithoutAWriterDoesNotHoldUpStopping() async throws {
        let dir = try TempDir()
        let fifo = dir.path("event9")
        #expect(mkfifo(fifo, 0o600) == 0)
        let device = AccelerometerDevice(
            method: .evdev, sysfsPath: "", node: fifo, rateHz: 50, samplePath: dir.path("s.csv"))
        let events = EventLog()
        let sampler = AccelerometerSampler(device: device, retry: 0.05, onEvent: events.add)
        try sampler.start()
        try await Task.sleep(for: .milliseconds(100))
        await offThePool { sampler.stop(timeout: patienceInSeconds) }
        #expect(events.all.last == .stopped(samples: 0), "\(events.all)")
    }

    @Test func numbersAreWrittenExactly() {
        var out: [UInt8] = []
        for v in [0.0, -0.000004, 1.5, -9.80665, 123.456789, -0.5] {
            SampleFileWriter.appendFixed(v, to: &out)
            out.append(UInt8(ascii: " "))
        }
        SampleFileWriter.appendInteger(-42, to: &out)
        #expect(String(decoding: out, as: UTF8.self) == "0.00000 0.00000 1.50000 -9.80665 123.45679 -0.50000 -42")
    }

    @Test func aFullDiskIsAnErrorNotACrash() {
        let device = AccelerometerDevice(method: .poll, sysfsPath: "", node: "", rateHz: 50, samplePath: "/dev/full")
        #expect(throws: DeviceError.self) { try SampleFileWriter(device: device) }
    }
}
