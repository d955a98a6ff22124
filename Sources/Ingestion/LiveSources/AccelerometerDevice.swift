import Foundation

#if canImport(Glibc)
    import Glibc
#endif

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
