import Agent
import ArgumentParser
import Foundation
import Messages
import SensorInput
import Store

/// `steptweet devices`: the live sensors `source.device` can name, and a quick check that they read sensibly.
struct DevicesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List IIO accelerometers and step counters and evdev accelerometers, with the source.device to use.",
        discussion: """
            --sample SECONDS polls each IIO accelerometer at 50 Hz and prints the mean magnitude: about 9.81 m/s² \
            for a device at rest means scale and units are right. Exit status 69 when no device is found. \
            --received lists instead the phones and watches that pushed to the receiver ([receive]), and a phone \
            running phyphox that is pulled (source.url): name, format, when last heard, up to when their data has \
            arrived, readings and samples received.

            Examples:
              steptweet devices --sample 2
              steptweet devices --received --config config.toml
            """
    )

    @Option(help: "Where sysfs is.") var sysRoot = "/sys"
    @Option(help: "Where device nodes are.") var devRoot = "/dev"
    @Option(help: "Poll each IIO accelerometer for this many seconds and show the mean magnitude.") var sample: Double?
    @Flag(name: .long, help: "One JSON array of the devices found.") var json = false
    @Flag(help: "List the devices that pushed to the receiver instead (from the state database).") var received =
        false
    @OptionGroup var configOptions: ConfigOptions

    func run() async throws {
        if received { return try listReceived() }
        let roots = DeviceRoots(sys: sysRoot, dev: devRoot)
        let found = DeviceSurvey.run(roots: roots)
        if found.isEmpty {
            throw fail(
                "no IIO accelerometer or step counter under \(sysRoot)/bus/iio/devices and no evdev accelerometer under \(sysRoot)/class/input",
                status: ExitStatus.unavailable)
        }
        if json {
            printLine(jsonLine(found))
            return
        }
        for d in found {
            var what: [String] = []
            if d.accelerometer { what.append("accelerometer") }
            if d.stepCounter { what.append("step counter" + (d.steps.map { " (\($0) steps so far)" } ?? "")) }
            printLine("\(d.device)  \(d.name): \(what.joined(separator: ", "))")
            if !d.samplingFrequencies.isEmpty {
                printLine(
                    "  rates: "
                        + d.samplingFrequencies.map { $0 == $0.rounded() ? String(Int($0)) : String($0) }.joined(
                            separator: " ") + " Hz")
            }
            var choices: [String] = []
            if d.stepCounter { choices.append("\"counter\"") }
            if d.accelerometer && d.bus == "iio" {
                choices.append("\"poll\"")
                if d.bufferNode != nil { choices.append("\"buffer\"") }
            }
            printLine(
                "  config: [source] device = \"\(d.device)\""
                    + (choices.isEmpty ? "" : "  sampling = " + choices.joined(separator: " | ")))
            if let problem = d.problem { printLine("  problem: \(problem)") }
            if let seconds = sample, d.accelerometer, d.bus == "iio", d.problem == nil {
                let device = IIODevice(
                    sysfsPath: sysRoot + "/bus/iio/devices/" + d.device, devNode: devRoot + "/" + d.device)
                let r = await DeviceSurvey.sample(device, seconds: seconds, rateHz: 50)
                if let lost = r.lost {
                    printLine("  sample: \(lost)")
                } else {
                    printLine(
                        String(
                            format: "  sample: %d samples, |a| mean %.2f m/s² (sd %.2f)%@", r.samples, r.meanMagnitude,
                            r.sdMagnitude,
                            abs(r.meanMagnitude - 9.81) > 1.5 && r.sdMagnitude < 0.5
                                ? ": far from 9.81 at rest — check the scale" : ""))
                }
            }
        }
    }

    /// `--received`: the devices the receiver has heard, most recent first.
    func listReceived() throws {
        let config = try configOptions.load()
        let devices: [ReceivedDeviceListing]
        do {
            devices = try StateStore(readOnlyPath: config.statePath).receivedDevices()
        } catch {
            throw stateFailure(error, path: config.statePath)
        }
        let zone = config.composer.timeZone
        if json {
            printLine(jsonLine(devices, datesIn: zone))
            return
        }
        if devices.isEmpty { printLine("no device has pushed to the receiver yet (\(config.statePath))") }
        for d in devices { printLine(TerminalText.escaped(d.line(zone: zone))) }
    }

}
