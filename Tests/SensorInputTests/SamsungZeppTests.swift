import Foundation
import TestSupport
import Testing
import WallTime

@testable import SensorInput

/// Samsung Health and Zepp Life exports, on fixtures written from the documented schema (`fixtures/formats/
/// make_samsung_zepp.py`).
@Suite(.temporaryFolder) struct SamsungZeppTests {
    static let berlin = TimeZone(identifier: "Europe/Berlin")!
    static let samsungSteps =
        "samsung_health/com.samsung.shealth.tracker.pedometer_step_count.20260607134546.csv"
    static let samsungDaily = "samsung_health/com.samsung.shealth.step_daily_trend.20260607134546.csv"
    static let zeppMinutes = "zepp_life/ACTIVITY_MINUTE/ACTIVITY_MINUTE_1718035200.csv"
    static let zeppDaily = "zepp_life/ACTIVITY/ACTIVITY_1718035200.csv"

    func fixture(_ name: String) -> String {
        SharedData.packageRoot.appendingPathComponent("fixtures/formats/" + name).path
    }

    func read(
        _ path: String, zone: TimeZone = berlin, overlap: OverlapPolicy = .oneSourcePerInterval, strict: Bool = false
    ) throws -> (ReadSummary, [StepReading]) {
        var options = ReadOptions(strict: strict)
        options.timeZone = zone
        options.overlap = overlap
        let (summary, items) = try readAll(path, options: options)
        return (summary, readings(items))
    }

    /// Seconds → ns, to write expected times as the Unix seconds they are.
    func ns(_ seconds: Int64) -> Int64 { seconds * 1_000_000_000 }

