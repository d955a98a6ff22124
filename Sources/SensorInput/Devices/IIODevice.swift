import StepDetection
import WallTime

/// A Linux IIO device under `<sys>/bus/iio/devices/iio:deviceN` with an accelerometer and/or a step counter.
public struct IIODevice: Sendable, Equatable {
    /// `iio:deviceN`.
    public var id: String
    /// Its sysfs directory.
    public var path: String
    /// Its character device (`<dev>/iio:deviceN`) for buffered reading.
    public var devNode: String
    /// The driver's `name` (e.g. `bmc150_accel`).
    public var name: String

    public var hasAccelerometer: Bool {
        SysfsFile.exists(path + "/in_accel_x_raw") || SysfsFile.exists(path + "/in_accel_x_input")
    }
    public var hasStepCounter: Bool { SysfsFile.exists(path + "/in_steps_input") }

    /// Why the hardware step counter of the device at `sysfsPath` does not count: its `in_steps_en` reads 0 (the
    /// firmware counts only while enabled); nil when it is on or the device has no such switch.
    static func stepCounterOff(_ sysfsPath: String) -> (path: String, message: String)? {
        let file = sysfsPath + "/in_steps_en"
        guard SysfsFile.int(file) == 0 else { return nil }
        return (file, "the hardware step counter is off (0): write 1 to it (as root, or by a udev rule) to count steps")
    }

    /// The device whose sysfs folder is `sysfsPath`.
    public init(sysfsPath: String, devNode: String) {
        path = sysfsPath
        id = String(sysfsPath.split(separator: "/").last ?? Substring(sysfsPath))
        self.devNode = devNode
        name = SysfsFile.read(sysfsPath + "/name") ?? id
    }

    init(id: String, path: String, devNode: String, name: String) {
        self.id = id
        self.path = path
        self.devNode = devNode
        self.name = name
    }

    /// The IIO devices under `roots`, in name order.
    public static func list(roots: DeviceRoots = DeviceRoots()) -> [IIODevice] {
        let base = roots.sys + "/bus/iio/devices"
        return SysfsFile.list(base).filter { $0.hasPrefix("iio:device") }.map { id in
            IIODevice(
                id: id, path: base + "/" + id, devNode: roots.dev + "/" + id,
                name: SysfsFile.read(base + "/" + id + "/name") ?? id)
        }
    }

    /// Sampling frequency to ask for: the first available one at or above `wantedHz`, else the highest.
    public func samplingFrequency(atLeast wantedHz: Double) -> Double? {
        let text =
            SysfsFile.read(path + "/in_accel_sampling_frequency_available")
            ?? SysfsFile.read(path + "/sampling_frequency_available")
        let available = (text ?? "").split(separator: " ").compactMap { Double($0) }.sorted()
        return available.first { $0 >= wantedHz } ?? available.last
    }
}

/// How raw accelerometer values become m/s²: `(raw + offset) × scale` per axis, then the mount matrix.
public struct IIOAccelCalibration: Sendable, Equatable {
    public var offset: [Double] = [0, 0, 0]
    public var scale: [Double] = [1, 1, 1]
    /// Row-major 3×3 mount matrix (identity when the device has none).
    public var mountMatrix: [Double] = [1, 0, 0, 0, 1, 0, 0, 0, 1]

    public init() {}

    /// Reads `in_accel_[xyz_]scale` (per axis or shared, or the device-wide `scale`), the offsets and
    /// `in_accel_mount_matrix` (rows separated by `;`). An axis a driver gives only as `in_accel_x_input` is already
    /// in m/s² (scale 1, offset 0).
    public init(device: IIODevice) throws {
        let p = device.path + "/"
        for (i, axis) in ["x", "y", "z"].enumerated() {
            if !SysfsFile.exists(p + "in_accel_\(axis)_raw") && SysfsFile.exists(p + "in_accel_\(axis)_input") {
                continue
            }
            guard
                let s = SysfsFile.double(p + "in_accel_\(axis)_scale") ?? SysfsFile.double(p + "in_accel_scale")
                    ?? SysfsFile.double(p + "scale")
            else {
                throw DeviceError(path: p + "in_accel_scale", message: "no accelerometer scale")
            }
            scale[i] = s
            offset[i] = SysfsFile.double(p + "in_accel_\(axis)_offset") ?? SysfsFile.double(p + "in_accel_offset") ?? 0
        }
        if let text = SysfsFile.read(p + "in_accel_mount_matrix") ?? SysfsFile.read(p + "mount_matrix") {
            let values = text.split(whereSeparator: { $0 == ";" || $0 == "," }).compactMap {
                Fields.double($0.trimmingPrefixSpaces())
            }
            guard values.count == 9 else {
                throw DeviceError(path: p + "in_accel_mount_matrix", message: "not a 3×3 matrix: '\(text)'")
            }
            mountMatrix = values
        }
    }

