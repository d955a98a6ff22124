import Foundation
import WallTime

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

    public init(sysfsPath: String, logPath: String) {
        self.sysfsPath = sysfsPath
        self.logPath = logPath
    }

    /// Reads the counter and appends it to the log at `now`.
    public func record(now: Instant, bootIDPath: String = "/proc/sys/kernel/random/boot_id") throws {
        if let off = IIODevice.stepCounterOff(sysfsPath) {
            throw InputError(file: off.path, message: off.message, kind: .unreadable)
        }
        let counter = sysfsPath + "/in_steps_input"
        guard let text = try? String(contentsOfFile: counter, encoding: .utf8),
            let total = Int64(text.trimmingCharacters(in: .whitespacesAndNewlines)), total >= 0
        else {
            throw InputError(
                file: counter, message: "cannot be read (device gone?); it is read again at the next fetch",
                kind: .notYetAvailable)
        }
        let boot = (try? String(contentsOfFile: bootIDPath, encoding: .utf8))?.trimmingCharacters(
            in: .whitespacesAndNewlines)
        let line = StepLogLine.encode(
            timeNs: now.nanosecondsSinceEpoch, total: total, bootID: boot,
            source: (sysfsPath as NSString).lastPathComponent)
        try FileManager.default.createDirectory(
            atPath: (logPath as NSString).deletingLastPathComponent,
            withIntermediateDirectories: true)
        if !FileManager.default.fileExists(atPath: logPath),
            !FileManager.default.createFile(atPath: logPath, contents: nil, attributes: [.posixPermissions: 0o600])
        {
            throw InputError(
                file: logPath, message: "the step counter's log cannot be created (is its folder writable?)",
                kind: .unreadable)
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(line.utf8))  // one write of one whole line: a reader never sees half of it
    }
}
