import Foundation
import TestSupport
import Testing

@testable import SensorInput

@Suite(.temporaryFolder) struct GarminFITTests {
    /// 2026-11-20 00:00 local at UTC−6 (06:00Z).
    static let midnight: Int64 = 1_795_413_600
    /// Walking and running running totals over two local days, crossing local midnight; cycling (strokes) ignored.
    static let points: [(Int64, Int64, Int64)] = [
        (60, 6, 100), (120, 1, 50), (3600, 6, 300), (18_000, 6, 1000), (43_200, 6, 1000), (85_800, 1, 250),
        (86_400 + 600, 6, 40), (86_400 + 700, 2, 5000), (86_400 + 1200, 1, 10),
    ]

    func read(_ path: String, options: ReadOptions = ReadOptions()) throws -> (ReadSummary, [StepReading]) {
        var readings: [StepReading] = []
        let s = try AnyInput.read(path: path, options: options) { if case .reading(let r) = $0 { readings.append(r) } }
        return (s, readings)
    }

    @Test func builtMonitoringFileGivesTheStepsItWasBuiltWith() throws {
        let dir = try TempDir()
        let bytes = FITBuilder.monitoring(midnightUTC: Self.midnight, offset: -21_600, points: Self.points)
        let path = try dir.write("monitor.fit", Data(bytes))
        let (s, readings) = try read(path)
        #expect(s.format == "garmin-fit")
        // Day 1: walking 1000 + running 250; day 2 (totals reset at local midnight): walking 40 + running 10.
        // Taking the halved `cycles` of python-fitparse would give 650; summing cumulative values far more.
        #expect(s.steps == 1300)
        let day2Start = (Self.midnight + 86_400) * 1_000_000_000
        #expect(readings.filter { $0.endNs > day2Start }.reduce(0) { $0 + $1.steps } == 50)
        #expect(readings.filter { $0.endNs <= day2Start }.reduce(0) { $0 + $1.steps } == 1250)
        // timestamp_16 rebuilt: the last reading ends 20 min after the second midnight.
        #expect(readings.last?.endNs == (Self.midnight + 86_400 + 1200) * 1_000_000_000)
        #expect(s.skippedLines == 0)
    }

    /// A vívofit day as NOTES.md describes it: 79 step records whose running totals end at walking 3,142 and
    /// running 31 (python-fitparse and Garmin Connect: 3,173 steps), the day's summary at local midnight.
    static func vivofitDay() -> [(Int64, Int64, Int64)] {
        var records: [(Int64, Int64, Int64)] = []
        var walks = 0
        var runs = 0
        for k in 0..<79 {
            let seconds = Int64(25_200 + 600 * k)  // from 07:00 local, every 10 min
            if k % 9 == 4 {
                runs += 1
                records.append((seconds, 1, Int64(31 * runs / 9)))
            } else {
                walks += 1
                records.append((seconds, 6, Int64(3142 * walks / 70)))
            }
        }
        return records
    }

    @Test(arguments: [false, true])
    func aMonitoringDayCountsItsStepsOnceWithTheMidnightSummary(summaryTotals: Bool) throws {
        let dir = try TempDir()
        let day = Self.vivofitDay()
        try dir.write(
            "Monitor/day1.fit",
            Data(
                FITBuilder.monitoringDay(
                    midnightUTC: Self.midnight, offset: -21_600, records: day, summaryTotals: summaryTotals)))
        let (s, readings) = try read(dir.path("Monitor/day1.fit"))
        // The summary's totals at 06:00Z close that day; taken as the next day's they counted 6,346.
        #expect(s.steps == 3173)
        #expect(readings.allSatisfy { $0.endNs <= (Self.midnight + 86_400) * 1_000_000_000 })
        // The next day, its totals reset at midnight: its own steps only, the summary not counted again.
        try dir.write(
            "Monitor/day2.fit",
            Data(
                FITBuilder.monitoringDay(
                    midnightUTC: Self.midnight + 86_400, offset: -21_600,
                    records: [(30_000, 6, 120), (31_000, 1, 40), (32_000, 6, 300)], summaryTotals: summaryTotals)))
        let (both, all) = try read(dir.path("Monitor"))
        #expect(both.steps == 3173 + 340)
        let secondDay = all.filter { $0.endNs > (Self.midnight + 86_400) * 1_000_000_000 }
        #expect(secondDay.reduce(0) { $0 + $1.steps } == 340)
    }