    /// Raw counts -> m/s² in the device's mounted frame.
    @inline(__always)
    public func apply(_ x: Double, _ y: Double, _ z: Double) -> (Double, Double, Double) {
        let a = (x + offset[0]) * scale[0]
        let b = (y + offset[1]) * scale[1]
        let c = (z + offset[2]) * scale[2]
        let m = mountMatrix
        return (m[0] * a + m[1] * b + m[2] * c, m[3] * a + m[4] * b + m[5] * c, m[6] * a + m[7] * b + m[8] * c)
    }
}

/// What a device poller reports besides samples.
public enum DeviceEvent: Sendable, Equatable {
    /// The device could not be read (vanished, unplugged); the poller keeps retrying.
    case lost(DeviceError)
    /// It can be read again.
    case recovered(path: String)
}

/// Polls `in_accel_{x,y,z}_raw` at a chosen rate. The clock is injected so that tests never sleep.
public struct IIOPolledAccelerometer {
    public let device: IIODevice
    public let rateHz: Double
    public let clock: WallClock
    /// How long to wait before trying a lost device again.
    public var retry: Duration = .seconds(1)
    var calibration: IIOAccelCalibration?
    var lost = false

    public init(device: IIODevice, rateHz: Double, clock: WallClock = .system) {
        self.device = device
        self.rateHz = rateHz > 0 && rateHz.isFinite ? rateHz : 50
        self.clock = clock
    }

    /// Reads one sample now: `in_accel_x_raw` (through the calibration), or `in_accel_x_input`, which some drivers
    /// give instead, already in m/s².
    public mutating func readOnce() throws -> AccelerationSample {
        let cal = try calibration ?? IIOAccelCalibration(device: device)
        calibration = cal
        var raw: [Double] = []
        for axis in ["x", "y", "z"] {
            let file = device.path + "/in_accel_\(axis)_raw"
            let input = device.path + "/in_accel_\(axis)_input"
            guard let v = SysfsFile.double(file) ?? (SysfsFile.exists(file) ? nil : SysfsFile.double(input)) else {
                calibration = nil  // read it again when the device comes back
                throw DeviceError(path: file, message: "cannot be read (device gone?)")
            }
            raw.append(v)
        }
        let (x, y, z) = cal.apply(raw[0], raw[1], raw[2])
        return AccelerationSample(time: clock.nowInstant(), x: x, y: y, z: z)
    }

    /// Delivers `count` samples at `rateHz` (or until `shouldContinue` says no, or the task is cancelled), sleeping
    /// on the clock between them. A device that cannot be read is reported once (`.lost`), retried every `retry`,
    /// and reported again when back (`.recovered`).
    public mutating func poll(
        count: Int = .max, while shouldContinue: () -> Bool = { true },
        _ sink: (AccelerationSample) -> Void, events: (DeviceEvent) -> Void = { _ in }
    ) async {
        let period = Duration.nanoseconds(Int64((1e9 / rateHz).rounded()))
        var next = clock.nowInstant()
        var delivered = 0
        while delivered < count {
            do { try await clock.sleep(until: next) } catch { return }  // cancelled
            guard shouldContinue() else { return }
            do {
                let s = try readOnce()
                if lost {
                    lost = false
                    events(.recovered(path: device.path))
                }
                sink(s)
                delivered += 1
                next += period
                let now = clock.nowInstant()
                if next < now - period { next = now }  // fell behind: skip ahead, do not burst
            } catch let error as DeviceError {
                if !lost {
                    lost = true
                    events(.lost(error))
                }
                next = clock.nowInstant() + retry
            } catch {
                next = clock.nowInstant() + retry
            }
        }
    }
}

/// The IIO hardware step counter `in_steps_input` (cumulative since power-up or since enabled), turned into step
/// readings: the first value is a baseline, a drop is a reset (the new value counts from 0), never negative.
public struct IIOStepCounter {
    public let device: IIODevice
    var last: Int64?
    var lastNs: Int64?

    public init(device: IIODevice) { self.device = device }

    /// Reads the counter at `now`; nil for the baseline reading. A counter switched off (`in_steps_en` 0) is an
    /// error saying so: it would read the same total for ever, as if no step were taken.
    public mutating func read(at now: Instant) throws -> StepReading? {
        let nowNs = now.nanosecondsSinceEpoch
        if let off = IIODevice.stepCounterOff(device.path) { throw DeviceError(path: off.path, message: off.message) }
        let file = device.path + "/in_steps_input"
        guard let total = SysfsFile.int(file), total >= 0 else {
            throw DeviceError(path: file, message: "cannot be read (device gone?)")
        }
        defer {
            last = total
            lastNs = nowNs
        }
        guard let previous = last, let since = lastNs else { return nil }
        let delta = StepReading.stepsBetween(total: Int64(previous), and: Int64(total))
        return StepReading(startNs: since, endNs: nowNs, steps: Int(delta))
    }
}
