import Foundation
import SensorInput
import StepDetection
import Store
import TestSupport
import Testing
import WallTime

/// Reads `path` completely, returning the summary and every item. Local times are read in UTC unless `options`
/// names a zone: what a test expects does not depend on the machine's zone. Export databases are opened by Store, as
/// the commands and the agent have them opened.
func readAll(_ path: String, options: ReadOptions = ReadOptions()) throws -> (ReadSummary, [InputItem]) {
    var items: [InputItem] = []
    var options = options
    options.timeZone = options.timeZone ?? TimeZone(identifier: "UTC")
    options.exportDatabases = options.exportDatabases ?? SQLiteExports()
    let summary = try AnyInput.read(path: path, options: options) { items.append($0) }
    return (summary, items)
}

func samples(_ items: [InputItem]) -> [AccelerationSample] {
    items.compactMap { if case .sample(let s) = $0 { return s } else { return nil } }
}

func readings(_ items: [InputItem]) -> [StepReading] {
    items.compactMap { if case .reading(let r) = $0 { return r } else { return nil } }
}

/// A file in `../shared/data/formats` (for the `…SharedDataTests` suites); throws one clear error (the test fails on
/// that line) when it is missing.
func shared(_ relative: String) throws -> String { try SharedData.require("data/formats/\(relative)") }
/// A file of the derived 60 s walk, in every format (`../shared`).
func walk(_ file: String) throws -> String { try shared("derived_walk_60s/\(file)") }
/// A committed file in `fixtures/formats`.
func formatFixture(_ relative: String) -> String { SharedData.fixture("formats/\(relative)") }

/// The committed 60 s walk (`fixtures/demo_walk_50hz.csv`: 3000 samples at 50 Hz, 109 true steps, 113 counted) in
/// `file`'s layout, written in the test's temporary folder: `sensorlogger_TotalAcceleration.csv` (ns since the
/// epoch from 2017-09-20T09:00:00Z, `z,y,x`) or `phyphox_Raw Data.csv` (s from 0, with |a|).
func derivedWalk(_ file: String) throws -> String {
    let rows = try SharedData.numbers(atPath: SharedData.fixture("demo_walk_50hz.csv"))
    var text: String
    if file.hasPrefix("sensorlogger") {
        text = "time,seconds_elapsed,z,y,x\n"
        for r in rows {
            let ns = 1_505_898_000_000_000_000 + Int64((r[0] * 1e6).rounded())
            text += "\(ns),\(r[0] / 1000),\(r[3]),\(r[2]),\(r[1])\n"
        }
    } else {
        text =
            "\"Time (s)\",\"Acceleration x (m/s^2)\",\"Acceleration y (m/s^2)\",\"Acceleration z (m/s^2)\",\"Absolute acceleration (m/s^2)\"\n"
        for r in rows {
            text += "\(r[0] / 1000),\(r[1]),\(r[2]),\(r[3]),\((r[1] * r[1] + r[2] * r[2] + r[3] * r[3]).squareRoot())\n"
        }
    }
    return try temporaryFile(Array(text.utf8), name: file)
}
let start2017 = TimeParsing.parseISO8601("2017-09-20T09:00:00Z")!

/// The first 40-50 lines of the derived walk in each layout (`fixtures/formats`): detected without flags, with the
/// unit, time kind and start each layout has.
@Suite(.temporaryFolder) struct FormatSliceTests {
    @Test(arguments: [
        ("generic_t_ms.csv", "generic-csv", false), ("phyphox_Raw Data.csv", "phyphox", false),
        ("sensorlogger_TotalAcceleration.csv", "sensor-logger", true),
        ("physicstoolbox_gforce.csv", "physics-toolbox", false), ("axivity_omconvert.csv", "axivity", true),
        ("actigraph_RAW.csv", "actigraph-raw", true), ("wisdm_ar_v1.1_raw.txt", "wisdm", true),
        ("uci_hapt_acc_exp01_user01.txt", "uci-raw", false),
    ])
    func eachLayoutIsDetectedWithoutFlags(_ file: String, _ format: String, _ absolute: Bool) throws {
        let path = formatFixture(file)
        #expect(InputFormats.detect(try InputFormats.sniff(path: path))?.name == format)
        let (summary, items) = try readAll(path, options: ReadOptions(rateHz: format == "uci-raw" ? 50 : nil))
        #expect(summary.format == format)
        #expect(summary.kind == .acceleration)
        #expect(summary.skippedLines == 0)
        #expect(summary.samples > 30 && summary.samples == samples(items).count)
        #expect(summary.absoluteTime == absolute)
        if absolute { #expect(summary.first?.nanosecondsSinceEpoch == start2017) }
    }

    @Test func uciNeedsARate() throws {
        let error = try #require(throws: InputError.self) {
            try readAll(formatFixture("uci_hapt_acc_exp01_user01.txt"))
        }
        #expect(error.message.contains("--rate"))
    }

