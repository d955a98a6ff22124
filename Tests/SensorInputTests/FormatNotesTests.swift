import Foundation
import SensorInput
import StepDetection
import TestSupport
import Testing
import WallTime

/// Cases the format notes (`../shared/docs/input-formats.md`, `../shared/data/formats/*/NOTES.md`) describe that the
/// shared samples do not show; each fixture is written here, small, in the layout the notes give.
@Suite(.temporaryFolder) struct FormatNotesTests {
    static func actiGraphHeader(rate: String = " at 100 Hz ", epoch: String = "00:00:00", mode: Int = 12) -> String {
        """
        ------------ Data File Created By ActiGraph GT3X+ ActiLife v6.13.3 Firmware v2.5.0 date format M/d/yyyy\(rate) Filter Normal -----------
        Serial Number: CLE2B2013XXXX
        Start Time 09:00:00
        Start Date 9/20/2017
        Epoch Period (hh:mm:ss) \(epoch)
        Download Time 12:00:00
        Download Date 9/20/2017
        Current Memory Address: 0
        Current Battery Voltage: 4.00     Mode = \(mode)
        --------------------------------------------------

        """
    }

    /// ActiLife writes timestamps with or without the column row that names them ("Add timestamps" and "Add column
    /// headers" are separate choices): a leading date and time is not an axis and not the column row.
    @Test func actiGraphRawTimestampsWithoutAColumnRow() throws {
        let rows = (0..<50).map { String(format: "9/20/2017 09:00:00.%03d,0.100,-0.200,0.970", $0 * 10) }
        let path = try temporaryFile(Array((Self.actiGraphHeader() + rows.joined(separator: "\n") + "\n").utf8))
        let (summary, items) = try readAll(path)
        #expect(summary.format == "actigraph-raw")
        #expect(summary.samples == 50)
        #expect(summary.skippedLines == 0)
        let first = try #require(samples(items).first)
        #expect(abs(first.x - 0.1 * standardGravity) < 1e-9)
        #expect(abs(first.z - 0.97 * standardGravity) < 1e-9)
        #expect(first.time.nanosecondsSinceEpoch == TimeParsing.parseISO8601("2017-09-20T09:00:00Z"))
    }

    /// An epoch export with its time in front and no column row: the Mode's steps column is after the time fields.
    @Test(arguments: ["2017-09-20T09:00:%02dZ", "9/20/2017,09:00:%02d", "9/20/2017 09:00:%02d"])
    func actiGraphEpochTimestampsWithoutAColumnRow(_ time: String) throws {
        let header = Self.actiGraphHeader(rate: "", epoch: "00:00:01", mode: 13)
        let rows = (0..<10).map { String(format: time, $0) + ",300,200,100,\($0 % 2 == 0 ? 4 : 0)" }
        let path = try temporaryFile(Array((header + rows.joined(separator: "\n") + "\n").utf8))
        let (summary, items) = try readAll(path)
        #expect(summary.format == "actigraph-epoch")
        #expect(summary.readings == 10)
        #expect(summary.steps == 20)
        #expect(summary.skippedLines == 0)
        let r = readings(items)
        try #require(r.count == 10)
        #expect(r[1].start.nanosecondsSinceEpoch == TimeParsing.parseISO8601("2017-09-20T09:00:01Z"))
    }
}

