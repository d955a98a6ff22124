import Foundation
import TestSupport
import Testing

/// `steptweet devices` against the committed fake IIO tree (`fixtures/iio_fake_sysfs`) and a fake evdev tree.
@Suite(.temporaryFolder) struct DevicesCommandTests {
    let sys = Steptweet.fixture("iio_fake_sysfs/sys")
    let dev = Steptweet.fixture("iio_fake_sysfs/dev")

    @Test func listsTheFakeIIODeviceWithItsConfigAndASensibleMagnitude() async throws {
        let r = try await Steptweet.run(["devices", "--sys-root", sys, "--dev-root", dev, "--sample", "0.2"])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "iio:device0  bmc150_accel: accelerometer, step counter (1234 steps so far)")
        #expect(
            lines.contains(
                "  config: [source] device = \"iio:device0\"  sampling = \"counter\" | \"poll\" | \"buffer\""))
        // raw (-12, -1010, 104) × 0.00958: |a| = 9.73 m/s², and constant.
        #expect(
            lines.contains { $0.hasPrefix("  sample: ") && $0.contains("|a| mean 9.73 m/s² (sd 0.00)") }, "\(r.stdout)")
        let json = try await Steptweet.run(["devices", "--json", "--sys-root", sys, "--dev-root", dev])
        let devices = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        let object = try #require(devices.first)
        #expect(object["step_counter"] as? Bool == true)
        #expect(object["steps"] as? Int == 1234)
        #expect(object["buffer_node"] as? String == dev + "/iio:device0")
        #expect((object["sampling_frequencies"] as? [Double])?.last == 1000)
    }

    @Test func findsEvdevAccelerometersAndSaysWhenThereIsNothing() async throws {
        let temp = try TempDir("steptweet-evdev")
        let root = temp.root
        func write(_ path: String, _ text: String) throws {
            try FileManager.default.createDirectory(
                atPath: (root + "/" + path as NSString).deletingLastPathComponent,
                withIntermediateDirectories: true)
            try Data((text + "\n").utf8).write(to: URL(fileURLWithPath: root + "/" + path))
        }
        let none = try await Steptweet.run(["devices", "--sys-root", root + "/sys", "--dev-root", root + "/dev"])
        #expect(none.status == 69)
        #expect(none.stderr.contains("no IIO accelerometer or step counter under \(root)/sys/bus/iio/devices"))
        try write("sys/class/input/event5/device/properties", "40")
        try write("sys/class/input/event5/device/capabilities/abs", "7")
        try write("sys/class/input/event5/device/name", "iio-sensor-proxy accel")
        let missing = try await Steptweet.run(["devices", "--sys-root", root + "/sys", "--dev-root", root + "/dev"])
        #expect(
            missing.stdout.hasPrefix("\(root)/dev/input/event5  iio-sensor-proxy accel: accelerometer\n"),
            "\(missing.stdout)")
        #expect(missing.stdout.contains("  problem: \(root)/dev/input/event5 does not exist"))
        try write("dev/input/event5", "")
        let present = try await Steptweet.run(["devices", "--sys-root", root + "/sys", "--dev-root", root + "/dev"])
        #expect(!present.stdout.contains("problem"), "\(present.stdout)")
        #expect(present.stdout.contains("config: [source] device = \"\(root)/dev/input/event5\""))
    }
}
