import Foundation
import StepDetection
import Store
import TestSupport
import Testing
import WallTime

@testable import SensorInput

/// Exports as apps write them, zipped or unzipped into a folder, whose recording needs the files beside it: Sensor
/// Logger's `Accelerometer.csv` with `Gravity.csv`, phyphox's `Raw Data.csv` with `meta/time.csv`; and Zepp Life's
/// export zip. Built here from the committed 60 s walk and fixtures, in the layouts the notes describe.
@Suite(.temporaryFolder) struct ExportTests {
    /// Steps the detector counts in `samples`.
    func steps(_ samples: [AccelerationSample]) -> Int {
        var detector = StepDetector()
        var n = 0
        let count: (DetectorEvent) -> Void = { if case .step = $0 { n += 1 } }
        for s in samples {
            detector.push(
                time: Instant(nanosecondsSinceEpoch: s.time.nanosecondsSinceEpoch), x: s.x, y: s.y, z: s.z, count)
        }
        detector.finish(count)
        return n
    }

    /// The files of `zip` written into a new folder named `name`; its path.
    func folder(_ zip: ZipBuilder, name: String) throws -> String {
        let root = URL(fileURLWithPath: try temporaryFile([], name: "x")).deletingLastPathComponent()
            .appendingPathComponent(name)
        for item in zip.items {
            let url = root.appendingPathComponent(item.name)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(item.data).write(to: url)
        }
        return root.path
    }

    /// A Sensor Logger recording from Android: `TotalAcceleration.csv` beside the other sensors.
    func androidRecording() throws -> ZipBuilder {
        var zip = ZipBuilder()
        zip.add("Metadata.csv", Array("version,device name,platform\n3,Pixel,android\n".utf8))
        let total = try derivedWalk("sensorlogger_TotalAcceleration.csv")
        zip.add("TotalAcceleration.csv", try Array(Data(contentsOf: URL(fileURLWithPath: total))))
        zip.add("Gyroscope.csv", Array("time,seconds_elapsed,z,y,x\n".utf8))
        return zip
    }

    /// The folder a recording's zip unzips to reads as the zip and as the file in it.
    @Test func aRecordingsFolderReadsAsItsZip() throws {
        let (plain, plainItems) = try readAll(try derivedWalk("sensorlogger_TotalAcceleration.csv"))
        let zip = try androidRecording()
        for path in [try temporaryFile(zip.bytes(), name: "walk.zip"), try folder(zip, name: "walk")] {
            let (s, items) = try readAll(path)
            #expect(s.format == "sensor-logger" && s.samples == plain.samples && items == plainItems, "\(path)")
        }
        // Named as another format, a folder says what it lacks.
        let dir = try folder(zip, name: "walk")
        let e = try #require(throws: InputError.self) { try readAll(dir, options: ReadOptions(format: "phyphox")) }
        #expect(e.file == dir && e.message.hasPrefix("no Raw Data.csv or Accelerometer.csv in this folder"), "\(e)")
    }

    // MARK: Sensor Logger: Accelerometer.csv + Gravity.csv