extension FormatNotesTests {
    /// A real export (GGIRread's ActiGraph13_timestamps_headers.csv) declares `dd/MM/yyyy` over `Start Date
    /// 09-12-2017` and `Download Date 09-19-2017`: month first, as its rows' 2017-09-12 say. Without a time column
    /// the start would be read as 9 December.
    @Test func actiGraphDateOrderContradictedByTheHeaderDates() throws {
        let header = Self.actiGraphHeader(rate: "", epoch: "00:00:01", mode: 13)
            .replacingOccurrences(of: "M/d/yyyy", with: "dd/MM/yyyy")
            .replacingOccurrences(of: "Start Date 9/20/2017", with: "Start Date 09-12-2017")
            .replacingOccurrences(of: "Download Date 9/20/2017", with: "Download Date 09-19-2017")
        let path = try temporaryFile(Array((header + "300,200,100,4\n300,200,100,0\n").utf8))
        let (summary, items) = try readAll(path)
        #expect(summary.steps == 4)
        #expect(readings(items).first?.start.nanosecondsSinceEpoch == TimeParsing.parseISO8601("2017-09-12T09:00:00Z"))
        // A declared order the dates agree with is kept: 09-12 is 9 December.
        let agreeing = try temporaryFile(
            Array(
                (header.replacingOccurrences(of: "Download Date 09-19-2017", with: "Download Date 19-12-2017")
                    + "300,200,100,4\n").utf8))
        #expect(
            readings(try readAll(agreeing).1).first?.start.nanosecondsSinceEpoch
                == TimeParsing.parseISO8601("2017-12-09T09:00:00Z"))
    }
}

extension FormatNotesTests {
    /// Physics Toolbox's linear accelerometer export, `time,ax,ay,az,aT`, is m/s² with gravity removed (|a| ≈ 0.3
    /// here): read as g it would be 9.8 times too large.
    @Test func physicsToolboxLinearAccelerationIsMetersPerSecondSquared() throws {
        let rows = (0..<300).map { "\(Double($0) * 0.01),0.1,0.2,-0.2,0.3" }
        let path = try temporaryFile(Array((["time,ax,ay,az,aT"] + rows).joined(separator: "\n").utf8))
        let (summary, items) = try readAll(path)
        #expect(summary.format == "physics-toolbox")
        #expect(summary.unit == .metersPerSecondSquared)
        #expect(samples(items).first?.x == 0.1)
    }
}

extension FormatNotesTests {
    /// WISDM timestamps are phone uptime in ns, "some ms": 50 apart at 20 Hz is 50 ms, not 50 ns (20 MHz).
    @Test func wisdmMillisecondTimestamps() throws {
        let rows = (0..<40).map { "33,Walking,\(49_105_962 + $0 * 50),-0.69,9.68,0.50;" }
        let path = try temporaryFile(Array((rows.joined(separator: "\n") + "\n").utf8))
        let (summary, items) = try readAll(path)
        #expect(summary.format == "wisdm")
        #expect(summary.samples == 40)
        #expect(abs((summary.rateHz ?? 0) - 20) < 0.01)
        let s = samples(items)
        try #require(s.count == 40)
        #expect(s[1].time.nanosecondsSinceEpoch - s[0].time.nanosecondsSinceEpoch == 50_000_000)
        // Nanoseconds stay nanoseconds.
        let ns = try temporaryFile(
            Array(
                (0..<40).map { "33,Walking,\(49_105_962_326_000 + $0 * 50_000_000),-0.69,9.68,0.50;\n" }.joined().utf8))
        #expect(abs((try readAll(ns).0.rateHz ?? 0) - 20) < 0.01)
    }

    /// Some WISDM lines end `;` plus an extra `,`: the first line may be one of them.
    @Test func wisdmFirstLineEndingWithSemicolonAndComma() throws {
        let rows = (0..<40).map { "33,Walking,\(49_105_962_326_000 + $0 * 50_000_000),-0.69,9.68,0.50;," }
        let path = try temporaryFile(Array((rows.joined(separator: "\n") + "\n").utf8))
        let (summary, _) = try readAll(path)
        #expect(summary.format == "wisdm")
        #expect(summary.samples == 40)
        #expect(summary.skippedLines == 0)
    }
}