    @Test func realActivityFilesGiveTwiceTheSessionStrides() throws {
        let walk = formatFixture("garmin-fenix-5-walk.fit")
        let run = formatFixture("garmin_fit/garmin-fenix-5-run.fit")
        let (w, walkReadings) = try read(walk)
        // 41 strides: not 41 (strides taken for steps) and not ≈ 93 (integrated cadence instead of the total).
        #expect(w.steps == 82)
        #expect(walkReadings.count > 10)  // spread over the records by cadence
        #expect(try read(run).0.steps == 156)
    }

    @Test func olderActivityWithoutTotalIntegratesCadence() throws {
        var b = FITBuilder()
        b.define(local: 0, global: 0, fields: [.init(number: 0, size: 1, type: FITBuilder.enumType)])
        b.message(local: 0, [4])
        b.define(
            local: 1, global: 20,
            fields: [
                .init(number: 253, size: 4, type: FITBuilder.u32),
                .init(number: 4, size: 1, type: FITBuilder.u8),
                .init(number: 53, size: 1, type: FITBuilder.u8),
            ])
        let t0 = FITBuilder.fit(1_700_000_000)
        b.message(local: 1, [t0, 60, 0])
        // 60.5 strides/min (fractional 64/128) for 20 × 3 s, through compressed timestamp headers (+3 s each).
        for k in 1...20 {
            b.message(local: 1, [t0 + Int64(3 * k), 60, 64], compressedOffset: UInt8((t0 + Int64(3 * k)) & 0x1F))
        }
        let dir = try TempDir()
        let path = try dir.write("old.fit", Data(b.file()))
        // 60 s at 60.5 strides/min = 60.5 strides = 121 steps.
        #expect(try read(path).0.steps == 121)
        // The same records in a cycling session: a bike's cadence is pedal turns, not strides.
        b.define(
            local: 2, global: 18,
            fields: [
                .init(number: 253, size: 4, type: FITBuilder.u32),
                .init(number: 5, size: 1, type: FITBuilder.enumType),
            ])
        b.message(local: 2, [t0 + 60, 2])
        let bike = try dir.write("bike.fit", Data(b.file()))
        #expect(try read(bike).0.steps == 0)
    }

    @Test func folderCountsMonitoringAndDoesNotAddTheDaysActivities() throws {
        let walk = formatFixture("garmin-fenix-5-walk.fit")
        let dir = try TempDir()
        try dir.write("GARMIN/Activity/walk.fit", try Data(contentsOf: URL(fileURLWithPath: walk)))
        #expect(try read(dir.root).0.steps == 82)
        // 2017-06-11 local (UTC−7): monitoring covers the walk's day, so its steps are already in the totals.
        let midnight: Int64 = 1_497_164_400
        try dir.write(
            "GARMIN/Monitor/day.fit",
            Data(
                FITBuilder.monitoring(
                    midnightUTC: midnight, offset: -25_200,
                    points: [(3600, 6, 500), (60_000, 6, 900)])))
        #expect(try read(dir.root).0.steps == 900)
    }

    @Test func followModeDoesNotCountAnActivityAgainWhenItsDaysMonitoringArrives() throws {
        let walk = formatFixture("garmin-fenix-5-walk.fit")
        let dir = try TempDir()
        try dir.write("GARMIN/Activity/walk.fit", try Data(contentsOf: URL(fileURLWithPath: walk)))
        var (s, cursor) = try SourceReader.readNew(path: dir.root, cursor: nil) { _ in }
        #expect(s.steps == 82)
        // The day's monitoring file syncs later: its totals (900) hold the walk's 82 steps.
        try dir.write(
            "GARMIN/Monitor/day.fit",
            Data(
                FITBuilder.monitoring(
                    midnightUTC: 1_497_164_400, offset: -25_200,
                    points: [(3600, 6, 500), (60_000, 6, 900)])))
        (s, cursor) = try SourceReader.readNew(path: dir.root, cursor: cursor) { _ in }
        #expect(s.steps == 900 - 82)
    }

