import StepDetection
import WallTime

#if canImport(Glibc)
    import Glibc
#endif

/// An evdev accelerometer (`/dev/input/eventN` with ABS_X/Y/Z): 24-byte `struct input_event` records, a sample per
/// `SYN_REPORT` holding the last value of each axis (only changes are reported). Values are counts per g from
/// `input_absinfo.resolution`, or 256 per g when the driver leaves it 0 (iio-sensor-proxy's convention).
public struct EvdevAccelerometer: Sendable {
    /// Counts per g for x, y, z.
    public var countsPerG: [Double]
    var values: [Int32] = [0, 0, 0]
    var changed = false

    /// `resolutions` as the driver reports them (`EVIOCGABS`); 0 means "not given" (256 per g).
    public init(resolutions: [Int32] = [0, 0, 0]) {
        countsPerG = (0..<3).map { i in i < resolutions.count && resolutions[i] > 0 ? Double(resolutions[i]) : 256 }
    }

    /// Asks the device for each axis's `input_absinfo` (resolution and current value) with `EVIOCGABS`.
    public init(devicePath: String) throws {
        let fd = open(devicePath, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw DeviceError(path: devicePath, message: LineReader.openErrorMessage(errno)) }
        defer { close(fd) }
        var resolutions: [Int32] = []
        var current: [Int32] = []
        for axis in 0..<3 {
            var info = [Int32](repeating: 0, count: 6)  // value, minimum, maximum, fuzz, flat, resolution
            let request = UInt(2 << 30 | 24 << 16 | 0x45 << 8 | (0x40 + axis))
            let rc = info.withUnsafeMutableBytes { ioctl(fd, request, $0.baseAddress!) }
            guard rc == 0 else {
                throw DeviceError(path: devicePath, message: "not an evdev device with ABS axes (EVIOCGABS failed)")
            }
            resolutions.append(info[5])
            current.append(info[0])
        }
        self.init(resolutions: resolutions)
        values = current
    }

    public static let eventSize = 24

    /// Decodes whole events in `bytes`; returns the bytes used.
    @discardableResult
    public mutating func decode(_ bytes: UnsafeRawBufferPointer, _ sink: (AccelerationSample) -> Void) -> Int {
        guard let base = bytes.baseAddress else { return 0 }
        var used = 0
        while used + Self.eventSize <= bytes.count {
            let p = base + used
            let sec = p.loadUnaligned(as: Int64.self)
            let usec = p.loadUnaligned(fromByteOffset: 8, as: Int64.self)
            let type = p.loadUnaligned(fromByteOffset: 16, as: UInt16.self)
            let code = p.loadUnaligned(fromByteOffset: 18, as: UInt16.self)
            let value = p.loadUnaligned(fromByteOffset: 20, as: Int32.self)
            used += Self.eventSize
            if type == 3 && code < 3 {  // EV_ABS, ABS_X/Y/Z
                values[Int(code)] = value
                changed = true
            } else if type == 0 && code == 0 && changed {  // EV_SYN SYN_REPORT
                let (s1, o1) = sec.multipliedReportingOverflow(by: 1_000_000_000)
                let (t, o2) = s1.addingReportingOverflow(usec.multipliedReportingOverflow(by: 1000).partialValue)
                changed = false
                guard !o1 && !o2 else { continue }
                let g = standardGravity
                sink(
                    AccelerationSample(
                        time: Instant(nanosecondsSinceEpoch: t), x: Double(values[0]) / countsPerG[0] * g,
                        y: Double(values[1]) / countsPerG[1] * g, z: Double(values[2]) / countsPerG[2] * g))
            }
        }
        return used
    }

    /// Reads events from `path` (the device, a capture, or a FIFO) until its end.
    public mutating func read(path: String, _ sink: (AccelerationSample) -> Void) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw DeviceError(path: path, message: LineReader.openErrorMessage(errno)) }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: Self.eventSize * 256)
        var filled = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + filled, $0.count - filled) }
            if n < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw DeviceError(
                    path: path, message: "read failed (device gone?): \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            filled += n
            let used = buffer.withUnsafeBytes { decode(UnsafeRawBufferPointer(rebasing: $0[0..<filled]), sink) }
            buffer.replaceSubrange(0..<used, with: [])
            buffer += [UInt8](repeating: 0, count: used)
            filled -= used
        }
    }
}

extension EvdevAccelerometer {
    /// `/dev/input/eventN` nodes whose device reports ABS_X/Y/Z and the accelerometer property
    /// (`INPUT_PROP_ACCELEROMETER`, bit 6 of `<sys>/class/input/eventN/device/properties`).
    public static func list(roots: DeviceRoots = DeviceRoots()) -> [String] {
        let base = roots.sys + "/class/input"
        return SysfsFile.list(base).filter { $0.hasPrefix("event") }.filter { name in
            let device = base + "/" + name + "/device"
            guard let props = SysfsFile.read(device + "/properties").flatMap(lowestWord),
                let abs = SysfsFile.read(device + "/capabilities/abs").flatMap(lowestWord)
            else { return false }
            return props & (1 << 6) != 0 && abs & 0b111 == 0b111
        }.sorted { (Int($0.dropFirst(5)) ?? 0) < (Int($1.dropFirst(5)) ?? 0) }.map { roots.dev + "/input/" + $0 }
    }

    /// The lowest word of a sysfs bitmap (space-separated hex words, most significant first).
    static func lowestWord(_ text: String) -> UInt64? {
        text.split(separator: " ").last.flatMap { UInt64($0, radix: 16) }
    }
}
