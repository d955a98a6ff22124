import StepDetection
import WallTime

#if canImport(Glibc)
    import Glibc
#endif

/// One channel's storage in an IIO scan, from `scan_elements/*_type`: `[be|le]:[s|u]bits/storagebits[Xrepeat]>>shift`.
public struct IIOChannelType: Sendable, Equatable {
    public var bigEndian: Bool
    public var signed: Bool
    public var realBits: Int
    public var storageBits: Int
    public var repeatCount: Int
    public var shift: Int

    /// Bytes this channel takes in a scan (and its alignment).
    public var storageBytes: Int { storageBits / 8 }

    /// Parses a type string such as `le:s12/16>>4` or `be:u16/32X2>>0`.
    public init?(_ text: String) {
        var c = TimeParsing.Cursor(Array(text.utf8))
        guard let e0 = c.peek, c.eat(anyOf: [0x62, 0x6C]) != nil, c.eat(0x65), c.eat(0x3A) else { return nil }
        bigEndian = e0 == 0x62
        guard let sign = c.eat(anyOf: [0x73, 0x75, 0x53, 0x55]) else { return nil }
        signed = sign == 0x73 || sign == 0x53
        guard let real = c.int(min: 1, max: 2), c.eat(0x2F), let storage = c.int(min: 1, max: 2) else { return nil }
        realBits = real
        storageBits = storage
        repeatCount = 1
        if c.eat(0x58), let r = c.int(min: 1, max: 3) { repeatCount = r }
        shift = 0
        if c.eat(0x3E) {
            guard c.eat(0x3E), let s = c.int(min: 1, max: 2) else { return nil }
            shift = s
        }
        guard c.atEnd, [8, 16, 32, 64].contains(storage), real >= 1, real + shift <= storage, repeatCount >= 1 else {
            return nil
        }
    }

    /// The value stored at `p`: byte order, shift, mask to the real bits, sign extension.
    @inline(__always)
    public func value(at p: UnsafeRawPointer) -> Int64 {
        var bits: UInt64 = 0
        let n = storageBytes
        for i in 0..<n {
            let byte = UInt64(p.load(fromByteOffset: bigEndian ? i : n - 1 - i, as: UInt8.self))
            bits = (bits << 8) | byte
        }
        bits >>= UInt64(shift)
        if realBits < 64 {
            bits &= (1 << UInt64(realBits)) - 1
            if signed && bits & (1 << UInt64(realBits - 1)) != 0 { bits |= ~((1 << UInt64(realBits)) - 1) }
        }
        return Int64(bitPattern: bits)
    }
}

/// Layout of one scan of the enabled channels: ordered by index, each aligned to its own storage size, the scan
/// padded to the largest alignment.
public struct IIOScanLayout: Sendable, Equatable {
    public struct Channel: Sendable, Equatable {
        public var name: String
        public var index: Int
        public var type: IIOChannelType
        public var offset: Int
    }
    public var channels: [Channel]
    public var scanBytes: Int

    public init(channels: [(name: String, index: Int, type: IIOChannelType)]) {
        var offset = 0
        var align = 1
        var out: [Channel] = []
        for c in channels.sorted(by: { $0.index < $1.index }) {
            let size = c.type.storageBytes
            offset = (offset + size - 1) / size * size
            out.append(Channel(name: c.name, index: c.index, type: c.type, offset: offset))
            offset += size * c.type.repeatCount
            align = max(align, size)
        }
        self.channels = out
        scanBytes = max(1, (offset + align - 1) / align * align)
    }

    /// Reads the enabled channels of `device`'s `scan_elements`.
    public init(device: IIODevice) throws {
        let dir = device.path + "/scan_elements"
        var found: [(String, Int, IIOChannelType)] = []
        for file in SysfsFile.list(dir) where file.hasSuffix("_en") {
            let name = String(file.dropLast(3))
            guard SysfsFile.read(dir + "/" + file) == "1" else { continue }
            guard let index = SysfsFile.int(dir + "/\(name)_index"),
                let typeText = SysfsFile.read(dir + "/\(name)_type")
            else {
                throw DeviceError(path: dir + "/" + name, message: "enabled channel without _index or _type")
            }
            guard let type = IIOChannelType(typeText) else {
                throw DeviceError(path: dir + "/\(name)_type", message: "unknown scan type '\(typeText)'")
            }
            found.append((name, Int(index), type))
        }
        self.init(channels: found.map { (name: $0.0, index: $0.1, type: $0.2) })
        guard ["in_accel_x", "in_accel_y", "in_accel_z"].allSatisfy({ n in channels.contains { $0.name == n } }) else {
            throw DeviceError(path: dir, message: "in_accel_x/y/z are not all enabled")
        }
    }