    @Test func overlappingMonitoringFilesAreMergedAndFollowModeDeliversOnlyNewSteps() throws {
        let dir = try TempDir()
        let first = Array(Self.points.prefix(4))
        try dir.write(
            "Monitor/a.fit", Data(FITBuilder.monitoring(midnightUTC: Self.midnight, offset: -21_600, points: first)))
        var items: [StepReading] = []
        var (s, cursor) = try SourceReader.readNew(path: dir.root, cursor: nil) {
            if case .reading(let r) = $0 { items.append(r) }
        }
        #expect(s.steps == 1050)
        // A re-synced file repeating the same points plus the rest: only the new steps come.
        try dir.write(
            "Monitor/b.fit",
            Data(FITBuilder.monitoring(midnightUTC: Self.midnight, offset: -21_600, points: Self.points)))
        (s, cursor) = try SourceReader.readNew(path: dir.root, cursor: cursor) {
            if case .reading(let r) = $0 { items.append(r) }
        }
        #expect(s.steps == 250)
        (s, cursor) = try SourceReader.readNew(path: dir.root, cursor: cursor) {
            if case .reading(let r) = $0 { items.append(r) }
        }
        #expect(s.steps == 0)
        #expect(items.reduce(0) { $0 + $1.steps } == 1300)
        #expect(cursor?.format == "garmin-fit")
    }

    @Test func chainedFilesAreBothRead() throws {
        let a = FITBuilder.monitoring(midnightUTC: Self.midnight, offset: -21_600, points: [(60, 6, 100)])
        let b = FITBuilder.monitoring(midnightUTC: Self.midnight + 86_400, offset: -21_600, points: [(60, 6, 70)])
        let dir = try TempDir()
        let path = try dir.write("chained.fit", Data(a + b))
        #expect(try read(path).0.steps == 170)
    }

    @Test func truncatedFileKeepsWhatCameBeforeAndSaysWhere() throws {
        let bytes = FITBuilder.monitoring(midnightUTC: Self.midnight, offset: -21_600, points: Self.points)
        let dir = try TempDir()
        let path = try dir.write("cut.fit", Data(bytes.prefix(bytes.count - 20)))
        let (s, _) = try read(path)
        #expect(s.steps > 0 && s.steps < 1300)
        #expect(s.skippedLines == 1)
        let message = s.issues.first?.description ?? ""
        #expect(message.contains("cut.fit: message "), "\(message)")
        #expect(message.contains("at byte"))
        #expect(throws: InputError.self) { try read(path, options: ReadOptions(strict: true)) }
    }

    @Test func corruptFilesAreReportedWithTheirPlace() throws {
        var bytes = FITBuilder.monitoring(midnightUTC: Self.midnight, offset: -21_600, points: Self.points)
        bytes[bytes.count - 5] ^= 0x01  // one bit of the last cycles value: the CRC no longer matches
        let dir = try TempDir()
        let (s, _) = try read(try dir.write("crc.fit", Data(bytes)))
        #expect(s.issues.first?.message.contains("CRC mismatch") == true)
        // A data message of a local type no definition announced.
        var b = FITBuilder()
        b.define(local: 0, global: 0, fields: [.init(number: 0, size: 1, type: FITBuilder.enumType)])
        b.message(local: 0, [32])
        b.data.append(0x05)
        let (u, _) = try read(try dir.write("undefined.fit", Data(b.file())))
        #expect(
            u.issues.first?.message
                == "message 2 at byte 25: data message of local type 5, which no definition announced; kept the 1 messages before it"
        )
        // Wrong type in a FIT folder, an empty file: named, the rest still read.
        try dir.write("folder/empty.fit", Data())
        try dir.write("folder/notes.FIT", Data("hello".utf8))
        try dir.write(
            "folder/ok.fit", Data(FITBuilder.monitoring(midnightUTC: Self.midnight, offset: 0, points: [(60, 6, 7)])))
        let (f, _) = try read(dir.path("folder"))
        #expect(f.steps == 7)
        #expect(f.issues.map(\.message) == ["file is empty", "not a FIT file (no '.FIT' signature at byte 8)"])
    }

    @Test func containerDecodesBothByteOrdersAndSkipsDeveloperFields() {
        let bytes = FITBuilder.monitoring(midnightUTC: Self.midnight, offset: -21_600, points: Self.points)
        let (messages, damages) = FITContainer.decode(bytes)
        #expect(damages.isEmpty)
        let running = messages.filter { $0.global == 55 && $0.fields[5] == 1 }
        #expect(running.map { $0.fields[3] } == [50, 250, 10])  // big-endian definition with a developer field
    }
}

