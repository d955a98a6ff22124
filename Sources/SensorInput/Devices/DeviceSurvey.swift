import StepDetection
import WallTime

#if canImport(Glibc)
    import Glibc
#endif

/// One live sensor found on the machine, as `steptweet devices` shows it.
public struct DeviceDescription: Codable, Sendable, Equatable {
    /// What to write in `source.device`: `iio:deviceN` or `/dev/input/eventN`.
    public var device: String
    /// `iio` or `evdev`.
    public var bus: String
    /// The driver's name.
    public var name: String
    public var accelerometer: Bool
    public var stepCounter: Bool
    /// The hardware counter's value now.
    public var steps: Int64?
    /// Sampling rates the device offers (Hz).
    public var samplingFrequencies: [Double]
    /// The IIO buffer's character device, when it exists (for `sampling = "buffer"`).
    public var bufferNode: String?
    /// Why the device cannot be used as it is (unreadable calibration, no permission…).
    public var problem: String?

    enum CodingKeys: String, CodingKey {
        case device, bus, name, accelerometer, steps, problem
        case stepCounter = "step_counter"
        case samplingFrequencies = "sampling_frequencies"
        case bufferNode = "buffer_node"
    }
}

/// Finds IIO accelerometers and step counters and evdev accelerometers under the roots.
public enum DeviceSurvey {
    public static func run(roots: DeviceRoots = DeviceRoots()) -> [DeviceDescription] {
        var out: [DeviceDescription] = []
        for d in IIODevice.list(roots: roots) where d.hasAccelerometer || d.hasStepCounter {
            var problem: String?
            if d.hasAccelerometer {
                do { _ = try IIOAccelCalibration(device: d) } catch { problem = "\(error)" }
                if problem == nil, SysfsFile.read(d.path + "/in_accel_x_raw") == nil {
                    problem =
                        "\(d.path)/in_accel_x_raw cannot be read (permissions? see contrib/README.md for a udev rule)"
                }
            }
            let frequencies =
                ((SysfsFile.read(d.path + "/in_accel_sampling_frequency_available")
                ?? SysfsFile.read(d.path + "/sampling_frequency_available")) ?? "")
                .split(separator: " ").compactMap { Double($0) }
            out.append(
                DeviceDescription(
                    device: d.id, bus: "iio", name: d.name, accelerometer: d.hasAccelerometer,
                    stepCounter: d.hasStepCounter,
                    steps: d.hasStepCounter ? SysfsFile.int(d.path + "/in_steps_input") : nil,
                    samplingFrequencies: frequencies,
                    bufferNode: SysfsFile.exists(d.devNode) ? d.devNode : nil, problem: problem))
        }
        for node in EvdevAccelerometer.list(roots: roots) {
            let event = node.split(separator: "/").last.map(String.init) ?? node
            let name = SysfsFile.read(roots.sys + "/class/input/\(event)/device/name") ?? event
            var problem: String?
            if !SysfsFile.exists(node) {
                problem = "\(node) does not exist"
            } else if access(node, R_OK) != 0 {
                problem = "\(node) is not readable by this user (add it to the 'input' group, or see contrib/README.md)"
            }
            out.append(
                DeviceDescription(
                    device: node, bus: "evdev", name: name, accelerometer: true, stepCounter: false,
                    steps: nil, samplingFrequencies: [], bufferNode: nil, problem: problem))
        }
        return out
    }

    /// Polls an IIO accelerometer for `seconds` at `rateHz` and returns what was read: samples, and the mean and
    /// spread of the magnitude (about 9.81 m/s² at rest when scale and units are right). Stops at the first
    /// unreadable sample, which it returns.
    public static func sample(
        _ device: IIODevice, seconds: Double, rateHz: Double, clock: WallClock = .system
    ) async -> (samples: Int, meanMagnitude: Double, sdMagnitude: Double, lost: DeviceError?) {
        var poller = IIOPolledAccelerometer(device: device, rateHz: rateHz, clock: clock)
        let count = max(1, Int((seconds * rateHz).rounded()))
        var n = 0
        var sum = 0.0
        var sumSq = 0.0
        var lost: DeviceError?
        await poller.poll(
            count: count, while: { lost == nil },
            { s in
                let m = (s.x * s.x + s.y * s.y + s.z * s.z).squareRoot()
                n += 1
                sum += m
                sumSq += m * m
            },
            events: { event in
                if case .lost(let e) = event { lost = e }
            })
        let mean = n > 0 ? sum / Double(n) : 0
        let sd = n > 1 ? max(0, sumSq / Double(n) - mean * mean).squareRoot() : 0
        return (n, mean, sd, lost)
    }
}