    /// The walk's `TotalAcceleration.csv` split as iOS records it: gravity (a low-pass of the total) in
    /// `Gravity.csv`, the rest in `Accelerometer.csv`, both at the same times.
    func iOSRecording(dropGravityRows: Set<Int> = []) throws -> (zip: ZipBuilder, total: [AccelerationSample]) {
        let (summary, items) = try readAll(try derivedWalk("sensorlogger_TotalAcceleration.csv"))
        #expect(summary.samples == 3000)
        let total = samples(items)
        let start = try #require(total.first?.time.nanosecondsSinceEpoch)
        var linear = "time,seconds_elapsed,z,y,x\n"
        var gravity = "time,seconds_elapsed,z,y,x\n"
        var g = (x: total[0].x, y: total[0].y, z: total[0].z)
        for (k, s) in total.enumerated() {
            g = (g.x + 0.02 * (s.x - g.x), g.y + 0.02 * (s.y - g.y), g.z + 0.02 * (s.z - g.z))
            let elapsed = Double(s.time.nanosecondsSinceEpoch - start) / 1e9
            linear += "\(s.time.nanosecondsSinceEpoch),\(elapsed),\(s.z - g.z),\(s.y - g.y),\(s.x - g.x)\n"
            if !dropGravityRows.contains(k) {
                gravity += "\(s.time.nanosecondsSinceEpoch),\(elapsed),\(g.z),\(g.y),\(g.x)\n"
            }
        }
        var zip = ZipBuilder()
        zip.add("Metadata.csv", Array("version,device name,platform\n3,iPhone,ios\n".utf8))
        zip.add("Accelerometer.csv", Array(linear.utf8))
        zip.add("Gravity.csv", Array(gravity.utf8))
        zip.add("Gyroscope.csv", Array("time,seconds_elapsed,z,y,x\n".utf8))
        return (zip, total)
    }

