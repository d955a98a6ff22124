import Foundation
import SensorInput
import StepDetection
import TestSupport
import Testing
import WallTime

/// Builds a fake `/sys` + `/dev` tree in a temporary directory.
struct FakeTree {
    /// Holds the tree; removed when the last copy of the value is released.
    let temp: TempDir
    var root: URL { temp.url }
    var roots: DeviceRoots { DeviceRoots(sys: root.path + "/sys", dev: root.path + "/dev") }
    var device: String { root.path + "/sys/bus/iio/devices/iio:device0" }

    init(_ files: [String: String]) throws {
        temp = try TempDir("fake-iio")
        try FileManager.default.createDirectory(atPath: root.path + "/dev", withIntermediateDirectories: true)
        for (name, text) in files { try write(name, text) }
    }

    func write(_ name: String, _ text: String) throws {
        let url = URL(fileURLWithPath: device + "/" + name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data((text + "\n").utf8).write(to: url)
    }

    func remove(_ name: String) { try? FileManager.default.removeItem(atPath: device + "/" + name) }
}

@Suite(.temporaryFolder) struct IIODeviceTests {
    /// The fake sysfs and /dev tree in `fixtures/iio_fake_sysfs`.
    static func sharedRoots() throws -> DeviceRoots {
        DeviceRoots(
            sys: SharedData.fixture("iio_fake_sysfs/sys"), dev: SharedData.fixture("iio_fake_sysfs/dev"))
    }

    @Test func findsTheSharedFakeDevice() throws {
        let devices = IIODevice.list(roots: try Self.sharedRoots())
        #expect(devices.map(\.id) == ["iio:device0"])
        let d = try #require(devices.first)
        #expect(d.name == "bmc150_accel")
        #expect(d.hasAccelerometer && d.hasStepCounter)
        #expect(d.samplingFrequency(atLeast: 50) == 62.5)
        #expect(d.samplingFrequency(atLeast: 5000) == 1000)
        #expect(IIODevice.list(roots: DeviceRoots(sys: "/nonexistent", dev: "/nonexistent")).isEmpty)
    }

    @Test func polledSamplesUseScaleAndMountMatrixOnTheInjectedClock() async throws {
        let device = try #require(IIODevice.list(roots: try Self.sharedRoots()).first)
        var poller = IIOPolledAccelerometer(
            device: device, rateHz: 100, clock: JumpingClock().wall(startingAtNs: 1_000_000_000))
        var got: [AccelerationSample] = []
        await poller.poll(count: 3, { got.append($0) })
        #expect(got.map(\.time.nanosecondsSinceEpoch) == [1_000_000_000, 1_010_000_000, 1_020_000_000])
        // raw (-12, -1010, 104) × 0.009580, then rows (0 1 0; -1 0 0; 0 0 1).
        #expect(abs(got[0].x - (-1010 * 0.00958)) < 1e-9)
        #expect(abs(got[0].y - (12 * 0.00958)) < 1e-9)
        #expect(abs(got[0].z - (104 * 0.00958)) < 1e-9)
    }

    @Test func perAxisScaleAndOffset() throws {
        let tree = try FakeTree([
            "name": "test", "in_accel_x_raw": "100", "in_accel_y_raw": "0", "in_accel_z_raw": "-50",
            "in_accel_x_scale": "0.5", "in_accel_y_scale": "1", "in_accel_z_scale": "0.25",
            "in_accel_offset": "10",
        ])
        let device = try #require(IIODevice.list(roots: tree.roots).first)
        var poller = IIOPolledAccelerometer(device: device, rateHz: 50, clock: JumpingClock().wall(startingAtNs: 0))
        let s = try poller.readOnce()
        #expect(s == AccelerationSample(time: Instant(nanosecondsSinceEpoch: 0), x: 55, y: 10, z: -10))
        try tree.write("in_accel_mount_matrix", "1, 0; 0, 1")
        var again = IIOPolledAccelerometer(device: device, rateHz: 50, clock: JumpingClock().wall(startingAtNs: 0))
        #expect(throws: DeviceError.self) { try again.readOnce() }
    }