extension FormatNotesTests {
    /// Real exports repeat a record exactly (same source, interval and value). Counted twice, the copy doubles the
    /// watch's steps and makes it win the overlap over the phone that saw more.
    @Test func appleHealthExactDuplicatesCountOnce() throws {
        var xml = StepReadingFormatTests.healthHeader
        xml += StepReadingFormatTests.record("Apple Watch", "10:00:00", "10:05:00", 600)
        xml += StepReadingFormatTests.record("Apple Watch", "10:00:00", "10:05:00", 600)
        xml += StepReadingFormatTests.record("iPhone", "10:00:00", "10:10:00", 1000)
        xml += StepReadingFormatTests.record("iPhone", "11:00:00", "11:05:00", 300)
        xml += StepReadingFormatTests.record("iPhone", "11:00:00", "11:05:00", 300)
        xml += "</HealthData>\n"
        let path = try temporaryFile(Array(xml.utf8), name: "export.xml")
        #expect(try readAll(path).0.steps == 1300)
        var sum = ReadOptions()
        sum.overlap = .sumAll
        #expect(try readAll(path, options: sum).0.steps == 1900)
    }
}

extension FormatNotesTests {
    /// Google Fit points may carry `fpVal` instead of `intVal`; one no step count can be (1e300, beyond Int64) is a
    /// problem of that point, not a crash, and the points around it are kept.
    @Test func googleFitFloatValueOutOfRangeIsReportedNotACrash() throws {
        func point(_ value: String, _ k: Int64) -> String {
            let start = 1_582_253_374_731_798_130 + k * 60_000_000_000
            return
                "{\"fitValue\":[{\"value\":{\"fpVal\":\(value)}}],\"startTimeNanos\":\(start),\"endTimeNanos\":\(start + 60_000_000_000),\"dataTypeName\":\"com.google.step_count.delta\"}"
        }
        let json =
            "{\"Data Source\": \"derived:com.google.step_count.delta:com.google.android.gms:estimated_steps\",\n"
            + "\"Data Points\": [\(point("12.0", 0)),\n\(point("1e300", 1)),\n\(point("8", 2))]}\n"
        let path = try temporaryFile(Array(json.utf8), name: "derived_com.google.step_count.delta_x.json")
        let (summary, _) = try readAll(path)
        #expect(summary.format == "google-fit")
        #expect(summary.steps == 20)
        #expect(summary.issues.first?.message.contains("data point 1") == true)
    }
}

extension FormatNotesTests {
    /// A garbled cumulative total in Sensor Logger's `Pedometer.csv` (here near Int64.max) is a bad line named with
    /// its number; summing two of them overflowed and crashed the read.
    @Test func sensorLoggerPedometerHugeTotalIsABadLine() throws {
        let text = """
            time,seconds_elapsed,steps
            1763719200000000000,0.5,3
            1763719201000000000,1.5,9000000000000000000
            1763719202000000000,2.5,9000000000000000000
            1763719203000000000,3.5,8

            """
        let path = try temporaryFile(Array(text.utf8), name: "Pedometer.csv")
        let (summary, _) = try readAll(path)
        #expect(summary.format == "sensor-logger-pedometer")
        #expect(summary.steps == 8)
        #expect(summary.issues.map(\.line) == [3, 4])
    }
}

extension FormatNotesTests {
    /// The daily summary's rows are local days: the day clocks go forward lasts 23 hours and starts at that
    /// midnight's offset (+01:00 in Berlin on 2021-03-28), the day they go back 25 hours.
    @Test func googleFitDailyRowsOnDSTDaysSpanTheirLocalDay() throws {
        let path = try temporaryFile(
            Array("Date,Step count\n2021-03-28,2300\n2021-10-31,2500\n".utf8), name: "Daily activity metrics.csv")
        var berlin = ReadOptions()
        berlin.timeZone = TimeZone(identifier: "Europe/Berlin")
        let r = readings(try readAll(path, options: berlin).1)
        #expect(r.first?.start.nanosecondsSinceEpoch == TimeParsing.parseISO8601("2021-03-28T00:00:00+01:00"))
        #expect(r.first?.end.nanosecondsSinceEpoch == TimeParsing.parseISO8601("2021-03-29T00:00:00+02:00"))
        #expect(r.last?.start.nanosecondsSinceEpoch == TimeParsing.parseISO8601("2021-10-31T00:00:00+02:00"))
        #expect(r.last?.end.nanosecondsSinceEpoch == TimeParsing.parseISO8601("2021-11-01T00:00:00+01:00"))
    }
}