    @Test func oxfordRawLayoutWithCRLF() throws {
        let (summary, items) = try readAll(formatFixture("oxford_accelerometer.csv"))
        #expect(summary.format == "oxford")
        #expect(summary.samples == 40)
        #expect(summary.absoluteTime == false)
        #expect(
            samples(items)[0]
                == AccelerationSample(
                    time: Instant(nanosecondsSinceEpoch: 263_239_144_953_734), x: 1.9400482, y: 5.161789, z: 10.162003))
        let anchored = try readAll(
            formatFixture("oxford_accelerometer.csv"),
            options: ReadOptions(start: Instant(nanosecondsSinceEpoch: start2017))
        )
        .0
        #expect(anchored.first?.nanosecondsSinceEpoch == start2017)
        #expect(anchored.absoluteTime)
    }

    @Test func formatOptionOverridesDetection() throws {
        let path = formatFixture("sensorlogger_TotalAcceleration.csv")
        #expect(try readAll(path, options: ReadOptions(format: "generic-csv")).0.format == "generic-csv")
        #expect(throws: InputError.self) { try readAll(path, options: ReadOptions(format: "no-such-format")) }
        #expect(throws: InputError.self) {
            try AccelerationInput.read(path: formatFixture("steps-1995-06-23_Fitbit.json")) { _ in }
        }
    }
}

/// The whole 60 s walk (`../shared/data/formats/derived_walk_60s`, 3.6 MB) in every layout gives the same signal.
@Suite(.temporaryFolder, .sharedData) struct DerivedWalkLayoutSharedDataTests {
    struct Expectation: Sendable, CustomStringConvertible {
        var file: String
        var format: String
        var samples: Int
        var unit: AccelerationUnit
        var rate: Double
        var absolute: Bool
        var description: String { file }
    }

    static let layouts: [Expectation] = [
        .init(
            file: "generic_t_ms.csv", format: "generic-csv", samples: 13_347, unit: .metersPerSecondSquared,
            rate: 222.4, absolute: false),
        .init(
            file: "phyphox_Raw Data.csv", format: "phyphox", samples: 13_347, unit: .metersPerSecondSquared,
            rate: 222.4, absolute: false),
        .init(
            file: "sensorlogger_TotalAcceleration.csv", format: "sensor-logger", samples: 13_347,
            unit: .metersPerSecondSquared, rate: 222.4, absolute: true),
        .init(
            file: "physicstoolbox_gforce.csv", format: "physics-toolbox", samples: 13_347, unit: .g, rate: 222.4,
            absolute: false),
        .init(file: "axivity_omconvert.csv", format: "axivity", samples: 13_347, unit: .g, rate: 222.4, absolute: true),
        .init(file: "actigraph_RAW.csv", format: "actigraph-raw", samples: 6000, unit: .g, rate: 100, absolute: true),
        .init(
            file: "wisdm_ar_v1.1_raw.txt", format: "wisdm", samples: 1200, unit: .metersPerSecondSquared, rate: 20,
            absolute: true),
        .init(
            file: "uci_hapt_acc_exp01_user01.txt", format: "uci-raw", samples: 3000, unit: .g, rate: 50, absolute: false
        ),
    ]

    /// Mean and standard deviation of |a| (m/s²) of the reference layout, `generic_t_ms.csv`.
    static func stats(_ s: [AccelerationSample]) -> (mean: Double, sd: Double) {
        let m = s.map(\.magnitude)
        let mean = m.reduce(0, +) / Double(m.count)
        return (mean, (m.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(m.count)).squareRoot())
    }

