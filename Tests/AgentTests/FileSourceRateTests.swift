import Agent
import Foundation
import Publishing
import Testing
import WallTime

/// `source.rate` with `source.path`: the rate of a recording without a time column (UCI HAR/HAPT), which a fetch could
/// not be given before (the key was read for devices only and left unused for a file, and the fetch failed asking for
/// `--rate`); the keys only a device reads are refused with a file, not left unused.
@Suite(.timeLimit(.minutes(1))) struct FileSourceRateTests {
    /// The committed 50 Hz walk as UCI HAR/HAPT raw data writes it: `x y z` in g, one row a sample, no times.
    static func uciWalk(in dir: TempDir) throws -> String {
        let rows = try String(contentsOfFile: Fixture.walk, encoding: .utf8).split(separator: "\n").dropFirst()
        let text: String = try rows.map { row in
            let f = row.split(separator: ",").dropFirst().map { Double($0) }
            guard f.count == 3, let x = f[0], let y = f[1], let z = f[2] else { throw CocoaError(.fileReadCorruptFile) }
            return "\(x / 9.80665) \(y / 9.80665) \(z / 9.80665)\n"
        }.joined()
        let path = dir.path("acc_exp01_user01.txt")
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    func error(_ extra: String, dir: TempDir) -> ConfigurationError? {
        do {
            _ = try Fixture.config(dir: dir, source: dir.path("acc.txt"), extra: extra)
            return nil
        } catch let e as ConfigurationError { return e } catch { return nil }
    }

    @Test func aFetchCountsAFileWithoutTimesAtTheConfiguredRate() async throws {
        let dir = try TempDir()
        var config = try Fixture.config(dir: dir, source: try Self.uciWalk(in: dir), extra: "rate = 50")
        #expect(config.source?.rateHz == 50)
        let target = ScriptedPublisher()
        config.publishers = [target]
        let fetcher = Fetcher(configuration: config, clock: ContinuousClock())
        let now = Fixture.date("2026-11-21T10:10:00+09:00")
        let report = await fetcher.fetch(now: Instant(now), trigger: [.manual])
        #expect(report.result == .newData, "\(report.line)")
        // The 60 s walk of 109 true steps, its 3000 rows placed 20 ms apart from source.start (113 as a CSV).
        let window = try #require(report.windows.first)
        #expect(abs(window.steps - 109) <= 11, "\(window.steps)")
        #expect(await target.received.count == 1)
    }

    @Test func aBadRateAndTheDeviceKeysWithAFileAreRefusedWhereTheyAre() throws {
        let dir = try TempDir()
        let negative = error("rate = -5", dir: dir)
        #expect(negative?.path == "source.rate" && negative?.line == 4, "\(String(describing: negative))")
        #expect(negative?.message.contains("-5.0 Hz is not a sampling rate") == true)
        for key in ["sampling = \"poll\"", "sys_root = \"/tmp\"", "dev_root = \"/tmp\""] {
            let e = error(key, dir: dir)
            let name = String(key.prefix { $0 != " " })
            #expect(e?.path == "source.\(name)" && e?.line == 4, "\(key): \(String(describing: e))")
            #expect(e?.message == "applies to source.device only, not to a file (source.path)", "\(key)")
        }
    }
}
