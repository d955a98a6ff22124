import Foundation
import Messages
import SensorInput

/// A hardware pedometer (`in_steps_input` of a Linux IIO device) as a source: each fetch reads the cumulative counter
/// and appends it as one line to a step log next to the state database, which the fetch then ingests like any
/// growing step log (cursor, never a line twice). The step log's rules apply: the first total is a baseline, a total
/// below the previous one is a counter reset, never a negative count. A device that is missing or unreadable fails
/// that fetch with a clear reason and is read again at the next one.
public struct StepCounterDevice: Sendable, Equatable {
    /// The device's sysfs folder, e.g. `/sys/bus/iio/devices/iio:device0`.
    public var sysfsPath: String
    /// Where its readings are logged.
    public var logPath: String

    /// Resolves `device` (`iio:device0`, `/dev/iio:device0`, or a sysfs folder) under `sysRoot`. Throws for a device
    /// that is there but has no step counter (a live accelerometer, which fetches cannot sample).
    public static func resolve(_ device: String, sysRoot: String, stateDirectory: String) throws(ConfigurationError) -> StepCounterDevice {
        let name = (device as NSString).lastPathComponent
        let folder: String
        if device.hasPrefix("/dev/input/") {
            throw ConfigurationError(path: "source.device", message: "\(device) is an evdev accelerometer: live accelerometer sampling is not supported by fetch; record it to a file (e.g. with a logger writing t_ns,x,y,z) and set source.path with follow = true")
        } else if device.hasPrefix("/dev/") || !device.contains("/") {
            guard name.hasPrefix("iio:device") else {
                throw ConfigurationError(path: "source.device", message: "'\(device)' is not an IIO device (expected iio:deviceN, /dev/iio:deviceN or its sysfs folder)")
            }
            folder = sysRoot + "/bus/iio/devices/" + name
        } else {
            folder = device
        }
        let fm = FileManager.default
        if fm.fileExists(atPath: folder) && !fm.fileExists(atPath: folder + "/in_steps_input") {
            let accel = fm.fileExists(atPath: folder + "/in_accel_x_raw")
            throw ConfigurationError(path: "source.device", message: accel
                ? "\(folder) is an accelerometer without a hardware step counter (no in_steps_input): live accelerometer sampling is not supported by fetch; record it to a file and set source.path with follow = true"
                : "\(folder) has no in_steps_input: not an IIO step counter")
        }
        let log = URL(fileURLWithPath: stateDirectory).appendingPathComponent("device-\(name.replacingOccurrences(of: ":", with: "_")).steplog.jsonl").path
        return StepCounterDevice(sysfsPath: folder, logPath: log)
    }

    /// Reads the counter and appends it to the log at `nowNs`.
    public func record(nowNs: Int64, bootIDPath: String = "/proc/sys/kernel/random/boot_id") throws {
        let counter = sysfsPath + "/in_steps_input"
        guard let text = try? String(contentsOfFile: counter, encoding: .utf8),
              let total = Int64(text.trimmingCharacters(in: .whitespacesAndNewlines)), total >= 0 else {
            throw InputError(file: counter, message: "cannot be read (device gone?); it is read again at the next fetch")
        }
        let boot = (try? String(contentsOfFile: bootIDPath, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
        let line = StepLogLine.encode(timeNs: nowNs, total: total, bootID: boot, source: (sysfsPath as NSString).lastPathComponent)
        try FileManager.default.createDirectory(atPath: (logPath as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        if !FileManager.default.fileExists(atPath: logPath) {
            FileManager.default.createFile(atPath: logPath, contents: nil, attributes: [.posixPermissions: 0o600])
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(line.utf8))  // one write of one whole line: a reader never sees half of it
    }
}