extension FormatNotesTests {
    /// MATLAB Mobile's timetables written with `writetable`: `Acceleration_Timestamp,X,Y,Z` (or `Timestamp,...`) with
    /// date-time text, MATLAB's `dd-MMM-yyyy HH:mm:ss.SSS` or ISO; read on one thread and in many small ranges alike.
    @Test(arguments: [
        ("Acceleration_Timestamp", "%02d-Jan-2024 10:00:%02d.%03d"), ("Timestamp", "2024-01-%02d 10:00:%02d.%03d"),
    ])
    func genericCSVWithDateTimeText(_ column: String, _ layout: String) throws {
        let rows = (0..<400).map { i in
            String(format: layout, 1, i / 100, (i % 100) * 10) + ",0.1,\(i % 2 == 0 ? 0.2 : 0.3),9.8"
        }
        let path = try temporaryFile(Array(([column + ",X,Y,Z"] + rows).joined(separator: "\n").utf8))
        for (jobs, chunk) in [(1, 1 << 17), (2, 300)] {
            var options = ReadOptions()
            options.jobs = jobs
            options.chunkBytes = chunk
            let (summary, items) = try readAll(path, options: options)
            #expect(summary.format == "generic-csv")
            #expect(summary.samples == 400)
            #expect(summary.skippedLines == 0)
            #expect(abs((summary.rateHz ?? 0) - 100) < 0.01)
            #expect(summary.first?.nanosecondsSinceEpoch == TimeParsing.parseISO8601("2024-01-01T10:00:00Z"))
            // Within the 256 ns a Double holds of an epoch time in ns, as for every epoch time the CSV engine reads.
            let last = try #require(TimeParsing.parseISO8601("2024-01-01T10:00:03.990Z"))
            let got = samples(items)
            try #require(got.count == 400)
            #expect(abs(got[399].time.nanosecondsSinceEpoch - last) < 1000)
        }
    }
}

extension FormatNotesTests {
    /// A real export's DTD puts `<HealthData` on line 80, past what detection reads; only the name `export*.xml`
    /// found it. Renamed, it was taken for a CSV with a header `<?xml`.
    @Test func appleHealthExportIsRecognisedUnderAnyName() throws {
        let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: formatFixture("apple_health_export.xml"))))
        let path = try temporaryFile(bytes, name: "apple_health.xml")
        let (summary, _) = try readAll(path)
        #expect(summary.format == "apple-health")
        #expect(summary.steps == 2517)
    }
}

extension FormatNotesTests {
    /// Sensor Logger's files are m/s², but iOS's `AccelerometerUncalibrated.csv` is in g unless the app standardised
    /// units: |a| ≈ 1 there is g (with gravity in it), not a gravity-free m/s² signal.
    @Test func sensorLoggerUncalibratedAccelerometerInG() throws {
        let rows = (0..<300).map {
            "\(1_700_000_000_000_000_000 + $0 * 10_000_000),\(Double($0) * 0.01),-0.98,0.1,0.05"
        }
        let text = (["time,seconds_elapsed,z,y,x"] + rows).joined(separator: "\n") + "\n"
        let uncalibrated = try temporaryFile(Array(text.utf8), name: "AccelerometerUncalibrated.csv")
        let (s1, items) = try readAll(uncalibrated)
        #expect(s1.format == "sensor-logger")
        #expect(s1.unit == .g)
        #expect(abs((samples(items).first?.z ?? 0) + 0.98 * standardGravity) < 1e-9)
        // Any other Sensor Logger file stays m/s², however small its values (gravity-free Accelerometer.csv).
        let linear = try temporaryFile(Array(text.utf8), name: "Accelerometer.csv")
        #expect(try readAll(linear).0.unit == .metersPerSecondSquared)
    }
}