extension GarminFITTests {
    /// NOTES.md: 0xFF (u8), 0xFFFF (u16), 0xFFFFFFFF (u32) mean "no value". A monitoring `cycles` of 0xFFFFFFFF is
    /// not four billion steps; a record's cadence of 0xFF is not 255 strides/min; a session's `total_cycles` of
    /// 0xFFFFFFFF leaves the records' cadence to count. A multisport file counts its walking session, not its ride.
    @Test func invalidValuesAreNoValueAndMultisportCountsOnlyFootSessions() throws {
        let dir = try TempDir()
        var points = Self.points
        points.insert((30_000, 6, 0xFFFF_FFFF), at: 4)
        let monitor = try dir.write(
            "monitor.fit", Data(FITBuilder.monitoring(midnightUTC: Self.midnight, offset: -21_600, points: points)))
        #expect(try read(monitor).0.steps == 1300)

        var b = FITBuilder()
        b.define(local: 0, global: 0, fields: [.init(number: 0, size: 1, type: FITBuilder.enumType)])
        b.message(local: 0, [4])
        b.define(
            local: 1, global: 20,
            fields: [.init(number: 253, size: 4, type: FITBuilder.u32), .init(number: 4, size: 1, type: FITBuilder.u8)])
        let t0 = FITBuilder.fit(1_700_000_000)
        for k in 0...20 {  // walking, 60 strides/min for 60 s; one record's cadence invalid
            b.message(local: 1, [t0 + Int64(3 * k), k == 10 ? 0xFF : 60])
        }
        for k in 0...20 {  // the ride: 90 rpm, pedal turns
            b.message(local: 1, [t0 + 100 + Int64(3 * k), 90])
        }
        b.define(
            local: 2, global: 18,
            fields: [
                .init(number: 253, size: 4, type: FITBuilder.u32), .init(number: 2, size: 4, type: FITBuilder.u32),
                .init(number: 5, size: 1, type: FITBuilder.enumType), .init(number: 10, size: 4, type: FITBuilder.u32),
            ])
        b.message(local: 2, [t0 + 60, t0, 11, 0xFFFF_FFFF])  // walking, total_cycles invalid
        b.message(local: 2, [t0 + 160, t0 + 100, 2, 135])  // cycling: 135 pedal turns, not strides
        let multisport = try dir.write("multisport.fit", Data(b.file()))
        let (s, readings) = try read(multisport)
        #expect(s.steps == 120)
        #expect(readings.allSatisfy { $0.endNs <= (1_700_000_000 + 60) * 1_000_000_000 })
    }
}

extension GarminFITTests {
    /// NOTES.md: "when new < previous the counter was reset … delta = new". A running total that drops within the
    /// local day (the watch restarted) counts from 0 again: 300 + 80, not 300 + 30 (or a negative step).
    @Test func aTotalThatDropsWithinTheDayIsAReset() throws {
        let dir = try TempDir()
        let points: [(Int64, Int64, Int64)] = [(3600, 6, 100), (7200, 6, 300), (10_800, 6, 50), (14_400, 6, 80)]
        let path = try dir.write(
            "monitor.fit", Data(FITBuilder.monitoring(midnightUTC: Self.midnight, offset: -21_600, points: points)))
        let (s, readings) = try read(path)
        #expect(s.steps == 380)
        #expect(readings.map(\.steps) == [100, 200, 50, 30])
    }
}

extension GarminFITTests {
    /// A ride (fixtures/formats/garmin_ride_no_steps.fit: session sport 2, 435 pedal turns in `total_cycles`) is a
    /// valid file with 0 steps: no reading, a note naming the sport, and nothing skipped.
    @Test func aRideIsReadAsAValidFileWithoutSteps() throws {
        let ride = SharedData.packageRoot.appendingPathComponent("fixtures/formats/garmin_ride_no_steps.fit").path
        let (s, readings) = try read(ride)
        #expect(s.format == "garmin-fit" && s.kind == .steps)
        #expect(readings.isEmpty && s.steps == 0 && s.skippedLines == 0)
        #expect(s.validWithoutSteps)
        #expect(s.notes == ["a cycling activity holds no steps (steps are counted for running, walking and hiking)"])
    }
}