    public func channel(_ name: String) -> Channel? { channels.first { $0.name == name } }
}

/// Decodes the IIO buffer (the `<dev>/iio:deviceN` character device, or a capture of it) into samples in m/s²:
/// scan layout from `scan_elements`, calibration from sysfs, time from the timestamp channel (ns) when enabled,
/// else from `sampling_frequency`. The timestamps stay on the clock `current_timestamp_clock` names: the agent's
/// `AccelerometerSampler` moves them to real time (`offsetToRealtime`).
public struct IIOBufferedAccelerometer: Sendable {
    public let device: IIODevice
    public let layout: IIOScanLayout
    public let calibration: IIOAccelCalibration
    let x: IIOScanLayout.Channel, y: IIOScanLayout.Channel, z: IIOScanLayout.Channel
    let timestamp: IIOScanLayout.Channel?
    let periodNs: Int64
    var scans: Int64 = 0
    /// Time of the first scan when there is no timestamp channel.
    public var start = Instant.epoch

    public init(device: IIODevice) throws {
        self.device = device
        layout = try IIOScanLayout(device: device)
        calibration = try IIOAccelCalibration(device: device)
        guard let x = layout.channel("in_accel_x"), let y = layout.channel("in_accel_y"),
            let z = layout.channel("in_accel_z")
        else {
            throw DeviceError(path: device.path, message: "no accelerometer channels")
        }
        self.x = x
        self.y = y
        self.z = z
        timestamp = layout.channel("in_timestamp")
        let rate =
            SysfsFile.double(device.path + "/sampling_frequency") ?? SysfsFile.double(
                device.path + "/in_accel_sampling_frequency") ?? 0
        periodNs = rate > 0 ? Int64((1e9 / rate).rounded()) : 0
    }

    /// Decodes every whole scan in `bytes`; returns how many bytes were used (a partial scan is left over).
    @discardableResult
    public mutating func decode(_ bytes: UnsafeRawBufferPointer, _ sink: (AccelerationSample) -> Void) -> Int {
        guard let base = bytes.baseAddress else { return 0 }
        var used = 0
        while used + layout.scanBytes <= bytes.count {
            let p = base + used
            let (ax, ay, az) = calibration.apply(
                Double(x.type.value(at: p + x.offset)), Double(y.type.value(at: p + y.offset)),
                Double(z.type.value(at: p + z.offset)))
            let t =
                timestamp.map { $0.type.value(at: p + $0.offset) } ?? (start.nanosecondsSinceEpoch &+ scans &* periodNs)
            sink(AccelerationSample(time: Instant(nanosecondsSinceEpoch: t), x: ax, y: ay, z: az))
            scans += 1
            used += layout.scanBytes
        }
        return used
    }

    /// Reads `path` (default: the device's character device) until its end, delivering samples. A FIFO or the real
    /// device blocks between scans; a read error (device gone) is thrown as a `DeviceError` for the caller to retry.
    public mutating func read(path: String? = nil, _ sink: (AccelerationSample) -> Void) throws {
        let file = path ?? device.devNode
        let fd = open(file, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw DeviceError(path: file, message: LineReader.openErrorMessage(errno)) }
        defer { close(fd) }
        let capacity = layout.scanBytes * 256
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 8)
        defer { buffer.deallocate() }
        var filled = 0
        while true {
            let n = Glibc.read(fd, buffer + filled, capacity - filled)
            if n < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw DeviceError(path: file, message: "read failed: \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            filled += n
            let used = decode(UnsafeRawBufferPointer(start: buffer, count: filled), sink)
            if used < filled { memmove(buffer, buffer + used, filled - used) }
            filled -= used
        }
    }
}