extension FormatNotesTests {
    /// Huawei's sample table: each row carries its own end (`OTHER_TIMESTAMP`, seconds).
    static let huaweiTable = """
        CREATE TABLE HUAWEI_ACTIVITY_SAMPLE (TIMESTAMP INTEGER NOT NULL, DEVICE_ID INTEGER NOT NULL, USER_ID INTEGER,
          OTHER_TIMESTAMP INTEGER, SOURCE INTEGER, STEPS INTEGER, PRIMARY KEY (TIMESTAMP, DEVICE_ID, SOURCE));

        """

    /// A database named `Gadgetbridge` made of `sql`, in the running test's temporary folder.
    static func gadgetbridgeDatabase(_ sql: String) throws -> String {
        let path = try temporaryFile([], name: "Gadgetbridge")
        try FileManager.default.removeItem(atPath: path)  // SQLite makes its own file
        try makeDatabase(path, sql)
        return path
    }
}

extension FormatNotesTests {
    /// Gadgetbridge rows usually last a minute, but Huawei's carry their end (`OTHER_TIMESTAMP`) and Withings' their
    /// length (`DURATION`, seconds): a reading spans what the row says.
    @Test func gadgetbridgeRowsWithTheirOwnEndOrDuration() throws {
        let path = try Self.gadgetbridgeDatabase(
            Self.huaweiTable + """
                INSERT INTO HUAWEI_ACTIVITY_SAMPLE VALUES (1763000000, 1, 1, 1763000300, 0, 250);
                CREATE TABLE WITHINGS_STEEL_HRACTIVITY_SAMPLE (TIMESTAMP INTEGER NOT NULL, DEVICE_ID INTEGER NOT NULL,
                  USER_ID INTEGER, DURATION INTEGER, STEPS INTEGER, PRIMARY KEY (TIMESTAMP, DEVICE_ID));
                INSERT INTO WITHINGS_STEEL_HRACTIVITY_SAMPLE VALUES (1763003600, 2, 1, 120, 90);
                """)
        let r = readings(try readAll(path).1)
        #expect(r.map(\.steps) == [250, 90])
        #expect(
            r.map { $0.end.nanosecondsSinceEpoch - $0.start.nanosecondsSinceEpoch } == [
                300_000_000_000, 120_000_000_000,
            ])
    }
}

extension FormatNotesTests {
    /// A damaged Huawei row whose end (`OTHER_TIMESTAMP`) is Int64.min overflowed the subtraction of its start and
    /// crashed the read; it now lasts 0 s and the rows around it count.
    @Test func gadgetbridgeDamagedEndIsNotACrash() throws {
        let path = try Self.gadgetbridgeDatabase(
            Self.huaweiTable + """
                INSERT INTO HUAWEI_ACTIVITY_SAMPLE VALUES (1763000000, 1, 1, -9223372036854775808, 0, 7);
                INSERT INTO HUAWEI_ACTIVITY_SAMPLE VALUES (1763000060, 1, 1, 1763000120, 0, 5);
                """)
        #expect(try readAll(path).0.steps == 12)
    }
}

extension FormatNotesTests {
    /// Lines ending in CR alone (classic Mac, Excel 2011's "CSV (Macintosh)") are not split: the file is refused on
    /// line 1 saying so, instead of "no acceleration columns" over a header made of every row.
    @Test func classicMacLineEndingsAreNamed() throws {
        let path = try temporaryFile(Array("t_ms,x,y,z\r0,0,0,9.8\r20,0,0,9.8\r".utf8))
        let error = try #require(throws: InputError.self) { try readAll(path) }
        #expect(error.line == 1)
        #expect(error.message.contains("carriage return alone"))
        // CRLF stays fine.
        let crlf = try temporaryFile(Array("t_ms,x,y,z\r\n0,0,0,9.8\r\n20,0,0,9.8\r\n".utf8))
        #expect(try readAll(crlf).0.samples == 2)
    }
}

