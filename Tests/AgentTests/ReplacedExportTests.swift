import Agent
import Foundation
import TestSupport
import Testing
import WallTime

@testable import Store

/// An export followed as the source (`source.path = "export.xml"`) and then replaced by a newer export, which holds
/// the old records again and new ones after them: only the new ones are counted. Before, the replaced file was read
/// from its start as a rotated log, and every record of the old export was stored and posted a second time as late.
@Suite(.timeLimit(.minutes(1))) struct ReplacedExportTests {
    let t0 = Fixture.date("2026-11-21T10:00:00+09:00")

    /// An Apple Health export of these step records, after `heartRates` records of another type.
    static func export(_ records: [(String, String, String, Int)], heartRates: Int = 0) -> String {
        let head = """
            <?xml version="1.0" encoding="UTF-8"?>
            <HealthData locale="ja_JP">
             <ExportDate value="2026-11-21 12:00:00 +0900"/>

            """
        let body = records.map { source, start, end, steps in
            " <Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"\(source)\" unit=\"count\" "
                + "creationDate=\"2026-11-21 \(end) +0900\" startDate=\"2026-11-21 \(start) +0900\" "
                + "endDate=\"2026-11-21 \(end) +0900\" value=\"\(steps)\"/>\n"
        }
        let other = (0..<heartRates).map { i in
            " <Record type=\"HKQuantityTypeIdentifierHeartRate\" sourceName=\"Apple Watch\" unit=\"count/min\" "
                + "startDate=\"2026-11-20 0\(i % 10):00:00 +0900\" endDate=\"2026-11-20 0\(i % 10):00:00 +0900\" value=\"70\"/>\n"
        }
        return head + other.joined() + body.joined() + "</HealthData>\n"
    }

    static let old = [
        ("iPhone", "10:00:00", "10:05:00", 300), ("Apple Watch", "10:00:00", "10:05:00", 320),
        ("iPhone", "10:20:00", "10:25:00", 400),
    ]
    static let new = [("iPhone", "11:00:00", "11:05:00", 500), ("iPhone", "11:10:00", "11:12:00", 150)]

    /// The newer export written beside the old one and renamed over it (how a download lands), or written in place
    /// over the old one (`cp`, `unzip -o`): shorter than the position read to, or longer, with more records of
    /// another type before the step records.
    /// Read whole in each fetch, or in slices of 1 KiB (an export larger than `Fetcher.sliceBytes`, 16 MiB: the old
    /// records lie in later slices than the first, and are not counted again there either).
    @Test(arguments: ["renamed", "shorter in place", "longer in place"], [nil, 1024] as [Int64?])
    func aNewerExportOverTheOldOneCountsOnlyWhatIsNew(how: String, sliceBytes: Int64?) async throws {
        let dir = try TempDir()
        let path = try dir.write("export.xml", Self.export(Self.old, heartRates: 40))
        var config = try Fixture.config(dir: dir, source: path)
        config.publishers = [ScriptedPublisher()]
        var fetcher = Fetcher(configuration: config, clock: ContinuousClock())
        if let sliceBytes { fetcher.sliceBytes = sliceBytes }
        let first = await fetcher.fetch(now: Instant(t0.addingTimeInterval(1800)), trigger: [.manual])
        #expect(first.result == .newData, "\(first.line)")
        #expect(first.steps == 720, "the watch's 320 over the phone's 300, then 400")

        let newer = Self.export(Self.old + Self.new, heartRates: how == "longer in place" ? 80 : 0)
        if how == "renamed" {
            let beside = try dir.write("export.xml.part", newer)
            #expect(rename(beside, path) == 0)
        } else {
            let handle = try #require(FileHandle(forWritingAtPath: path))
            try handle.truncate(atOffset: 0)
            try handle.write(contentsOf: Data(newer.utf8))
            try handle.close()
        }
        let second = await fetcher.fetch(now: Instant(t0.addingTimeInterval(7200)), trigger: [.manual])
        #expect(second.result == .newData, "\(second.line)")
        #expect(second.steps == 650, "\(second.line)")
        #expect(second.lateSteps == 0, "nothing of the old export again")
        let store = try StateStore(path: config.statePath)
        let day = TimeWindow(
            start: Instant(t0.addingTimeInterval(-36_000)), end: Instant(t0.addingTimeInterval(50_000)))
        #expect(try store.steps(in: day) == 1370)
    }
}