    @Test func aDeviceThatDisappearsIsReportedAndRetried() async throws {
        let tree = try FakeTree([
            "name": "test", "in_accel_x_raw": "0", "in_accel_y_raw": "0", "in_accel_z_raw": "100",
            "in_accel_scale": "0.0981",
        ])
        let device = try #require(IIODevice.list(roots: tree.roots).first)
        let clock = JumpingClock { sleepsSeen in
            if sleepsSeen == 3 { tree.remove("in_accel_z_raw") }  // unplugged
            if sleepsSeen == 6 { try? tree.write("in_accel_z_raw", "100") }  // back
        }
        var poller = IIOPolledAccelerometer(device: device, rateHz: 10, clock: clock.wall(startingAtNs: 0))
        poller.retry = .milliseconds(500)
        var got: [AccelerationSample] = []
        var events: [DeviceEvent] = []
        await poller.poll(count: 4, { got.append($0) }, events: { events.append($0) })
        #expect(got.count == 4)
        #expect(events.count == 2)
        if case .lost(let error)? = events.first {
            #expect(error.path.hasSuffix("in_accel_z_raw"))
        } else {
            Issue.record("no .lost")
        }
        #expect(events.last == .recovered(path: device.path))
        // Two samples 100 ms apart; gone at the 3rd wait (200 ms), retried at 700 and 1200 ms, back at 1700 ms.
        #expect(got.map(\.time.nanosecondsSinceEpoch) == [0, 100_000_000, 1_700_000_000, 1_800_000_000])
    }

    @Test func hardwareStepCounterBaselineDeltaAndReset() throws {
        let tree = try FakeTree(["name": "steps", "in_steps_input": "1234"])
        let device = try #require(IIODevice.list(roots: tree.roots).first)
        #expect(device.hasStepCounter && !device.hasAccelerometer)
        var counter = IIOStepCounter(device: device)
        #expect(try counter.read(at: Instant(nanosecondsSinceEpoch: 0)) == nil)
        try tree.write("in_steps_input", "1250")
        #expect(
            try counter.read(at: Instant(nanosecondsSinceEpoch: 60))
                == StepReading(
                    start: Instant(nanosecondsSinceEpoch: 0), end: Instant(nanosecondsSinceEpoch: 60), steps: 16))
        try tree.write("in_steps_input", "5")
        #expect(
            try counter.read(at: Instant(nanosecondsSinceEpoch: 120))
                == StepReading(
                    start: Instant(nanosecondsSinceEpoch: 60), end: Instant(nanosecondsSinceEpoch: 120), steps: 5))
        tree.remove("in_steps_input")
        #expect(throws: DeviceError.self) { try counter.read(at: Instant(nanosecondsSinceEpoch: 180)) }
    }
}

@Suite(.temporaryFolder) struct IIOBufferTests {
    @Test func channelTypes() throws {
        let t = try #require(IIOChannelType("le:s12/16>>4"))
        #expect(t == IIOChannelType("LE:S12/16>>4") ?? t)
        #expect([UInt8]([0x40, 0xFF]).withUnsafeBytes { t.value(at: $0.baseAddress!) } == -12)
        let be = try #require(IIOChannelType("be:s12/16>>4"))
        #expect([UInt8]([0xFF, 0x40]).withUnsafeBytes { be.value(at: $0.baseAddress!) } == -12)
        let masked = try #require(IIOChannelType("le:s16/32>>0"))  // junk in the upper 16 bits must be masked
        #expect([UInt8]([0x9C, 0xFF, 0xAB, 0xCD]).withUnsafeBytes { masked.value(at: $0.baseAddress!) } == -100)
        let unsigned = try #require(IIOChannelType("be:u10/16>>6"))
        #expect([UInt8]([0xFF, 0xC0]).withUnsafeBytes { unsigned.value(at: $0.baseAddress!) } == 1023)
        let ts = try #require(IIOChannelType("le:s64/64>>0"))
        #expect(ts.storageBytes == 8)
        #expect(IIOChannelType("le:s12/16X3>>4")?.repeatCount == 3)
        for bad in ["", "le:s12", "xx:s12/16>>4", "le:s20/16>>0", "le:s12/24>>0", "le:s12/16>>"] {
            #expect(IIOChannelType(bad) == nil, "\(bad)")
        }
    }

    @Test func layoutsAlignChannelsAndTimestamp() throws {
        let s16 = try #require(IIOChannelType("le:s12/16>>4"))
        let s32 = try #require(IIOChannelType("le:s16/32>>0"))
        let ts = try #require(IIOChannelType("le:s64/64>>0"))
        let a = IIOScanLayout(channels: [
            ("in_timestamp", 3, ts), ("in_accel_x", 0, s16), ("in_accel_y", 1, s16), ("in_accel_z", 2, s16),
        ])
        #expect(a.channels.map(\.offset) == [0, 2, 4, 8])
        #expect(a.scanBytes == 16)
        let b = IIOScanLayout(channels: [
            ("in_accel_x", 0, s32), ("in_accel_y", 1, s32), ("in_accel_z", 2, s32), ("in_timestamp", 3, ts),
        ])
        #expect(b.channels.map(\.offset) == [0, 4, 8, 16])
        #expect(b.scanBytes == 24)
    }

