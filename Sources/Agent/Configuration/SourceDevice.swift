import Foundation
import Ingestion
import Messages
import Publishing
import SensorInput

/// What `source.device` names, once resolved.
public enum SourceDevice: Sendable, Equatable {
    case stepCounter(StepCounterDevice)
    case accelerometer(AccelerometerDevice)

    /// Resolves `device` (`iio:device0`, `/dev/iio:device0`, a sysfs folder, or `/dev/input/eventN`) under the roots.
    /// `sampling` chooses how: `counter` (the hardware step counter, the default when there is one), `poll`
    /// (the default for an accelerometer without one) or `buffer`; an evdev node is always read as evdev.
    public static func resolve(
        _ device: String, roots: DeviceRoots, sampling: String?, rateHz: Double?,
        stateDirectory: String
    ) throws(ConfigurationError) -> SourceDevice {
        let name = (device as NSString).lastPathComponent
        let fileStem = URL(fileURLWithPath: stateDirectory).appendingPathComponent(
            "device-" + name.replacingOccurrences(of: ":", with: "_")
        ).path
        let rate = rateHz ?? 50
        guard rate > 0, rate <= 2000 else {
            throw ConfigurationError(
                path: "source.rate", message: "\(rate) Hz is not a sampling rate between 0 and 2000 Hz")
        }
        if device.contains("/input/") {
            if let s = sampling, s != "evdev" {
                throw ConfigurationError(
                    path: "source.sampling", message: "'\(s)' does not apply to an evdev node (\(device)); leave it out"
                )
            }
            let node = device.hasPrefix("/") ? device : roots.dev + "/input/" + name
            return .accelerometer(
                AccelerometerDevice(
                    method: .evdev, sysfsPath: "", node: node, rateHz: rate,
                    samplePath: fileStem + ".accel.csv"))
        }
        let folder = try iioFolder(device, name: name, roots: roots)
        let fm = FileManager.default
        let hasCounter = fm.fileExists(atPath: folder + "/in_steps_input")
        let hasAccel = fm.fileExists(atPath: folder + "/in_accel_x_raw")
        let present = fm.fileExists(atPath: folder)
        let method = sampling ?? (hasCounter || !present ? "counter" : "poll")
        switch method {
        case "counter":
            if present && !hasCounter {
                throw ConfigurationError(
                    path: "source.device", message: "\(folder) has no in_steps_input: not an IIO step counter")
            }
            return .stepCounter(StepCounterDevice(sysfsPath: folder, logPath: fileStem + ".steplog.jsonl"))
        case "poll", "buffer":
            if present && !hasAccel {
                throw ConfigurationError(
                    path: "source.device", message: "\(folder) has no in_accel_x_raw: not an IIO accelerometer")
            }
            let node = device.hasPrefix("/dev/") ? device : roots.dev + "/" + (folder as NSString).lastPathComponent
            return .accelerometer(
                AccelerometerDevice(
                    method: method == "poll" ? .poll : .buffer, sysfsPath: folder,
                    node: method == "poll" ? "" : node, rateHz: rate,
                    samplePath: fileStem + ".accel.csv"))
        default:
            throw ConfigurationError(
                path: "source.sampling", message: "'\(method)' is not \"counter\", \"poll\" or \"buffer\"")
        }
    }
    /// The sysfs folder of an IIO device named by its name, its `/dev` node or its folder.
    static func iioFolder(_ device: String, name: String, roots: DeviceRoots) throws(ConfigurationError) -> String {
        guard device.hasPrefix("/dev/") || !device.contains("/") else { return device }
        guard name.hasPrefix("iio:device") else {
            throw ConfigurationError(
                path: "source.device",
                message:
                    "'\(device)' is not an IIO device or evdev node (expected iio:deviceN, /dev/iio:deviceN, its sysfs folder, or /dev/input/eventN)"
            )
        }
        return roots.sys + "/bus/iio/devices/" + name
    }
}