    @Test(arguments: layouts)
    func detectedWithoutFlagsWithUnitsRateAndMagnitudes(_ e: Expectation) throws {
        let path = try walk("\(e.file)")
        let sniff = try InputFormats.sniff(path: path)
        #expect(InputFormats.detect(sniff)?.name == e.format)
        let options = ReadOptions(rateHz: e.format == "uci-raw" ? 50 : nil)
        let (summary, items) = try readAll(path, options: options)
        #expect(summary.format == e.format)
        #expect(summary.kind == .acceleration)
        #expect(summary.samples == e.samples)
        #expect(summary.skippedLines == 0)
        #expect(summary.unit == e.unit)
        #expect(abs((summary.rateHz ?? 0) - e.rate) < 0.5)
        #expect(abs(summary.durationSeconds - 60) < 0.1)
        #expect(summary.absoluteTime == e.absolute)
        if e.absolute { #expect(summary.first?.nanosecondsSinceEpoch == start2017) }
        let got = samples(items)
        let reference = Self.stats(samples(try readAll(try walk("generic_t_ms.csv")).1))
        let s = Self.stats(got)
        // Same signal: same mean |a| (gravity) and spread, whatever the layout, unit or resampling.
        #expect(abs(s.mean - reference.mean) < 0.05, "mean |a| \(s.mean) vs \(reference.mean)")
        #expect(abs(s.sd - reference.sd) < 0.15, "sd \(s.sd) vs \(reference.sd)")
        #expect(abs(reference.mean - standardGravity) < 1.5)  // walking, phone in a purse: gravity plus motion
    }

    @Test func sameSamplesInEveryFullRateLayout() throws {
        let reference = samples(try readAll(try walk("generic_t_ms.csv")).1)
        for file in [
            "phyphox_Raw Data.csv", "sensorlogger_TotalAcceleration.csv", "physicstoolbox_gforce.csv",
            "axivity_omconvert.csv",
        ] {
            let got = samples(try readAll(try walk("\(file)")).1)
            #expect(got.count == reference.count)
            let worst = zip(got, reference).map { abs($0.magnitude - $1.magnitude) }.max() ?? .infinity
            #expect(worst < 0.02, "\(file): worst |a| difference \(worst)")  // 3-decimal g rounding at most
            // Sensor Logger is z,y,x: its x must be the reference x, not z.
            if file.hasPrefix("sensorlogger") { #expect(abs(got[0].x - reference[0].x) < 1e-9) }
        }
    }
}

@Suite(.temporaryFolder) struct StepReadingFormatTests {
    /// Totals checked by hand: `awk -F, 'NR>10{s+=$4}'` over the ActiGraph files (NR>11 and $5 for the one with a
    /// column row), the ten StepCount `value`s of the Apple export (329+283+426+61+10+200+390+320+216+282), and the
    /// 34 Fitbit minute values summed with Python's json module.
    @Test(arguments: [
        ("actigraph/ActiGraph13.csv", "actigraph-epoch", 990, 1118),
        ("actigraph/ActiGraph61.csv", "actigraph-epoch", 990, 253),
        ("actigraph/ActiGraph13_timestamps_headers.csv", "actigraph-epoch", 1000, 442),
        ("apple_health_export.xml", "apple-health", 10, 2517),
        ("steps-1995-06-23_Fitbit.json", "fitbit-steps", 34, 607),
    ])
    func realSamplesGiveHandCheckedTotals(_ file: String, _ format: String, _ count: Int, _ steps: Int) throws {
        let (summary, items) = try readAll(formatFixture(file))
        #expect(summary.format == format)
        #expect(summary.kind == .steps)
        #expect(summary.readings == count)
        #expect(summary.steps == steps)
        #expect(readings(items).reduce(0) { $0 + $1.steps } == steps)
        #expect(summary.skippedLines == 0)
    }

    @Test func actiGraphEpochTimes() throws {
        let r = readings(try readAll(formatFixture("actigraph/ActiGraph13.csv")).1)
        // Start Time 09:00:00, Start Date 8/26/2013 (M/d/yyyy), 15 s epochs.
        #expect(r[0].start.nanosecondsSinceEpoch == TimeParsing.parseISO8601("2013-08-26T09:00:00Z"))
        #expect(r[1].start.nanosecondsSinceEpoch - r[0].start.nanosecondsSinceEpoch == 15_000_000_000)
        #expect(r[0].end.nanosecondsSinceEpoch - r[0].start.nanosecondsSinceEpoch == 15_000_000_000)
        let stamped = readings(try readAll(formatFixture("actigraph/ActiGraph13_timestamps_headers.csv")).1)
        #expect(
            stamped[2]
                == StepReading(
                    start: Instant(nanosecondsSinceEpoch: TimeParsing.parseISO8601("2017-09-12T15:00:02Z")!),
                    end: Instant(nanosecondsSinceEpoch: TimeParsing.parseISO8601("2017-09-12T15:00:03Z")!), steps: 1))
    }

    @Test func fitbitMinutesAreUTCWithTwoDigitYears() throws {
        let r = readings(try readAll(formatFixture("steps-1995-06-23_Fitbit.json")).1)
        #expect(r[0].start.nanosecondsSinceEpoch == TimeParsing.parseISO8601("1995-06-24T16:00:00Z"))
        #expect(r[0].end.nanosecondsSinceEpoch - r[0].start.nanosecondsSinceEpoch == 60_000_000_000)
    }

    /// Fitbit keeps one value per minute: a minute written twice (files joined, a re-export appended) counts once,
    /// the larger value, and the other minutes are all kept.
    @Test func fitbitMinuteWrittenTwiceCountsOnce() throws {
        func entry(_ minute: Int, _ value: Int) -> String {
            "{\"dateTime\" : \"10/25/26 01:\(minute < 10 ? "0" : "")\(minute):00\", \"value\" : \"\(value)\"}"
        }
        let first = (0..<30).map { entry($0, 100) }
        let again = (10..<20).map { entry($0, $0 == 15 ? 130 : 100) } + [entry(5, 40)]
        let path = try temporaryFile(Array(("[" + (first + again).joined(separator: ",\n") + "]").utf8), name: "s.json")
        let r = readings(try readAll(path).1)
        #expect(r.reduce(0) { $0 + $1.steps } == 3030)
        #expect(Set(r.map(\.start.nanosecondsSinceEpoch)).count == 30)
    }

    static let healthHeader = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE HealthData [
        ]>
        <HealthData locale="en_GB">
         <Record type="HKQuantityTypeIdentifierHeight" sourceName="Health" unit="cm" startDate="2016-01-01 10:00:00 +0100" endDate="2016-01-01 10:00:00 +0100" value="180"/>

        """

    static func record(_ source: String, _ start: String, _ end: String, _ value: Int) -> String {
        " <Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"\(source)\" unit=\"count\" creationDate=\"2016-01-01 12:00:00 +0100\" startDate=\"2016-01-01 \(start) +0100\" endDate=\"2016-01-01 \(end) +0100\" value=\"\(value)\">\n  <MetadataEntry key=\"x\" value=\"y\"/>\n </Record>\n"
    }

    @Test func appleHealthOverlappingSourcesAreNotDoubleCounted() throws {
        var xml = Self.healthHeader
        // Phone and watch saw the same walk; a later walk only the phone recorded.
        xml += Self.record("Nick&#8217;s iPhone", "10:00:00", "10:10:00", 1000)
        xml += Self.record("Apple Watch", "10:00:00", "10:05:00", 600)
        xml += Self.record("Apple Watch", "10:05:00", "10:10:00", 520)
        xml += Self.record("Nick&#8217;s iPhone", "11:00:00", "11:05:00", 300)
        xml += "</HealthData>\n"
        let path = try temporaryFile(Array(xml.utf8), name: "export.xml")
        let (summary, items) = try readAll(path)
        #expect(summary.format == "apple-health")
        #expect(summary.steps == 1120 + 300)  // the watch has more steps in the overlap; phone alone later
        #expect(readings(items).map(\.steps) == [600, 520, 300])
        var sum = ReadOptions()
        sum.overlap = .sumAll
        #expect(try readAll(path, options: sum).0.steps == 2420)
        var prefer = ReadOptions()
        prefer.overlap = .preferSources(["Nick’s iPhone"])
        #expect(try readAll(path, options: prefer).0.steps == 1300)
    }

    @Test func stepLogDeltasTotalsResetsAndDuplicates() throws {
        let path = Self.fixture("steplog.jsonl")
        let (summary, items) = try readAll(path)
        #expect(summary.format == "steplog")
        // baseline 1200 -> +60 -> steps 40 -> reset to 25 -> new boot baseline 10 -> +60 -> duplicate seq -> +5.
        #expect(readings(items).map(\.steps) == [0, 60, 40, 25, 0, 60, 5])
        #expect(summary.steps == 190)
        #expect(summary.skippedLines == 1)
        #expect(summary.issues.first?.line == 7)
        #expect(summary.issues.first?.message.contains("duplicate seq") == true)
        // The +09:00 line is 10:30 UTC, and each reading spans from the stream's previous line.
        #expect(readings(items).last?.end.nanosecondsSinceEpoch == TimeParsing.parseISO8601("2026-11-21T10:30:00Z"))
        #expect(readings(items)[1].start.nanosecondsSinceEpoch == TimeParsing.parseISO8601("2026-11-21T10:00:00Z"))
    }

    @Test func stepLogRefusesBadLinesButNeverCountsNegative() throws {
        let text = """
            {"ts":"2026-11-21T10:00:00Z","steps":-5}
            {"ts":"2026-11-21T10:00:00","steps":5}
            {"ts":"2026-11-21T10:01:00Z","steps":7}
            not json
            {"ts":"2026-11-21T10:02:00Z","total":3}
            {"ts":"2026-11-21T10:03:00Z","total":1}

            """
        let path = try temporaryFile(Array(text.utf8), name: "steps.jsonl")
        let (summary, items) = try readAll(path)
        #expect(readings(items).map(\.steps) == [7, 0, 1])
        #expect(summary.skippedLines == 3)
        #expect(summary.issues.map(\.line) == [1, 2, 4])
        #expect(throws: InputError.self) { try readAll(path, options: ReadOptions(strict: true)) }
    }

    @Test func stepLogLinesAreFlatObjectsWithTheLastOfRepeatedKeys() throws {
        let text = """
            {"ts":"2026-11-21T10:00:00Z","steps":4,"steps":6}
            {"ts":"2026-11-21T10:01:00Z","steps":2,"meta":{"a":1}}
            {"ts":"2026-11-21T10:02:00Z","steps":[3]}
            {"ts":"2026-11-21T10:03:00Z","steps":"5","seq":7,"src":12}
            {"ts":"2026-11-21T10:03:00Z","steps":1,"seq":"7","src":"12"}
            {"ts":"2026-11-21T10:05:00Z","steps":true}

            """
        let path = try temporaryFile(Array(text.utf8), name: "flat.jsonl")
        let (summary, items) = try readAll(path)
        #expect(readings(items).map(\.steps) == [6, 5])
        #expect(summary.issues.map(\.line) == [2, 3, 5, 6])
        #expect(
            summary.issues.map(\.message)[0...1] == [
                "\"meta\" holds an object: a line's values are flat",
                "\"steps\" holds an array of 1: a line's values are flat",
            ])
        // A number and a string with the same text name the same device: its line at 10:03 again.
        #expect(summary.issues[2].message == "duplicate seq 7: 12 already has a line at 2026-11-21T10:03:00.000Z")
    }

    /// A `seq` not above the stream's last was skipped as a duplicate: a writer reinstalled on the same boot (its
    /// `seq` starting again) lost every line after it. A line is its device's line at its `ts`, as the receiver keys
    /// it: the reinstalled writer's new lines count, and a history written again under a new `boot_id` (new `seq`)
    /// or the same line twice does not; followed, across reads too.
    @Test func stepLogLinesAreTheirDevicesLineAtTheirTime() throws {
        let line = { (m: Int, steps: Int, boot: String, seq: Int) in
            #"{"ts":"2026-11-21T10:0\#(m):00Z","steps":\#(steps),"boot_id":"\#(boot)","seq":\#(seq),"src":"pedo"}"#
        }
        let first = [line(0, 10, "b1", 1), line(1, 20, "b1", 2), line(2, 30, "b1", 3)]
        // Reinstalled on the same boot: seq from 1 again, new times.
        let reinstalled = [line(3, 40, "b1", 1), line(4, 50, "b1", 2)]
        // The history again under a new boot_id and new seq, and one line twice.
        let again = [line(0, 10, "b2", 101), line(1, 20, "b2", 102), line(4, 50, "b1", 2)]
        let text = (first + reinstalled + again).joined(separator: "\n") + "\n"
        let path = try temporaryFile(Array(text.utf8), name: "steps.jsonl")
        let (summary, items) = try readAll(path)
        #expect(readings(items).map(\.steps) == [10, 20, 30, 40, 50])
        #expect(summary.skippedLines == 3)
        #expect(summary.issues.map(\.line) == [6, 7, 8])
        // Followed: the lines after the first read, in a later read.
        try Data((first.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: path))
        var steps = 0
        let sink: (InputItem) -> Void = { if case .reading(let r) = $0 { steps += r.steps } }
        let read = try SourceReader.readNew(path: path, cursor: nil, sink)
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(((reinstalled + again).joined(separator: "\n") + "\n").utf8))
        try handle.close()
        _ = try SourceReader.readNew(path: path, cursor: read.cursor, sink)
        #expect(steps == 150)
    }

    @Test func sensorLoggerPedometerIsCumulativeWithResets() throws {
        let (summary, items) = try readAll(Self.fixture("Pedometer.csv"))
        #expect(summary.format == "sensor-logger-pedometer")
        #expect(readings(items).map(\.steps) == [3, 18, 19, 12])
        #expect(readings(items)[0].start.nanosecondsSinceEpoch == 1_763_719_200_000_000_000 - 500_000_000)
    }

    /// Newer Sensor Logger versions may add columns: the pedometer's are found by name and any others ignored,
    /// wherever they stand (the fixture with a column added at the end, at the start, and its columns shuffled).
    @Test func sensorLoggerPedometerFindsItsColumnsByName() throws {
        let rows = try String(contentsOfFile: Self.fixture("Pedometer.csv"), encoding: .utf8)
            .split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        let variants: [(String, [Int], String)] = [
            ("distance", [0, 1, 2, -1], "added at the end"),
            ("floorsAscended", [-1, 0, 1, 2], "added at the start"),
            ("cadence", [2, -1, 1, 0], "between shuffled columns"),
        ]
        for (extra, order, what) in variants {
            let text =
                rows.enumerated().map { n, row in
                    order.map { $0 < 0 ? (n == 0 ? extra : "\(Double(n) * 0.75)") : row[$0] }.joined(separator: ",")
                }.joined(separator: "\n") + "\n"
            let path = try temporaryFile(Array(text.utf8), name: "Pedometer.csv")
            let (summary, items) = try readAll(path)
            #expect(summary.format == "sensor-logger-pedometer", "\(what)")
            #expect(readings(items).map(\.steps) == [3, 18, 19, 12], "\(what)")
            #expect(readings(items).first?.start.nanosecondsSinceEpoch == Int64(1_763_719_199_500_000_000), "\(what)")
            #expect(summary.issues.isEmpty, "\(what)")
        }
        // A row without as many fields as the header is a bad line, named with its number.
        let short = try temporaryFile(
            Array(
                "time,seconds_elapsed,steps,distance\n1763719200000000000,0.5,3,1.2\n1763719210000000000,10.5\n".utf8),
            name: "Pedometer.csv")
        let (summary, items) = try readAll(short)
        #expect(readings(items).map(\.steps) == [3])
        #expect(summary.issues.map(\.description) == ["\(short):3: expected 4 fields (as the header), found 2"])
    }

    static func fixture(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("fixtures/formats/\(name)").path
    }
}

@Suite(.temporaryFolder) struct BadInputTests {
    func csv(_ rows: [String], header: String = "t_ms,x,y,z") -> String {
        ([header] + rows).joined(separator: "\n") + "\n"
    }

    func read(_ text: String, strict: Bool = false) throws -> (ReadSummary, [AccelerationSample]) {
        let path = try temporaryFile(Array(text.utf8))
        let (s, items) = try readAll(path, options: ReadOptions(strict: strict))
        return (s, samples(items))
    }

    @Test func nonMonotonicTimeIsSkippedWithItsLine() throws {
        let (s, got) = try read(csv(["0,0,0,9.8", "20,0,0,9.8", "10,0,0,9.8", "30,0,0,9.8"]))
        #expect(got.map(\.time.nanosecondsSinceEpoch) == [0, 20_000_000, 30_000_000])
        #expect(s.skippedLines == 1)
        #expect(s.issues.first?.line == 4)
        #expect(s.issues.first?.message.contains("backwards") == true)
        #expect(s.issues.first?.description.hasSuffix(":4: " + (s.issues.first?.message ?? "")) == true)
    }

    @Test func nanInfAndAbsurdMagnitudesAreSkipped() throws {
        let (s, got) = try read(csv(["0,0,0,9.8", "10,nan,0,9.8", "20,0,inf,9.8", "30,0,0,5000", "40,0,0,9.8"]))
        #expect(got.map(\.time.nanosecondsSinceEpoch) == [0, 40_000_000])
        #expect(s.skippedLines == 3)
        #expect(s.issues.map(\.line) == [3, 4, 5])
        #expect(s.issues[0].message.contains("NaN"))
        #expect(s.issues[1].message.contains("infinite"))
        #expect(s.issues[2].message.contains("absurd"))
        #expect(throws: InputError.self) { try read(csv(["0,0,0,9.8", "10,nan,0,9.8"]), strict: true) }
    }

    @Test func statedUnitsWinOverTheDataForGravityFreeRecordings() throws {
        // Linear acceleration (gravity removed) is small: |a| ≈ 0.3 would look like g without the header's unit.
        let rows = (0..<300).map { "\(Double($0) * 0.01),0.1,0.2,0.3" }
        let phyphox =
            "\"Time (s)\",\"Linear Acceleration x (m/s^2)\",\"Linear Acceleration y (m/s^2)\",\"Linear Acceleration z (m/s^2)\"\n"
            + rows.joined(separator: "\n") + "\n"
        let (s1, got1) = try read(phyphox)
        #expect(s1.unit == .metersPerSecondSquared)
        #expect(got1[0].z == 0.3)
        let logger =
            "time,seconds_elapsed,z,y,x\n"
            + (0..<300).map { "\(1_700_000_000_000_000_000 + $0 * 10_000_000),\(Double($0) * 0.01),0.3,0.2,0.1" }
            .joined(separator: "\n") + "\n"
        let (s2, got2) = try read(logger)
        #expect(s2.format == "sensor-logger")
        #expect(s2.unit == .metersPerSecondSquared)
        #expect(got2[0].x == 0.1)
        let bracketG =
            "t [s];x [g];y [g];z [g]\n" + (0..<300).map { "\(Double($0) * 0.01);0;0;9" }.joined(separator: "\n") + "\n"
        #expect(try read(bracketG).0.unit == .g)  // stated g, although |a| = 9 would look like m/s²
    }

    @Test func semicolonsWithDecimalCommas() throws {
        let text =
            "\"Time (s)\";\"Acceleration x (m/s^2)\";\"Acceleration y (m/s^2)\";\"Acceleration z (m/s^2)\"\n"
            + "0,000000000E0;-2,466E-1;4,41251E0;8,33541E0\n5,677E-3;0;0;9,81\n"
        let (s, got) = try read(text)
        #expect(s.format == "phyphox")
        #expect(s.skippedLines == 0)
        #expect(
            got == [
                AccelerationSample(time: Instant(nanosecondsSinceEpoch: 0), x: -0.2466, y: 4.41251, z: 8.33541),
                AccelerationSample(time: Instant(nanosecondsSinceEpoch: 5_677_000), x: 0, y: 0, z: 9.81),
            ])
    }

    @Test func fieldThatIsNotANumberIsNamed() throws {
        let (s, got) = try read(csv(["0,0,0,9.8", "10,0,abc,9.8", "x,0,0,9.8", "30,0,0,9.8"]))
        #expect(got.count == 2)
        #expect(s.issues.map(\.message) == ["y is not a number: 'abc'", "time is not a number: 'x'"])
    }

    /// A `nan` time parses as a number but is none: said so (not "out of range"), with its line.
    @Test func aNaNTimeIsNotANumber() throws {
        let (s, got) = try read(csv(["0,0,0,9.8", "nan,0,0,9.8", "-NaN,0,0,9.8", "1e30,0,0,9.8", "30,0,0,9.8"]))
        #expect(got.count == 2)
        #expect(
            s.issues.map(\.message) == [
                "time is not a number: NaN", "time is not a number: NaN", "time is out of range",
            ])
        #expect(s.issues.map(\.line) == [3, 4, 5])
        #expect(s.issues.first?.description.hasSuffix(":3: time is not a number: NaN") == true)
    }

    @Test func truncatedLastLineIsSkippedValidLinesKept() throws {
        let (s, got) = try read("t_ms,x,y,z\n0,0,0,9.8\n20,0,0,9.8\n40,0,")
        #expect(got.count == 2)
        #expect(s.skippedLines == 1)
        #expect(s.issues.first?.line == 4)
    }

    @Test func bomAndCRLF() throws {
        let text = "\u{FEFF}t_ms,x,y,z\r\n0,0,0,9.8\r\n20,0,0,9.8\r\n"
        let (s, got) = try read(text)
        #expect(s.format == "generic-csv")
        #expect(got.count == 2)
        #expect(s.skippedLines == 0)
        let step = try temporaryFile(
            Array("\u{FEFF}{\"ts\":\"2026-11-21T10:00:00Z\",\"steps\":4}\r\n".utf8), name: "s.jsonl")
        #expect(try readAll(step).0.steps == 4)
    }

    @Test func mixedDelimitersAreSkippedNotMisread() throws {
        let (s, got) = try read(csv(["0,0,0,9.8", "20;0;0;9.8", "40,0,0,9.8", "60\t0\t0\t9.8"]))
        #expect(got.map(\.time.nanosecondsSinceEpoch) == [0, 40_000_000])
        #expect(s.skippedLines == 2)
        #expect(s.issues.map(\.line) == [3, 5])
    }

    @Test func otherDelimitersHeaderCaseAndUnits() throws {
        let (s, got) = try read("TIME [ms]\tACC_X [g]\tacc_y [g]\tAcc_Z [g]\n0\t0\t0\t1\n20\t0\t0\t1\n")
        #expect(s.unit == .g)
        #expect(got.map(\.time.nanosecondsSinceEpoch) == [0, 20_000_000])
        let (s2, got2) = try read("t_s  x  y  z\n0.00  0  0  9.8\n0.02   0 0  9.8\n")
        #expect(s2.unit == .metersPerSecondSquared)
        #expect(got2.map(\.time.nanosecondsSinceEpoch) == [0, 20_000_000])
    }

    @Test func unknownHeaderlessIsAnErrorWithLine() throws {
        let path = try temporaryFile(Array("hello\n".utf8))
        let error = try #require(throws: InputError.self) { try readAll(path) }
        #expect(error.line == 1)
    }
}

@Suite(.temporaryFolder) struct StepLogWriterTests {
    @Test func writtenLinesReadBack() throws {
        let t0 = TimeParsing.parseISO8601("2026-11-21T10:00:00.250Z")!
        #expect(StepLogLine.rfc3339(t0) == "2026-11-21T10:00:00.250Z")
        #expect(StepLogLine.rfc3339(0) == "1970-01-01T00:00:00.000Z")
        #expect(StepLogLine.rfc3339(-1_000_000) == "1969-12-31T23:59:59.999Z")
        var text = StepLogLine.encode(timeNs: t0, total: 1234, bootID: "b\"1", seq: 1, source: "iio:device0")
        text += StepLogLine.encode(
            timeNs: t0 + 60_000_000_000, total: 1300, bootID: "b\"1", seq: 2, source: "iio:device0")
        text += StepLogLine.encode(timeNs: t0 + 120_000_000_000, steps: 9, source: "phone")
        #expect(
            text.hasPrefix(
                "{\"v\":1,\"ts\":\"2026-11-21T10:00:00.250Z\",\"total\":1234,\"boot_id\":\"b\\\"1\",\"seq\":1,\"src\":\"iio:device0\"}\n"
            ))
        let path = try temporaryFile(Array(text.utf8), name: "written.jsonl")
        let (summary, items) = try readAll(path)
        #expect(summary.format == "steplog")
        #expect(
            readings(items) == [
                StepReading(
                    start: Instant(nanosecondsSinceEpoch: t0), end: Instant(nanosecondsSinceEpoch: t0), steps: 0),
                StepReading(
                    start: Instant(nanosecondsSinceEpoch: t0), end: Instant(nanosecondsSinceEpoch: t0 + 60_000_000_000),
                    steps: 66),
                StepReading(
                    start: Instant(nanosecondsSinceEpoch: t0 + 120_000_000_000),
                    end: Instant(nanosecondsSinceEpoch: t0 + 120_000_000_000), steps: 9),
            ])
    }
}