    @Test func samsungIntervalsCountPhoneAndWatchOnce() throws {
        let path = fixture(Self.samsungSteps)
        let (s, r) = try read(path)
        #expect(s.format == "samsung-health")
        // 08:00-08:02 both devices: the watch (102) over the phone (78); its copied row once; 08:10 the phone alone.
        #expect(r.map(\.steps) == [52, 50, 30])
        #expect(r.map(\.startNs) == [ns(1_780_732_800), ns(1_780_732_860), ns(1_780_733_400)])
        #expect(r.first?.endNs == ns(1_780_732_860))
        #expect(s.steps == 132)
        #expect(
            s.issues.map(\.description) == [
                "\(path):10: count 'abc' is not a whole number",
                "\(path):11: end_time 2026-06-06 09:07:00.000 is before start_time 2026-06-06 09:08:00.000",
                "\(path):12: count 1099511627776 is beyond the limit of a step count (2^40)",
            ])
        #expect(try read(path, overlap: .sumAll).0.steps == 40 + 52 + 38 + 50 + 30)
        #expect(try read(path, overlap: .preferSources(["Vq3Lp0hN8k"])).0.steps == 40 + 38 + 30)
        #expect(throws: InputError(file: path, line: 10, message: "count 'abc' is not a whole number")) {
            try read(path, strict: true)
        }
    }

    @Test func samsungHeaderIsFoundWithoutMetadataLineOrBOM() throws {
        let p = "com.samsung.health.step_count."
        let text =
            "\(p)start_time,\(p)end_time,\(p)count,\(p)deviceuuid\n"
            + "2026-06-06 08:00:00.000,2026-06-06 08:01:00.000,12,a\n2026-06-06 08:01:00.000,2026-06-06 08:02:00.000,7,a\n"
        let (s, r) = try read(try temporaryFile(Array(text.utf8), name: "steps.csv"))
        #expect(s.format == "samsung-health" && r.map(\.steps) == [12, 7] && s.issues.isEmpty)
        // A header of another kind of Samsung file, read as this one, says what it lacks and where.
        let other = try temporaryFile(
            Array("com.samsung.shealth.tracker.heart_rate,1,2\nheart_rate,start_time\n70,x\n".utf8), name: "hr.csv")
        var options = ReadOptions(format: "samsung-health")
        options.timeZone = Self.berlin
        #expect(throws: InputError.self) { try readAll(other, options: options) }
        do { _ = try readAll(other, options: options) } catch let e as InputError {
            #expect(e.file == other && e.line == 2 && e.message.hasPrefix("no count with start_time"))
        }
    }

    /// Fields in double quotes, as CSV writers quote them: the times are read as the counts are, and a comma inside
    /// quotes does not split a field.
    @Test func quotedFieldsAreRead() throws {
        let p = "com.samsung.health.step_count."
        let steps =
            "\(p)start_time,\(p)end_time,\(p)count,\(p)deviceuuid,\(p)custom\n"
            + "\"2026-06-06 08:00:00.000\",\"2026-06-06 08:01:00.000\",\"12\",\"a\",\"x,y\"\n"
            + " 2026-06-06 08:01:00.000 ,2026-06-06 08:02:00.000,7,a,\n"
        let (s, r) = try read(try temporaryFile(Array(steps.utf8), name: "steps.csv"))
        #expect(s.issues.isEmpty && r.map(\.steps) == [12, 7])
        #expect(r.first?.startNs == ns(1_780_732_800))
        let minutes = "\"date\",\"time\",\"steps\"\n\"2026-03-29\",\"01:58\",\"10\"\n2026-03-29, 01:59 ,12\n"
        let (zs, zr) = try read(try temporaryFile(Array(minutes.utf8), name: "ACTIVITY_MINUTE_1.csv"))
        #expect(zs.format == "zepp-life" && zs.issues.isEmpty)
        #expect(zr.map(\.startNs) == [ns(1_774_745_880), ns(1_774_745_940)])
        let days =
            "\"date\",\"steps\",\"distance\",\"runDistance\",\"calories\"\n"
            + "\"2026-03-28\",\"8123\",\"5900\",\"0\",\"1\"\n"
        let (ds, dr) = try read(try temporaryFile(Array(days.utf8), name: "ACTIVITY_1.csv"))
        #expect(ds.format == "zepp-life-daily" && ds.issues.isEmpty && dr.map(\.steps) == [8123])
    }

    @Test func samsungDailyReadsOnlyMergedRowsLatestPerDay() throws {
        let path = fixture(Self.samsungDaily)
        let (s, r) = try read(path)
        #expect(s.format == "samsung-health-daily")
        // 8000 of 2026-06-05 (not 5000 + 7500 + 8000), 9350 of 2026-06-06 (its later update, not 9100).
        #expect(r.map(\.steps) == [8000, 9350])
        // Local days in Europe/Berlin (+02:00).
        #expect(r.map(\.startNs) == [ns(1_780_610_400), ns(1_780_696_800)])
        #expect(r.map(\.endNs) == [ns(1_780_696_800), ns(1_780_783_200)])
        #expect(s.issues.map(\.description) == ["\(path):9: day_time 'yesterday' is not epoch milliseconds"])
        let utc = try read(path, zone: TimeZone(identifier: "UTC")!).1
        #expect(utc.first?.startNs == ns(1_780_617_600))
        // Single sources only: nothing counted, and said why.
        let single = try temporaryFile(
            Array(
                "com.samsung.shealth.step_daily_trend,1,3\ncount,day_time,source_type,\n5000,1780617600000,0,\n".utf8),
            name: "daily.csv")
        let (summary, none) = try read(single)
        #expect(none.isEmpty)
        #expect(summary.issues.first?.message.contains("none of source_type -2") == true)
        #expect(summary.skippedLines == summary.issues.count)
    }

    @Test func zeppMinutesFollowTheDSTChanges() throws {
        let path = fixture(Self.zeppMinutes)
        let (s, r) = try read(path)
        #expect(s.format == "zepp-life")
        #expect(r.map(\.steps) == [10, 12, 14, 16, 20, 22, 24, 26, 28])
        // 2026-03-29: 01:58 and 01:59 CET, then 03:00 CEST is the next minute (00:58Z, 00:59Z, 01:00Z); 03:01 has 0.
        // 2026-10-25: 02:58, 02:59 CEST (00:58Z), then 02:00, 02:01 again in CET (01:00Z), 03:00 CET (02:00Z).
        let spring: [Int64] = [1_774_745_880, 1_774_745_940, 1_774_746_000, 1_774_746_120]
        let autumn: [Int64] = [1_792_889_880, 1_792_889_940, 1_792_890_000, 1_792_890_060, 1_792_893_600]
        #expect(r.map(\.startNs) == (spring + autumn).map(ns))
        #expect(r.allSatisfy { $0.endNs - $0.startNs == ns(60) })
        // The steps of 00:55Z-01:05Z on the spring day.
        #expect(
            r.reduce(0) {
                $0
                    + $1.steps(
                        from: Instant(nanosecondsSinceEpoch: ns(1_774_745_700)),
                        to: Instant(nanosecondsSinceEpoch: ns(1_774_746_300)))
            } == 52)
        #expect(s.issues.map(\.description) == ["\(path):12: steps 'many' is not a whole number"])
        // In UTC the local times are the instants.
        #expect(try read(path, zone: TimeZone(identifier: "UTC")!).1.first?.startNs == ns(1_774_745_880 + 3_600))
    }

    @Test func zeppDailyGivesLocalDays() throws {
        let path = fixture(Self.zeppDaily)
        let (s, r) = try read(path)
        #expect(s.format == "zepp-life-daily")
        #expect(r.map(\.steps) == [8123, 9001, 7000])
        #expect(r[0].startNs == ns(1_774_652_400) && r[0].endNs == ns(1_774_738_800))
        #expect(r[1].endNs - r[1].startNs == ns(23 * 3_600))  // the spring-forward day
        #expect(s.issues.map(\.description) == ["\(path):4: steps -5 is negative"])
        let bad = try temporaryFile(Array("day,count\n2026-01-01,5\n".utf8), name: "ACTIVITY_1.csv")
        var options = ReadOptions(format: "zepp-life-daily")
        options.timeZone = Self.berlin
        #expect(
            throws: InputError(
                file: bad, line: 1, message: "no date and steps columns in the header (2 columns)")
        ) { try readAll(bad, options: options) }
    }

    @Test func localTimesAroundTheChanges() {
        let z = LocalTime(zone: Self.berlin)
        // 2026-10-25 02:30 happens twice (CEST, then CET); 2026-03-29 02:30 never.
        let repeated: Int64 = 1_792_886_400 + 9_000
        #expect(z.instants(repeated) == [repeated - 7_200, repeated - 3_600])
        #expect(z.instant(repeated) == repeated - 7_200)
        #expect(z.instant(repeated, after: repeated - 7_200) == repeated - 3_600)
        let skipped: Int64 = 1_774_742_400 + 9_000
        #expect(z.instants(skipped).isEmpty)
        #expect(z.instant(skipped) == skipped - 3_600)  // 02:30 CET = 03:30 CEST
        #expect(z.midnight(1_774_742_400) == 1_774_738_800)
        #expect(z.instant(1_774_742_400 + 86_400 * 30) == 1_774_742_400 + 86_400 * 30 - 7_200)
        // Lord Howe moves its clock by 30 minutes at 15:30 UTC: the zone's table has the change to the second.
        let lordHowe = LocalTime(zone: TimeZone(identifier: "Australia/Lord_Howe")!)
        #expect(lordHowe.offset(1_791_041_400 - 1) == 37_800 && lordHowe.offset(1_791_041_400) == 39_600)
    }

    /// The exports' local times read their offsets from the zone's `ZoneOffsets` table (the generic reader's): it
    /// gives Foundation's offset every quarter hour of a year, across changes of standard time too (Moscow's in 2011
    /// and 2014, the day Samoa skipped in 2011), a 30-minute change (Lord Howe) and before 1970 (New York); and a
    /// local time read after the instant before it gives that instant again.
    @Test func localTimesAgreeWithTheZoneAcrossEveryKindOfChange() throws {
        let cases = [
            ("Europe/Moscow", 2011), ("Europe/Moscow", 2014), ("Pacific/Apia", 2011), ("Australia/Lord_Howe", 2026),
            ("America/New_York", 1969),
        ]
        for (identifier, year) in cases {
            let zone = try #require(TimeZone(identifier: identifier))
            let local = LocalTime(zone: zone)
            let start = try #require(TimeParsing.parseISO8601("\(year)-01-01T00:00:00Z")) / 1_000_000_000
            var wrongOffsets = 0
            var wrongInstants = 0
            for t in stride(from: start, to: start + 365 * 86_400, by: 900) {
                let offset = Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(t))))
                if local.offset(t) != offset { wrongOffsets += 1 }
                if local.instant(t + offset, after: t - 1) != t { wrongInstants += 1 }
            }
            #expect(wrongOffsets == 0, "\(identifier) \(year)")
            #expect(wrongInstants == 0, "\(identifier) \(year)")
        }
    }

    @Test(arguments: [
        ("12", "ok 12"), ("12.0", "ok 12"), (" 7 ", "ok 7"), ("", "no steps"),
        ("1.5", "steps '1.5' is not a whole number"),
        ("-1", "steps -1 is negative"), ("1099511627775", "ok 1099511627775"),
        ("99999999999999999999", "steps 99999999999999999999 is beyond the limit of a step count (2^40)"),
        ("nan", "steps 'nan' is not a whole number"),
    ])
    func stepCountCells(_ cell: String, _ expected: String) {
        switch Fields.stepCount(Substring(cell), column: "steps") {
        case .success(let n): #expect("ok \(n)" == expected)
        case .failure(let p): #expect(p.message == expected)
        }
    }

    @Test func detectionNeedsTheContentNotTheName() throws {
        func format(_ text: String, name: String) throws -> String? {
            InputFormats.detect(try InputFormats.sniff(path: try temporaryFile(Array(text.utf8), name: name))).map(
                \.name)
        }
        #expect(try format("date,time,steps\n2026-01-01,00:00,3\n", name: "x.csv") == "zepp-life")
        #expect(try format("date,steps,distance,runDistance,calories\n", name: "x.csv") == "zepp-life-daily")
        // The file name alone does not make a Samsung file.
        #expect(
            try format("t_ms,x,y,z\n0,0,0,9.8\n", name: "com.samsung.shealth.step_daily_trend.1.csv") == "generic-csv")
    }
}