extension FormatNotesTests {
    /// AndroSensor: a title line, then a `;` header with `(m/s²)`, `(μT)`, `Time since start in ms ` (trailing
    /// space) and a local date-time column; decimal commas in some locales.
    @Test func androSensorTitleLineAndHeader() throws {
        let header =
            "ACCELEROMETER X (m/s²);ACCELEROMETER Y (m/s²);ACCELEROMETER Z (m/s²);GRAVITY X (m/s²);GRAVITY Y (m/s²);"
            + "GRAVITY Z (m/s²);MAGNETIC FIELD X (μT);ORIENTATION Z (azimuth °);Time since start in ms ;"
            + "YYYY-MO-DD HH-MI-SS_SSS"
        let rows = (0..<300).map { i in
            "0,12;\(i % 2 == 0 ? "0,5" : "0,6");9,79;0;0;9,81;-20,5;180;\(i * 20);2024-01-01 10:00:00:000"
        }
        let text = (["AndroSensor recording", header] + rows).joined(separator: "\n") + "\n"
        let path = try temporaryFile(Array(text.utf8), name: "Sensor_record_20240101_100000_AndroSensor.csv")
        let (summary, items) = try readAll(path)
        #expect(summary.format == "generic-csv")
        #expect(summary.samples == 300)
        #expect(summary.skippedLines == 0)
        #expect(summary.unit == .metersPerSecondSquared)
        #expect(abs((summary.rateHz ?? 0) - 50) < 0.01)
        #expect(
            samples(items).first
                == AccelerationSample(time: Instant(nanosecondsSinceEpoch: 0), x: 0.12, y: 0.5, z: 9.79))
        // Neither line a header: the first line's error, as before.
        let neither = try temporaryFile(Array("hello there\nfoo;bar;baz\n1;2;3\n".utf8))
        let error = try #require(throws: InputError.self) { try readAll(neither) }
        #expect(error.line == 1)
    }
}

extension FormatNotesTests {
    /// GENEActiv's CSV export: `key,value` header lines, then rows with a colon before the milliseconds, in g.
    @Test func geneActivCSV() throws {
        let header = [
            "Device Identity", "Device Type,GENEActiv", "Device Model,1.1", "Measurement Frequency,100 Hz",
            "Start Time,2013-05-30 10:12:49:500", "Time Zone,GMT +01:00", "x gain,25548", "Number of Pages,1",
        ]
        let rows = (0..<200).map { (i: Int) -> String in
            let ms: Int = 500 + i * 10
            return String(format: "2013-05-30 10:12:%02d:%03d,-0.039,-0.996,0.059,0,0,21.5", 49 + ms / 1000, ms % 1000)
        }
        let path = try temporaryFile(Array(((header + rows).joined(separator: "\n") + "\n").utf8))
        let (summary, items) = try readAll(path)
        #expect(summary.format == "geneactiv")
        #expect(summary.samples == 200)
        #expect(summary.skippedLines == 0)
        #expect(summary.unit == .g)
        #expect(abs((summary.rateHz ?? 0) - 100) < 0.01)
        // Local wall time at GMT +01:00, as the header states.
        #expect(summary.first?.nanosecondsSinceEpoch == TimeParsing.parseISO8601("2013-05-30T09:12:49.500Z"))
        #expect(abs((samples(items).first?.y ?? 0) + 0.996 * standardGravity) < 1e-9)
        // Without a stated zone the times are read as UTC; one that cannot be read is said, and read as UTC.
        let bare = try temporaryFile(
            Array(((header.filter { !$0.hasPrefix("Time Zone") } + rows).joined(separator: "\n") + "\n").utf8))
        #expect(
            try readAll(bare).0.first?.nanosecondsSinceEpoch == TimeParsing.parseISO8601("2013-05-30T10:12:49.500Z"))
        let odd = header.map { $0.hasPrefix("Time Zone") ? "Time Zone,Europe/Paris" : $0 }
        let oddPath = try temporaryFile(Array(((odd + rows).joined(separator: "\n") + "\n").utf8))
        let (oddSummary, _) = try readAll(oddPath)
        #expect(oddSummary.first?.nanosecondsSinceEpoch == TimeParsing.parseISO8601("2013-05-30T10:12:49.500Z"))
        #expect(oddSummary.skippedLines == 1)
        let local = try #require(TimeParsing.parseISO8601("2013-05-30T10:12:49.500Z"))
        for (zone, east) in [("GMT -08:00", -28_800), ("GMT +0530", 19_800), ("GMT", 0), ("UTC", 0)] {
            let zoned = header.map { $0.hasPrefix("Time Zone") ? "Time Zone,\(zone)" : $0 }
            let zonedPath = try temporaryFile(Array(((zoned + rows).joined(separator: "\n") + "\n").utf8))
            #expect(
                try readAll(zonedPath).0.first?.nanosecondsSinceEpoch == local - Int64(east) * 1_000_000_000, "\(zone)")
        }
    }
}