    @Test func decodesTheSharedBufferCapture() throws {
        let device = try #require(IIODevice.list(roots: try IIODeviceTests.sharedRoots()).first)
        var reader = try IIOBufferedAccelerometer(device: device)
        #expect(reader.layout.scanBytes == 16)
        var got: [AccelerationSample] = []
        try reader.read { got.append($0) }
        #expect(got.count == 100)  // 1600 bytes
        // First scan: 40 ff | e0 c5 | 80 06 -> raw -12, -930, 104; then scale and the mount matrix.
        #expect(abs(got[0].x - (-930 * 0.00958)) < 1e-9)
        #expect(abs(got[0].y - (12 * 0.00958)) < 1e-9)
        #expect(abs(got[0].z - (104 * 0.00958)) < 1e-9)
        let steps = zip(got.dropFirst(), got).map { $0.time.nanosecondsSinceEpoch - $1.time.nanosecondsSinceEpoch }
        #expect(steps.allSatisfy { $0 == 10_000_000 })  // 100 Hz timestamps
        #expect(got[0].time.nanosecondsSinceEpoch > 1_600_000_000_000_000_000)  // CLOCK_REALTIME ns
    }

    @Test func bigEndianBufferWithoutTimestampInATempTree() throws {
        let tree = try FakeTree([
            "name": "t", "in_accel_scale": "0.5", "sampling_frequency": "50",
            "scan_elements/in_accel_x_en": "1", "scan_elements/in_accel_x_index": "0",
            "scan_elements/in_accel_x_type": "be:s16/16>>0",
            "scan_elements/in_accel_y_en": "1", "scan_elements/in_accel_y_index": "1",
            "scan_elements/in_accel_y_type": "be:s16/16>>0",
            "scan_elements/in_accel_z_en": "1", "scan_elements/in_accel_z_index": "2",
            "scan_elements/in_accel_z_type": "be:s16/16>>0",
            "scan_elements/in_timestamp_en": "0", "scan_elements/in_timestamp_index": "3",
            "scan_elements/in_timestamp_type": "le:s64/64>>0",
        ])
        let device = try #require(IIODevice.list(roots: tree.roots).first)
        var reader = try IIOBufferedAccelerometer(device: device)
        reader.start = Instant(nanosecondsSinceEpoch: 1_000)
        #expect(reader.layout.scanBytes == 6)
        var got: [AccelerationSample] = []
        // 2 scans + 1 stray byte
        let bytes: [UInt8] = [0x00, 0x02, 0xFF, 0xFE, 0x00, 0x14, 0x00, 0x04, 0x00, 0x00, 0x00, 0x14, 0x00]
        let used = bytes.withUnsafeBytes { reader.decode($0) { got.append($0) } }
        #expect(used == 12)
        #expect(
            got == [
                AccelerationSample(time: Instant(nanosecondsSinceEpoch: 1_000), x: 1, y: -1, z: 10),
                AccelerationSample(time: Instant(nanosecondsSinceEpoch: 1_000 + 20_000_000), x: 2, y: 0, z: 10),
            ])
        tree.remove("scan_elements/in_accel_z_type")
        #expect(throws: DeviceError.self) { try IIOBufferedAccelerometer(device: device) }
    }
}

extension IIODeviceTests {
    /// Some drivers give `in_accel_x_input` (already m/s², no scale) instead of `_raw`; such a device is listed as an
    /// accelerometer, so it must also be read, not reported as gone at every poll.
    @Test func processedInputChannelsAreRead() throws {
        let tree = try FakeTree([
            "name": "hid", "in_accel_x_input": "0.5", "in_accel_y_input": "-9.75", "in_accel_z_input": "1.25",
        ])
        let device = try #require(IIODevice.list(roots: tree.roots).first)
        #expect(device.hasAccelerometer)
        var poller = IIOPolledAccelerometer(device: device, rateHz: 50, clock: JumpingClock().wall(startingAtNs: 0))
        #expect(
            try poller.readOnce()
                == AccelerationSample(time: Instant(nanosecondsSinceEpoch: 0), x: 0.5, y: -9.75, z: 1.25))
        tree.remove("in_accel_y_input")
        #expect { try poller.readOnce() } throws: { ($0 as? DeviceError)?.path.hasSuffix("in_accel_y_raw") == true }
    }

    /// `in_steps_en` 0: the firmware does not count, and a total that never moves would read as no steps taken.
    @Test func aStepCounterSwitchedOffIsAnErrorNamingItsSwitch() throws {
        let tree = try FakeTree(["name": "steps", "in_steps_input": "1234", "in_steps_en": "0"])
        let device = try #require(IIODevice.list(roots: tree.roots).first)
        var counter = IIOStepCounter(device: device)
        #expect { try counter.read(at: Instant(nanosecondsSinceEpoch: 0)) } throws: {
            let e = $0 as? DeviceError
            return e?.path.hasSuffix("/in_steps_en") == true && e?.message.contains("off") == true
        }
        let log = tree.root.path + "/steps.jsonl"
        #expect {
            try StepCounterDevice(sysfsPath: tree.device, logPath: log).record(now: Instant(nanosecondsSinceEpoch: 0))
        } throws: {
            ($0 as? InputError)?.file.hasSuffix("/in_steps_en") == true
        }
        #expect(!FileManager.default.fileExists(atPath: log))
        try tree.write("in_steps_en", "1")
        #expect(try counter.read(at: Instant(nanosecondsSinceEpoch: 0)) == nil)  // the baseline
        try StepCounterDevice(sysfsPath: tree.device, logPath: log).record(now: Instant(nanosecondsSinceEpoch: 0))
        #expect(FileManager.default.fileExists(atPath: log))
    }
}