    @Test(arguments: ["zip", "folder", "zip, format named"])
    func sensorLoggerAccelerometerIsPairedWithGravity(_ layout: String) throws {
        let (zip, total) = try iOSRecording()
        let path =
            layout == "folder"
            ? try folder(zip, name: "Walk-2024-01-17_08-14-46")
            : try temporaryFile(zip.bytes(), name: "Walk-2024-01-17_08-14-46.zip")
        let options = ReadOptions(format: layout.hasSuffix("named") ? "sensor-logger" : nil)
        let (s, items) = try readAll(path, options: options)
        let paired = samples(items)
        #expect(s.format == "sensor-logger" && s.samples == total.count && s.skippedLines == 0 && s.absoluteTime)
        #expect(
            s.first?.nanosecondsSinceEpoch == total.first?.time.nanosecondsSinceEpoch
                && s.last?.nanosecondsSinceEpoch == total.last?.time.nanosecondsSinceEpoch)
        #expect(paired.map(\.time.nanosecondsSinceEpoch) == total.map(\.time.nanosecondsSinceEpoch))
        let worst = Swift.zip(paired, total).map { max(abs($0.x - $1.x), abs($0.y - $1.y), abs($0.z - $1.z)) }.max()
        #expect(try #require(worst) < 1e-9)
        let totalSteps = steps(total)
        #expect(totalSteps == 113)  // the walk's count in every layout (109 true steps)
        #expect(steps(paired) == totalSteps)
        // Unzipped by hand, Accelerometer.csv named on its own still finds Gravity.csv beside it.
        if layout == "folder" {
            let (f, fileItems) = try readAll(path + "/Accelerometer.csv")
            #expect(f.samples == total.count && steps(samples(fileItems)) == totalSteps)
        }
        // Alone, the acceleration without gravity counts nothing like it.
        let (_, linearItems) = try readAll(try temporaryFile(zip.items[1].data, name: "Accelerometer.csv"))
        #expect(steps(samples(linearItems)) != totalSteps)
    }

    @Test func batchesGetThePairedSamplesToo() throws {
        let (zip, total) = try iOSRecording()
        var got: [AccelerationSample] = []
        let path = try temporaryFile(zip.bytes(), name: "walk.zip")
        let s = try AnyInput.read(path: path, batch: { got.append(contentsOf: $0) }) {
            if case .sample(let x) = $0 { got.append(x) }
        }
        #expect(
            s.samples == total.count && got.map(\.time.nanosecondsSinceEpoch) == total.map(\.time.nanosecondsSinceEpoch)
        )
    }

    @Test func accelerometerRowsWithoutGravityAreLeftOutAndSaid() throws {
        let (zip, total) = try iOSRecording(dropGravityRows: [5, 6, 7])
        let path = try temporaryFile(zip.bytes(), name: "walk.zip")
        let (s, items) = try readAll(path)
        #expect(s.samples == total.count - 3 && samples(items).count == total.count - 3)
        #expect(s.skippedLines == 1)
        let note = try #require(s.issues.first)
        #expect(note.file == path + ":Accelerometer.csv", "\(note)")
        #expect(
            note.message == "3 of its 3000 rows have no row of \(path):Gravity.csv at the same time (within 1 µs): "
                + "left out")
        // Strict: the first row left out is an error.
        #expect(throws: InputError.self) { try readAll(path, options: ReadOptions(strict: true)) }
    }

    /// A recording whose files pair awkwardly, past several of the merge's pieces: gravity times off by up to 1 µs
    /// and more, gravity rows missing and extra, accelerometer rows at one time twice, a run of rows 0.5 µs apart
    /// across a piece's end, a gravity row out of order, gravity starting before and ending after the accelerometer,
    /// and a row over 50 g only with gravity added.
    func awkwardRecording() -> (linear: String, gravity: String) {
        var random = SeededRandom(seed: 11)
        let t0: Int64 = 1_705_472_086_000_000_000
        var times: [Int64] = []
        var t = t0
        for i in 0..<12_000 {
            t += (4_050..<4_130).contains(i) ? 500 : 4_500_000
            times.append(t)
            if i % 997 == 0 { times.append(t) }  // the same time twice
        }
        var linear = "time,seconds_elapsed,z,y,x\n"
        var gravity = "time,seconds_elapsed,z,y,x\n"
        for k in 0..<100 { gravity += "\(t0 - Int64(100 - k) * 4_500_000),0,9.8,0.1,0.2\n" }
        // Times are read as float64 (256 ns apart at today's epoch): 768 ns pairs, 2 µs does not.
        let jitters: [Int64] = [0, 0, 0, 0, 0, 256, -256, 768, -768, 2_000]
        var held: String?
        for (k, time) in times.enumerated() {
            let over = k == 7_777
            linear += "\(time),\(k),\(random.noise(2)),\(random.noise(2)),\(over ? 300 : random.noise(2))\n"
            if k > 0 && time == times[k - 1] { continue }
            if k % 89 == 3 { continue }  // no gravity row
            let jitter = time - times[max(0, k - 1)] < 4_000_000 || over ? 0 : jitters[k % jitters.count]
            let row = "\(time + jitter),\(k),9.8,0.1,\(over ? 250 : 0.2)\n"
            if k == 9_001 {
                held = row  // written after the next row: out of order
                continue
            }
            gravity += row
            if let h = held {
                gravity += h
                held = nil
            }
            if k % 61 == 5, k + 1 < times.count, times[k + 1] - time > 4_000_000 {
                gravity += "\(time + 2_000_000),\(k),9.8,0.1,0.2\n"
            }  // between two rows
        }
        for k in 1...100 { gravity += "\(t + Int64(k) * 4_500_000),0,9.8,0.1,0.2\n" }
        return (linear, gravity)
    }

    /// What pairing the whole files gives: each file's rows as `GenericCSVReader` reads them, paired at once.
    func pairedAtOnce(_ linear: String, _ gravity: String, _ options: ReadOptions) throws -> (
        samples: [AccelerationSample], skipped: Int, lineIssues: [String], unpaired: Int
    ) {
        var vectors: [[SensorLoggerAcceleration.Timed]] = [[], []]
        var skipped = 0
        var lineIssues: [String] = []
        for (k, text) in [linear, gravity].enumerated() {
            let (summary, _) = try GenericCSVReader.read(
                path: "f", options: options, resume: nil, completeLinesOnly: false, formatName: "sensor-logger",
                source: .memory(Array(text.utf8))
            ) { s in vectors[k].append(.init(timeNs: s.time.nanosecondsSinceEpoch, v: .init(x: s.x, y: s.y, z: s.z))) }
            skipped += summary.skippedLines
            lineIssues += summary.issues.map { "\($0.line ?? 0): \($0.message)" }
        }
        let (paired, unpaired) = SensorLoggerAcceleration.pairs(vectors[0], vectors[1])
        let kept = paired.filter { SampleCheck.valueProblem($0) == nil }
        return (kept, skipped + (unpaired > 0 ? 1 : 0) + paired.count - kept.count, lineIssues, unpaired)
    }

    @Test(arguments: [(1, 1 << 17), (2, 4096), (3, 97)])
    func pairingAsTheFilesAreReadPairsWhatTheWholeFilesPair(jobs: Int, chunkBytes: Int) throws {
        let (linear, gravity) = awkwardRecording()
        var options = ReadOptions()
        options.jobs = jobs
        options.chunkBytes = chunkBytes
        options.maxReportedIssues = 50
        let expected = try pairedAtOnce(linear, gravity, options)
        #expect(expected.unpaired > 1_000 && expected.samples.count > 10_000, "\(expected.unpaired)")
        let outOfOrder = try #require(expected.lineIssues.first)
        #expect(expected.lineIssues.count == 1 && outOfOrder.contains(": time goes backwards"), "\(outOfOrder)")
        var zip = ZipBuilder()
        zip.add("Accelerometer.csv", Array(linear.utf8))
        zip.add("Gravity.csv", Array(gravity.utf8))
        let path = try temporaryFile(zip.bytes(), name: "awkward.zip")
        for batched in [false, true] {
            var got: [AccelerationSample] = []
            let s = try AnyInput.read(path: path, options: options, batch: batched ? { got += $0 } : nil) {
                if case .sample(let x) = $0 { got.append(x) }
            }
            #expect(got == expected.samples, "batched \(batched)")
            #expect(
                s.samples == got.count && s.first?.nanosecondsSinceEpoch == got.first?.time.nanosecondsSinceEpoch
                    && s.last?.nanosecondsSinceEpoch == got.last?.time.nanosecondsSinceEpoch)
            #expect(s.skippedLines == expected.skipped)
            #expect(
                s.issues.map(\.message) == [
                    String(outOfOrder.drop { $0 != " " }.dropFirst()),
                    "\(expected.unpaired) of its 12013 rows have no row of \(path):Gravity.csv at the same time "
                        + "(within 1 µs): left out",
                    "with gravity added: absurd acceleration 550 m/s^2 (over 50 g)",
                ])
            #expect(
                s.issues.first.map { "\($0.file):\($0.line ?? 0)" }
                    == "\(path):Gravity.csv:\(outOfOrder.prefix { $0 != ":" })")
        }
        // Strict: the gravity row out of order is the error, after the accelerometer file read without one.
        options.strict = true
        let e = try #require(throws: InputError.self) { try readAll(path, options: options) }
        #expect(e.file == path + ":Gravity.csv" && "\(e.line ?? 0)" == outOfOrder.prefix { $0 != ":" }, "\(e)")
        // A bad accelerometer line as well: that one is the error, its file being read first.
        var bad = ZipBuilder()
        bad.add("Accelerometer.csv", Array((linear + "1,2,3\n").utf8))
        bad.add("Gravity.csv", Array(gravity.utf8))
        let badPath = try temporaryFile(bad.bytes(), name: "bad.zip")
        let b = try #require(throws: InputError.self) { try readAll(badPath, options: options) }
        #expect(b.file == badPath + ":Accelerometer.csv" && b.line == 12_015, "\(b)")
        // An empty Gravity.csv: its reader's error, once the accelerometer file is read.
        var empty = ZipBuilder()
        empty.add("Accelerometer.csv", Array(linear.utf8))
        empty.add("Gravity.csv", [])
        let emptyPath = try temporaryFile(empty.bytes(), name: "empty.zip")
        let m = try #require(throws: InputError.self) { try readAll(emptyPath) }
        #expect(m.file == emptyPath + ":Gravity.csv" && m.message == "file is empty", "\(m)")
    }

    @Test func accelerometerWithoutGravityIsRefusedOrTheUncalibratedOneRead() throws {
        var (zip, _) = try iOSRecording()
        zip.items.remove(at: 2)  // Gravity.csv
        let path = try temporaryFile(zip.bytes(), name: "walk.zip")
        let e = try #require(throws: InputError.self) { try readAll(path) }
        #expect(e.file == path + ":Accelerometer.csv")
        #expect(e.message.contains("no Gravity.csv (or AccelerometerUncalibrated.csv) beside it in this zip"), "\(e)")
        // iOS's uncalibrated accelerometer (g, with gravity) is read instead when it is there.
        let uncalibrated = "time,seconds_elapsed,z,y,x\n1705472086000000000,0.0,-0.98,0.01,0.02\n"
        zip.add("AccelerometerUncalibrated.csv", Array(uncalibrated.utf8))
        let (s, items) = try readAll(try temporaryFile(zip.bytes(), name: "walk.zip"))
        #expect(s.samples == 1 && abs((samples(items).first?.z ?? 0) + 0.98 * standardGravity) < 1e-9)
        // Gravity.csv that pairs with nothing: no acceleration with gravity at all.
        var shifted = try iOSRecording().zip
        let gravity = String(decoding: shifted.items[2].data, as: UTF8.self)
            .replacingOccurrences(of: "\n15", with: "\n25")
        shifted.items[2].data = Array(gravity.utf8)
        let none = try #require(throws: InputError.self) {
            try readAll(try temporaryFile(shifted.bytes(), name: "walk.zip"))
        }
        #expect(none.message.hasPrefix("none of its 3000 rows has a row of"), "\(none)")
    }

    // MARK: phyphox: meta/time.csv

    static let phyphoxFolder = "Acceleration with g 2024-01-17 08-14-46"
    static let startSeconds = "1.705472086068796E9"
    static let startNs: Int64 = 1_705_472_086_068_796_000

    func phyphoxExport(time: String) throws -> ZipBuilder {
        var zip = ZipBuilder()
        let csv = try Array(Data(contentsOf: URL(fileURLWithPath: try derivedWalk("phyphox_Raw Data.csv"))))
        zip.add(Self.phyphoxFolder + "/Raw Data.csv", csv)
        zip.add(Self.phyphoxFolder + "/meta/device.csv", Array("\"property\",\"value\"\n\"version\",\"1.1.12\"\n".utf8))
        zip.add(Self.phyphoxFolder + "/meta/time.csv", Array(time.utf8))
        return zip
    }

    static let header = "\"event\",\"experiment time\",\"system time\",\"system time text\"\n"

    @Test(arguments: ["zip", "folder"]) func phyphoxSamplesLandAtTheExperimentsStart(_ layout: String) throws {
        let time =
            Self.header + "\"START\",0.000000000E0,\(Self.startSeconds),\"2024-01-17 08:14:46.069 UTC+02:00\"\n"
            + "\"PAUSE\",6.000000000E1,1.705472146068796E9,\"2024-01-17 08:15:46.069 UTC+02:00\"\n"
        let zip = try phyphoxExport(time: time)
        let path =
            layout == "zip"
            ? try temporaryFile(zip.bytes(), name: "phyphox.zip") : try folder(zip, name: "phyphox export")
        let (plain, plainItems) = try readAll(try derivedWalk("phyphox_Raw Data.csv"))
        #expect(!plain.absoluteTime)
        let (s, items) = try readAll(path)
        #expect(s.format == "phyphox" && s.absoluteTime && s.skippedLines == 0)
        #expect(
            samples(items).map(\.time.nanosecondsSinceEpoch)
                == samples(plainItems).map { $0.time.nanosecondsSinceEpoch + Self.startNs })
        #expect(s.first?.nanosecondsSinceEpoch == Self.startNs)  // the walk's first row is at 0 s
        if layout == "folder" {
            // `Raw Data.csv` named on its own still finds meta/time.csv beside it.
            let (f, _) = try readAll(path + "/" + Self.phyphoxFolder + "/Raw Data.csv")
            #expect(f.first?.nanosecondsSinceEpoch == Self.startNs && f.absoluteTime)
        }
        // --start wins over the file.
        let (given, givenItems) = try readAll(
            path, options: ReadOptions(start: Instant(nanosecondsSinceEpoch: 1_000_000_000)))
        #expect(given.first?.nanosecondsSinceEpoch == 1_000_000_000 && samples(givenItems).count == plain.samples)
    }

    @Test func aPauseMovesTheSamplesAfterIt() throws {
        // Paused at 30 s for 100 s: experiment time stops, the wall clock does not.
        let resumed = "1.705472216068796E9"
        let time =
            Self.header + "\"START\",0.0,\(Self.startSeconds),\"2024-01-17 08:14:46.069 UTC+02:00\"\n"
            + "\"PAUSE\",30.0,1.705472116068796E9,\"2024-01-17 08:15:16.069 UTC+02:00\"\n"
            + "\"START\",30.0,\(resumed),\"2024-01-17 08:16:56.069 UTC+02:00\"\n"
        let path = try temporaryFile(try phyphoxExport(time: time).bytes(), name: "phyphox.zip")
        let (plain, plainItems) = try readAll(try derivedWalk("phyphox_Raw Data.csv"))
        let expected = samples(plainItems).map {
            $0.time.nanosecondsSinceEpoch + Self.startNs
                + ($0.time.nanosecondsSinceEpoch >= 30_000_000_000 ? 100_000_000_000 : 0)
        }
        let (s, items) = try readAll(path)
        #expect(samples(items).map(\.time.nanosecondsSinceEpoch) == expected)
        #expect(
            s.first?.nanosecondsSinceEpoch == expected.first && s.last?.nanosecondsSinceEpoch == expected.last
                && s.samples == plain.samples)
        var batched: [Int64] = []
        _ = try AnyInput.read(path: path, batch: { batched += $0.map(\.time.nanosecondsSinceEpoch) }) {
            if case .sample(let x) = $0 { batched.append(x.time.nanosecondsSinceEpoch) }
        }
        #expect(batched == expected)
    }

    @Test func phyphoxTimeFlavoursAndBadRows() throws {
        // "CSV (Semicolon, decimal comma)": the same start.
        let semicolon =
            "\"event\";\"experiment time\";\"system time\";\"system time text\"\n"
            + "\"START\";0,000000000E0;1,705472086068796E9;\"2024-01-17 08:14:46.069 UTC+02:00\"\n"
        let (s, _) = try readAll(try temporaryFile(try phyphoxExport(time: semicolon).bytes(), name: "p.zip"))
        #expect(s.first?.nanosecondsSinceEpoch == Self.startNs)
        // A system time that is not a number: the text, with its offset (08:14:46.069 at UTC+02:00).
        let text = Self.header + "\"START\",0.0,NaN,\"2024-01-17 08:14:46.069 UTC+02:00\"\n"
        let (t, _) = try readAll(try temporaryFile(try phyphoxExport(time: text).bytes(), name: "p.zip"))
        #expect(t.first?.nanosecondsSinceEpoch == 1_705_472_086_069_000_000 && t.skippedLines == 0)
        // A bad row is skipped and said (file and line); without any START the times stay relative, and it is said.
        let bad = Self.header + "\"START\",zero,\(Self.startSeconds),\"\"\n"
        let path = try temporaryFile(try phyphoxExport(time: bad).bytes(), name: "p.zip")
        let (b, _) = try readAll(path)
        #expect(!b.absoluteTime && b.first?.nanosecondsSinceEpoch == 0 && b.skippedLines == 2)
        #expect(
            b.issues.map(\.description) == [
                "\(path):\(Self.phyphoxFolder)/meta/time.csv:2: experiment time 'zero' is not a time in seconds",
                "\(path):\(Self.phyphoxFolder)/meta/time.csv: no START row with a system time: the times stay relative",
            ])
        // Not phyphox's time.csv at all: an error naming it.
        let other = try temporaryFile(try phyphoxExport(time: "a,b\n1,2\n").bytes(), name: "p.zip")
        let e = try #require(throws: InputError.self) { try readAll(other) }
        #expect(e.file == "\(other):\(Self.phyphoxFolder)/meta/time.csv" && e.line == 1, "\(e)")
    }

    // MARK: Zepp Life zip

    func zeppFixture(_ name: String) throws -> [UInt8] {
        let url = SharedData.packageRoot.appendingPathComponent("fixtures/formats/zepp_life/" + name)
        return try Array(Data(contentsOf: url))
    }

    static let minutes = "ACTIVITY_MINUTE/ACTIVITY_MINUTE_1718035200.csv"
    static let daily = "ACTIVITY/ACTIVITY_1718035200.csv"

    func zeppExport(minutes: Bool = true, daily: Bool = true) throws -> ZipBuilder {
        var zip = ZipBuilder()
        if daily { zip.add(Self.daily, try zeppFixture(Self.daily)) }
        zip.add("ACTIVITY_STAGE/ACTIVITY_STAGE_1718035200.csv", Array("date,start,stop,distance,calories,steps\n".utf8))
        if minutes { zip.add(Self.minutes, try zeppFixture(Self.minutes)) }
        zip.add("HEARTRATE_AUTO/HEARTRATE_AUTO_1718035200.csv", Array("date,time,heartRate\n".utf8))
        zip.add("SLEEP/SLEEP_1718035200.csv", Array("date,deepSleepTime,shallowSleepTime\n".utf8))
        return zip
    }

    func zepp(_ path: String, format: String? = nil) throws -> (ReadSummary, [StepReading]) {
        var options = ReadOptions(format: format)
        options.timeZone = TimeZone(identifier: "Europe/Berlin")
        let (s, items) = try readAll(path, options: options)
        return (s, readings(items))
    }

    @Test func zeppLifeZipReadsTheMinutesOrTheDays() throws {
        let path = try temporaryFile(try zeppExport().bytes(), name: "Zepp Life export.zip")
        let plainMinutes = try zepp(
            SharedData.packageRoot.appendingPathComponent("fixtures/formats/zepp_life/" + Self.minutes).path)
        let plainDaily = try zepp(
            SharedData.packageRoot.appendingPathComponent("fixtures/formats/zepp_life/" + Self.daily).path)
        let (m, mr) = try zepp(path)
        #expect(m.format == "zepp-life" && m.steps == plainMinutes.0.steps && mr == plainMinutes.1)
        #expect(try zepp(path, format: "zepp-life").1 == plainMinutes.1)
        let (d, dr) = try zepp(path, format: "zepp-life-daily")
        #expect(d.format == "zepp-life-daily" && d.steps == plainDaily.0.steps && dr == plainDaily.1)
        #expect(d.issues.first?.file == path + ":" + Self.daily)  // the negative count's line, in the entry
        // Only the days: detection reads them.
        let days = try temporaryFile(try zeppExport(minutes: false).bytes(), name: "z.zip")
        #expect(try zepp(days).1 == plainDaily.1)
        // The unzipped folder reads the same.
        #expect(try zepp(try folder(try zeppExport(), name: "zepp")).1 == plainMinutes.1)
    }

    @Test func zeppLifeZipWithoutStepFilesSaysWhatItHolds() throws {
        let path = try temporaryFile(try zeppExport(minutes: false, daily: false).bytes(), name: "z.zip")
        let e = try #require(throws: InputError.self) { try zepp(path) }
        #expect(e.file == path)
        #expect(
            e.message == "no ACTIVITY_MINUTE_<id>.csv or ACTIVITY_<id>.csv in this zip (a Zepp Life export without "
                + "its step files: it holds 3 files: ACTIVITY_STAGE/ACTIVITY_STAGE_1718035200.csv, "
                + "HEARTRATE_AUTO/HEARTRATE_AUTO_1718035200.csv, SLEEP/SLEEP_1718035200.csv)")
        let daysOnly = try temporaryFile(try zeppExport(minutes: false).bytes(), name: "z.zip")
        let named = try #require(throws: InputError.self) { try zepp(daysOnly, format: "zepp-life") }
        #expect(
            named.message.hasPrefix(
                "no ACTIVITY_MINUTE_<id>.csv in this zip, so nothing to read as zepp-life (it holds 4 files: "
                    + Self.daily), "\(named)")
        // A password-protected export: the entry is named and what to do said.
        var locked = try zeppExport()
        for k in locked.items.indices { locked.items[k].flags = 1 }
        let encrypted = try #require(throws: InputError.self) {
            try zepp(try temporaryFile(locked.bytes(), name: "z.zip"))
        }
        #expect(encrypted.message.contains("entry \(Self.minutes): is encrypted"), "\(encrypted)")
    }

    // MARK: The directory read once

    /// Detection hands the opened archive to the reader: removing the zip between the two cannot fail the read,
    /// which opening it again by name would.
    @Test func theZipIsOpenedOnceForDetectionAndReading() throws {
        // Android's TotalAcceleration.csv, and iOS's Accelerometer.csv with the Gravity.csv it is paired with.
        for zip in [try androidRecording(), try iOSRecording().zip] {
            let path = try temporaryFile(zip.bytes(), name: "walk.zip")
            let resolved = try InputFormats.resolveInput(path: path, options: ReadOptions())
            try FileManager.default.removeItem(atPath: path)
            var n = 0
            let s = try InputFormats.read(resolved, options: ReadOptions()) { _ in n += 1 }
            #expect(s.format == "sensor-logger" && n == 3000 && s.skippedLines == 0)
        }
        // A Gadgetbridge backup, read whole, gets the entry detection found.
        let backup = SharedData.packageRoot.appendingPathComponent("fixtures/formats/gadgetbridge_backup.zip").path
        let copy = try temporaryFile(try Array(Data(contentsOf: URL(fileURLWithPath: backup))), name: "gb.zip")
        let (plain, plainItems) = try readAll(backup)
        var options = ReadOptions()
        options.exportDatabases = SQLiteExports()
        let gb = try InputFormats.resolveInput(path: copy, options: options)
        try FileManager.default.removeItem(atPath: copy)
        var items: [InputItem] = []
        let g = try InputFormats.read(gb, options: options) { items.append($0) }
        #expect(g.format == "gadgetbridge" && g.steps == plain.steps && items == plainItems)
    }

    /// A zip holding one FIT file or one Google Fit stream: the whole reader reads the entry, not the zip.
    @Test func aZipHoldingOneWholeInputReadsIt() throws {
        let json = SharedData.packageRoot.appendingPathComponent("fixtures/formats/google_fit_estimated_steps.json")
        let cases = [
            (formatFixture("garmin-fenix-5-walk.fit"), "GARMIN/Activity/walk.fit", "garmin-fit"),
            (json.path, "Takeout/Fit/All Data/derived_com.google.step_count.delta_estimated_steps.json", "google-fit"),
        ]
        for (path, entry, format) in cases {
            let (plain, plainItems) = try readAll(path)
            var zip = ZipBuilder()
            zip.add(entry, try Array(Data(contentsOf: URL(fileURLWithPath: path))))
            let (s, items) = try readAll(try temporaryFile(zip.bytes(), name: "export.zip"))
            #expect(s.format == format && s.steps == plain.steps && items == plainItems && s.steps > 0)
        }
    }

    /// Follow mode reads a file's new lines: a recording's folder is refused, naming the file to follow.
    @Test func followModeRefusesARecordingsFolder() throws {
        let path = try folder(try androidRecording(), name: "walk")
        let e = try #require(throws: InputError.self) { try SourceReader.readNew(path: path, cursor: nil) { _ in } }
        #expect(e.message.contains("follow the file TotalAcceleration.csv instead"), "\(e)")
    }
}