extension FormatNotesTests {
    /// `timestamp,x,y,z` with Android's SensorEvent time (ns since boot, 2.6e14 after three days up): by size epoch
    /// µs, which put 200 Hz samples 5 s apart (0.2 Hz, no step found). The step between rows tells ns.
    @Test func bootRelativeNanosecondsAreNotEpochMicroseconds() throws {
        let rows = (0..<300).map { "\(263_239_144_953_734 + $0 * 5_000_000),0.1,\($0 % 2 == 0 ? 5.1 : 5.2),8.3" }
        let path = try temporaryFile(Array((["timestamp,x,y,z"] + rows).joined(separator: "\n").utf8))
        let (summary, _) = try readAll(path)
        #expect(abs((summary.rateHz ?? 0) - 200) < 0.01)
        #expect(summary.absoluteTime == false)
        // Epoch ms at 2 Hz (a slow logger) stay epoch ms.
        let slow = (0..<300).map { "\(1_700_000_000_000 + $0 * 500),0.1,\($0 % 2 == 0 ? 5.1 : 5.2),8.3" }
        let slowPath = try temporaryFile(Array((["timestamp,x,y,z"] + slow).joined(separator: "\n").utf8))
        let (s2, _) = try readAll(slowPath)
        #expect(abs((s2.rateHz ?? 0) - 2) < 0.01)
        #expect(s2.absoluteTime)
    }
}

extension FormatNotesTests {
    /// input-formats.md, reader rules: "clamp implausible jumps (> ~5 steps/s sustained) as glitches". A bad read
    /// of a hardware counter (65535) is not 65,000 steps, and the reset after it does not count its total again; a
    /// total that really rose is counted once the time since the last sound line allows it.
    @Test func stepLogCounterGlitchesAreNotCounted() throws {
        let text = """
            {"ts":"2026-11-21T10:00:00Z","total":100,"src":"iio:device0"}
            {"ts":"2026-11-21T10:01:00Z","total":65535,"src":"iio:device0"}
            {"ts":"2026-11-21T10:02:00Z","total":160,"src":"iio:device0"}
            {"ts":"2026-11-21T10:03:00Z","total":3160,"src":"iio:device0"}
            {"ts":"2026-11-21T10:13:00Z","total":3200,"src":"iio:device0"}
            {"ts":"2026-11-21T10:13:01Z","total":3210,"src":"iio:device0"}
            {"ts":"2026-11-21T10:13:02Z","steps":900,"src":"phone"}

            """
        let path = try temporaryFile(Array(text.utf8), name: "steps.jsonl")
        let (summary, items) = try readAll(path)
        // 60 after the glitch; 3160 is 3000 in 60 s (skipped), 3200 at 10:13 is 3040 in 660 s: counted.
        #expect(readings(items).filter { $0.steps > 0 }.map(\.steps) == [60, 3040, 10, 900])
        #expect(summary.steps == 4010)
        #expect(summary.issues.map(\.line) == [2, 4])
        #expect(summary.issues.first?.message.contains("counter glitch") == true)
        #expect(readings(items)[2].start.nanosecondsSinceEpoch == TimeParsing.parseISO8601("2026-11-21T10:02:00Z"))
    }
}