@Suite(.temporaryFolder) struct EvdevTests {
    static func event(_ sec: Int64, _ usec: Int64, _ type: UInt16, _ code: UInt16, _ value: Int32) -> [UInt8] {
        var out: [UInt8] = []
        withUnsafeBytes(of: sec.littleEndian) { out += $0 }
        withUnsafeBytes(of: usec.littleEndian) { out += $0 }
        withUnsafeBytes(of: type.littleEndian) { out += $0 }
        withUnsafeBytes(of: code.littleEndian) { out += $0 }
        withUnsafeBytes(of: value.littleEndian) { out += $0 }
        return out
    }

    @Test func findsAccelerometerEventNodes() throws {
        let temp = try TempDir("fake-input")
        let root = temp.root
        func write(_ path: String, _ text: String) throws {
            let url = URL(fileURLWithPath: root + "/" + path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data((text + "\n").utf8).write(to: url)
        }
        try write("sys/class/input/event10/device/properties", "40")  // accelerometer, ABS x/y/z
        try write("sys/class/input/event10/device/capabilities/abs", "7")
        try write("sys/class/input/event2/device/properties", "0")  // a touchpad: ABS but no property
        try write("sys/class/input/event2/device/capabilities/abs", "260800000000003")
        try write("sys/class/input/event3/device/properties", "40")  // accelerometer property, two axes only
        try write("sys/class/input/event3/device/capabilities/abs", "3")
        try write("sys/class/input/event4/device/properties", "0 40")  // multi-word bitmaps
        try write("sys/class/input/event4/device/capabilities/abs", "1 3f")
        let found = EvdevAccelerometer.list(roots: DeviceRoots(sys: root + "/sys", dev: root + "/dev"))
        #expect(found == [root + "/dev/input/event4", root + "/dev/input/event10"])
    }

    @Test func framesOnSynReportHoldingUnchangedAxes() throws {
        var bytes =
            Self.event(100, 0, 3, 0, 0) + Self.event(100, 0, 3, 1, -256) + Self.event(100, 0, 3, 2, 0)
            + Self.event(100, 0, 0, 0, 0)
        bytes += Self.event(100, 20_000, 3, 2, 128) + Self.event(100, 20_000, 0, 0, 0)
        bytes += Self.event(100, 40_000, 0, 0, 0)  // SYN with no change: no sample
        bytes += Self.event(100, 60_000, 3, 0, 5)  // half a frame at the end: nothing yet
        let path = try temporaryFile(bytes, name: "event0")
        var reader = EvdevAccelerometer()  // resolution 0: 256 per g
        var got: [AccelerationSample] = []
        try reader.read(path: path) { got.append($0) }
        let g = standardGravity
        #expect(
            got == [
                AccelerationSample(time: Instant(nanosecondsSinceEpoch: 100_000_000_000), x: 0, y: -g, z: 0),
                AccelerationSample(time: Instant(nanosecondsSinceEpoch: 100_020_000_000), x: 0, y: -g, z: g / 2),
            ])
        var withResolution = EvdevAccelerometer(resolutions: [512, 512, 512])
        var half: [AccelerationSample] = []
        bytes.withUnsafeBytes { _ = withResolution.decode($0) { half.append($0) } }
        #expect(half.first?.y == -g / 2)
        #expect(throws: DeviceError.self) { try EvdevAccelerometer(devicePath: path) }  // a plain file has no EVIOCGABS
    }
}
