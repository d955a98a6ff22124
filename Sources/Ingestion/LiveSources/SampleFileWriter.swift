import Foundation
import SensorInput
import StepDetection
import WallTime

#if canImport(Glibc)
    import Glibc
#endif

/// Appends samples as `time_ns,x,y,z` lines (m/s², 5 decimals) to the sample file, in whole-line writes, and
/// rotates it. Samples not later than the last one written are dropped (a reader needs time to go forward).
package final class SampleFileWriter: @unchecked Sendable {  // used by one thread at a time
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
        let last = Self.lastTime(in: device.samplePath) ?? Self.lastTime(in: device.rotatedPath)
        lastNs = last?.nanosecondsSinceEpoch ?? .min
    }

    deinit { if fd >= 0 { close(fd) } }

    private func open() throws {
        let path = device.samplePath
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        fd = Glibc.open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw DeviceError(path: path, message: "cannot write samples: \(String(cString: strerror(errno)))")
        }
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
    package static func lastTime(in path: String) -> Instant? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        let end = (try? handle.seekToEnd()) ?? 0
        let from = end > 4096 ? end - 4096 : 0
        try? handle.seek(toOffset: from)
        let tail = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        let lines = tail.split(separator: "\n", omittingEmptySubsequences: true)
        let complete = tail.hasSuffix("\n") ? lines : lines.dropLast()
        for line in complete.reversed() {
            if let t = line.split(separator: ",").first.flatMap({ Int64($0) }) {
                return Instant(nanosecondsSinceEpoch: t)
            }
        }
        return nil
    }

    /// Buffers one sample; returns false when it was dropped for not going forward in time.
    @discardableResult
    func append(_ s: AccelerationSample) -> Bool {
        guard s.time.nanosecondsSinceEpoch > lastNs, s.x.isFinite, s.y.isFinite, s.z.isFinite else { return false }
        lastNs = s.time.nanosecondsSinceEpoch
        Self.appendInteger(s.time.nanosecondsSinceEpoch, to: &buffer)
        buffer.append(UInt8(ascii: ","))
        Self.appendFixed(s.x, to: &buffer)
        buffer.append(UInt8(ascii: ","))
        Self.appendFixed(s.y, to: &buffer)
        buffer.append(UInt8(ascii: ","))
        Self.appendFixed(s.z, to: &buffer)
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
                throw DeviceError(
                    path: device.samplePath, message: "cannot rotate: \(String(cString: strerror(errno)))")
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
                // cannot hold more: these samples are lost
                if buffer.count > 8 << 20 { buffer.removeAll(keepingCapacity: true) }
                throw DeviceError(path: device.samplePath, message: "cannot write samples: \(reason)")
            }
            done += n
        }
        size += Int64(bytes.count)
    }

    static func appendInteger(_ value: Int64, to out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        var v = value.magnitude
        var digits:
            (
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8
            ) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var n = 0
        withUnsafeMutableBytes(of: &digits) { d in
            repeat {
                d[n] = UInt8(ascii: "0") + UInt8(v % 10)
                v /= 10
                n += 1
            } while v > 0
            for i in stride(from: n - 1, through: 0, by: -1) { out.append(d[i]) }
        }
    }

    /// `value` with 5 decimals (|value| is far below 2^63 / 10^5 for any acceleration).
    static func appendFixed(_ value: Double, to out: inout [UInt8]) {
        let scaled = (value * 100_000).rounded()
        guard abs(scaled) < 9e18 else {
            out.append(UInt8(ascii: "0"))
            return
        }
        let units = Int64(scaled)
        if units < 0 { out.append(UInt8(ascii: "-")) }
        let m = units.magnitude
        appendInteger(Int64(m / 100_000), to: &out)
        out.append(UInt8(ascii: "."))
        let frac = m % 100_000
        var divisor: UInt64 = 10_000
        while divisor > 0 {  // five digits, leading zeros kept
            out.append(UInt8(ascii: "0") + UInt8(frac / divisor % 10))
            divisor /= 10
        }
    }
}