extension FormatNotesTests {
    /// input-formats.md (WISDM): "timestamp = phone uptime ns (some 0)". A 0 is no time: that record is skipped and
    /// named with its line, the records around it (also the other one on the same line) kept.
    @Test func wisdmZeroTimestampsAreSkippedAndNamed() throws {
        let text = """
            33,Walking,49105962326000,-0.69,12.68,0.50;
            33,Walking,49106062259000,5.01,11.26,0.95;33,Walking,0,1.0,9.8,0.1;
            33,Walking,49106112167000,4.90,10.88,-0.08;

            """
        let path = try temporaryFile(Array(text.utf8), name: "WISDM_ar_v1.1_raw.txt")
        let (summary, items) = try readAll(path)
        #expect(summary.format == "wisdm")
        #expect(samples(items).count == 3)
        #expect(samples(items).last?.time.nanosecondsSinceEpoch == 49_106_112_167_000)
        #expect(summary.skippedLines == 1)
        #expect(summary.issues.first?.line == 2)
        #expect(summary.issues.first?.message.contains("timestamp is missing or 0") == true)
    }
}

extension FormatNotesTests {
    /// input-formats.md (Axivity): omsynth's optional header `Time,Accel-X (g), …`; AX6 files add gx,gy,gz (°/s)
    /// after x,y,z. The header is not a sample, and the gyroscope is not acceleration.
    @Test func axivityOptionalHeaderAndAX6GyroColumns() throws {
        let rows = (0..<100).map {
            String(format: "2017-09-20 09:00:00.%03d,0.010,-0.990,0.050,1.5,-2.5,0.25", $0 * 10)
        }
        let text = (["Time,Accel-X (g), Accel-Y (g), Accel-Z (g)"] + rows).joined(separator: "\n") + "\n"
        let path = try temporaryFile(Array(text.utf8), name: "ax6.csv")
        let (summary, items) = try readAll(path)
        #expect(summary.format == "axivity")
        #expect(summary.samples == 100)
        #expect(summary.skippedLines == 0)
        let first = try #require(samples(items).first)
        #expect(abs(first.y - -0.99 * standardGravity) < 1e-9)
        #expect(abs(first.z - 0.05 * standardGravity) < 1e-9)
        #expect(first.time.nanosecondsSinceEpoch == TimeParsing.parseISO8601("2017-09-20T09:00:00Z"))
    }

    /// WISDM 2019 (v2): `subject,activityCode(A–S),timestamp,x,y,z;` — a letter where v1.1 has a word.
    @Test func wisdmV2LetterActivityCodes() throws {
        let rows = (0..<40).map {
            "1600,A,\(252_207_666_810_782 + Int64($0) * 50_000_000),-0.36,8.79,\($0 % 2 == 0 ? 1.0 : 2.0);"
        }
        let path = try temporaryFile(
            Array((rows.joined(separator: "\n") + "\n").utf8), name: "data_1600_accel_phone.txt")
        let (summary, _) = try readAll(path)
        #expect(summary.format == "wisdm")
        #expect(summary.samples == 40)
        #expect(abs((summary.rateHz ?? 0) - 20) < 0.01)
    }

    /// The Oxford recording's `stepcounter.csv` is the foot-switch ground truth (`ts,right_state,left_state`), not
    /// a step count: no format takes it for steps or acceleration.
    @Test func oxfordGroundTruthIsNotReadAsARecording() throws {
        let path = formatFixture("oxford_stepcounter.csv")
        #expect { try readAll(path) } throws: {
            let e = $0 as? InputError
            return e?.file == path && e?.line == 1 && e?.message.contains("unrecognised format") == true
        }
    }
}
