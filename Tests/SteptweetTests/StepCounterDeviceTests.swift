import Foundation
import TestSupport
import Testing

/// `source.device` with a hardware step counter (a copy of the committed fake IIO sysfs tree), through the real binary.
@Suite(.temporaryFolder) struct StepCounterDeviceTests {
    struct Tree {
        /// Holds the copy; removed when the test ends.
        let temp: TempDir
        var root: URL { temp.url }
        var device: URL { root.appendingPathComponent("sys/bus/iio/devices/iio:device0") }
        func setCounter(_ value: String) throws {
            try Data("\(value)\n".utf8).write(to: device.appendingPathComponent("in_steps_input"))
        }
    }

    func makeTree() throws -> Tree {
        let temp = try TempDir("steptweet-device")
        let root = temp.url
        let committed = URL(fileURLWithPath: Steptweet.fixture("iio_fake_sysfs/sys"))
        try FileManager.default.copyItem(at: committed, to: root.appendingPathComponent("sys"))
        // The committed tree stays as it is (and may be read-only): the copy is made writable to move the counter.
        let walker = FileManager.default.enumerator(atPath: root.path)!
        for case let rel as String in walker {
            try FileManager.default.setAttributes(
                [.posixPermissions: 0o755], ofItemAtPath: root.appendingPathComponent(rel).path)
        }
        return Tree(temp: temp)
    }

    func config(_ tree: Tree) throws -> String {
        let path = tree.root.appendingPathComponent("config.toml")
        try Data(
            TestBudget.applied(
                to: """
                    [source]
                    device = "iio:device0"
                    sys_root = "\(tree.root.appendingPathComponent("sys").path)"
                    [text]
                    time_zone = "Asia/Tokyo"
                    [state]
                    path = "state/state.sqlite"
                    """
            ).utf8
        ).write(to: path)
        return path.path
    }

    func fetch(_ config: String, _ time: String) async throws -> CommandResult {
        try await Steptweet.run(["fetch", "--config", config, "--now", "2026-11-21T\(time)+09:00"])
    }

    @Test func counterReadingsBecomeWindowsWithResetsAndAVanishingDevice() async throws {
        let tree = try makeTree()
        let config = try config(tree)
        // First reading (1234, the committed tree's value) is a baseline: no steps are invented.
        let first = try await fetch(config, "10:00:00")
        #expect(first.stdout.split(separator: "\n").last == "NoData", "\(first.stdout)\(first.stderr)")
        try tree.setCounter("1300")
        let second = try await fetch(config, "10:10:00")
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout.contains("を持って 66 歩"), "\(second.stdout)")
        #expect(second.stdout.split(separator: "\n").last == "NewData")
        // The counter restarted (reboot): the new value counts from 0, never a negative count.
        try tree.setCounter("20")
        let third = try await fetch(config, "10:20:00")
        #expect(third.stdout.contains("を持って 20 歩"), "\(third.stdout)")
        // The device disappears (driver unloaded): that fetch fails with a clear reason, the next one reads it again.
        let away = tree.root.appendingPathComponent("unplugged")
        try FileManager.default.moveItem(at: tree.device, to: away)
        let gone = try await fetch(config, "10:30:00")
        #expect(gone.status == 75)
        #expect(
            gone.stdout.split(separator: "\n").last?.contains("in_steps_input: cannot be read (device gone?)") == true,
            "\(gone.stdout)")
        try FileManager.default.moveItem(at: away, to: tree.device)
        try tree.setCounter("50")
        let back = try await fetch(config, "10:40:00")
        #expect(back.stdout.contains("を持って 30 歩"), "\(back.stdout)")
        let steps = try await Steptweet.run([
            "steps", "--config", config, "--from", "2026-11-21T10:00:00+09:00",
            "--to", "2026-11-21T11:00:00+09:00",
        ])
        #expect(steps.stdout.hasPrefix("116 steps"), "\(steps.stdout)")
    }

    @Test func accelerometerWithoutCounterIsSampledByTheAgent() async throws {
        let tree = try makeTree()
        try FileManager.default.removeItem(at: tree.device.appendingPathComponent("in_steps_input"))
        let config = try config(tree)
        // No agent yet: a one-shot fetch has nothing to read and says why (Failed, not a configuration error).
        let early = try await fetch(config, "10:00:00")
        #expect(early.status == 75)
        #expect(
            early.stdout.contains("no samples yet: iio:device0 polled at 50 Hz is sampled by `steptweet agent`"),
            "\(early.stdout)")

        let process = ChildProcess()
        process.executableURL = Steptweet.binary
        process.arguments = ["agent", "--config", config]
        let err = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = err
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        let stderr = AgentProcessTests.Lines(err)
        #expect(try await stderr.wait(for: "sampling iio:device0 polled at 50 Hz into "), "\(stderr.all)")
        let samples = tree.root.appendingPathComponent("state/device-iio_device0.accel.csv").path
        // The first sample is written at once (then once a second): the header and that sample.
        var lines = 0
        _ = await eventually {
            lines = ((try? String(contentsOfFile: samples, encoding: .utf8)) ?? "").split(separator: "\n").count
            return lines >= 2
        }
        #expect(lines >= 2)
        let status = try await Steptweet.run(["status", "--config", config])
        #expect(
            status.stdout.contains("device:   iio:device0 polled at 50 Hz by the agent into \(samples), last sample "),
            "\(status.stdout)")
        kill(process.processIdentifier, SIGTERM)
        await offThePool { process.waitUntilExit() }
        #expect(process.terminationStatus == 0)
        #expect(try await stderr.wait(for: "sampling stopped after "), "\(stderr.all)")
        // Stopping writes what was buffered: as many rows as the agent says it sampled, each a whole sample.
        let text = try String(contentsOfFile: samples, encoding: .utf8)
        let rows = text.split(separator: "\n").dropFirst()
        #expect(text.hasPrefix("time_ns,x,y,z\n"))
        #expect(stderr.all.contains("sampling stopped after \(rows.count) samples"), "\(stderr.all)")
        #expect(rows.allSatisfy { $0.split(separator: ",").count == 4 })
    }
}
