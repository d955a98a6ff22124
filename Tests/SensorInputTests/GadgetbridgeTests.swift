import Foundation
import GRDBSQLite
import Store
import TestSupport
import Testing
import WallTime

@testable import SensorInput

/// Writes a Gadgetbridge-like database with the system SQLite.
func makeDatabase(_ path: String, _ sql: String) throws {
    var db: OpaquePointer?
    guard sqlite3_open(path, &db) == SQLITE_OK else { throw InputError(file: path, message: "cannot create") }
    defer { sqlite3_close(db) }
    var message: UnsafeMutablePointer<CChar>?
    guard sqlite3_exec(db, sql, nil, nil, &message) == SQLITE_OK else {
        throw InputError(file: path, message: message.map { String(cString: $0) } ?? "exec failed")
    }
}

@Suite(.temporaryFolder) struct GadgetbridgeTests {
    static let schema = """
        CREATE TABLE DEVICE (_id INTEGER PRIMARY KEY, NAME TEXT, MANUFACTURER TEXT, IDENTIFIER TEXT, ALIAS TEXT);
        INSERT INTO DEVICE VALUES (1, 'Mi Band 6', 'Xiaomi', 'AA', 'left wrist'), (2, 'Bangle.js', 'Espruino', 'BB', NULL);
        CREATE TABLE MI_BAND_ACTIVITY_SAMPLE (TIMESTAMP INTEGER NOT NULL, DEVICE_ID INTEGER NOT NULL, USER_ID INTEGER,
          RAW_INTENSITY INTEGER, STEPS INTEGER, RAW_KIND INTEGER, HEART_RATE INTEGER, PRIMARY KEY (TIMESTAMP, DEVICE_ID)) WITHOUT ROWID;
        CREATE TABLE BANGLE_JSACTIVITY_SAMPLE (TIMESTAMP INTEGER NOT NULL, DEVICE_ID INTEGER NOT NULL, USER_ID INTEGER,
          STEPS INTEGER, HEART_RATE INTEGER, PRIMARY KEY (TIMESTAMP, DEVICE_ID)) WITHOUT ROWID;
        CREATE TABLE GARMIN_ACTIVITY_SAMPLE (TIMESTAMP INTEGER NOT NULL, DEVICE_ID INTEGER NOT NULL, USER_ID INTEGER,
          STEPS INTEGER, RAW_KIND INTEGER, PRIMARY KEY (TIMESTAMP, DEVICE_ID)) WITHOUT ROWID;
        CREATE TABLE XIAOMI_DAILY_SUMMARY_SAMPLE (TIMESTAMP INTEGER NOT NULL, DEVICE_ID INTEGER NOT NULL, STEPS INTEGER,
          PRIMARY KEY (TIMESTAMP, DEVICE_ID)) WITHOUT ROWID;
        """
    /// A local midnight (the machine's zone): the day boundary of cumulative tables and of the device choice.
    static let midnight: Int64 = {
        let start = Calendar.current.startOfDay(for: Date(timeIntervalSince1970: 1_763_000_000))
        return Int64(start.timeIntervalSince1970)
    }()

    /// The real Gadgetbridge export database, built in the test's folder from its committed `sqlite3 .dump`
    /// (`fixtures/gadgetbridge-fossil-hybridhr.sql`) as its origin says (`sqlite3 x.db < dump; VACUUM`); its path.
    static func realDatabase() throws -> String {
        let dump = try String(
            contentsOfFile: SharedData.fixture("gadgetbridge-fossil-hybridhr.sql"), encoding: .utf8
        )
        let path = try TemporaryFolder.file(Data(), name: "gadgetbridge-fossil-hybridhr.db")
        var db: OpaquePointer?
        try #require(sqlite3_open(path, &db) == SQLITE_OK)
        defer { sqlite3_close(db) }
        #expect(sqlite3_exec(db, dump + "\nVACUUM;", nil, nil, nil) == SQLITE_OK)
        return path
    }

    /// Reads `path` as the commands and the agent do: its database opened by Store's `SQLiteExports`.
    func read(_ path: String, options: ReadOptions = ReadOptions()) throws -> (ReadSummary, [StepReading]) {
        var options = options
        options.exportDatabases = options.exportDatabases ?? SQLiteExports()
        var readings: [StepReading] = []
        let s = try AnyInput.read(path: path, options: options) { if case .reading(let r) = $0 { readings.append(r) } }
        return (s, readings)
    }

    func rows(_ table: String, device: Int, from: Int64, _ steps: [Int]) -> String {
        steps.enumerated().map { k, s in
            "INSERT INTO \(table) (TIMESTAMP, DEVICE_ID, USER_ID, STEPS) VALUES (\(from + Int64(60 * k)), \(device), 1, \(s));"
        }.joined()
    }

    @Test func localMinutesAndDaysRoundTimesBefore1970Down() {
        #expect(TimeParsing.floorDiv(119, 60) == 1)
        #expect(TimeParsing.floorDiv(0, 60) == 0)
        #expect(TimeParsing.floorDiv(-1, 60) == -1)
        #expect(TimeParsing.floorDiv(-60, 60) == -1)
        #expect(TimeParsing.floorDiv(-61, 86_400) == -1)
    }

    @Test func realExportGivesFourSteps() throws {
        let path = try Self.realDatabase()
        let (s, readings) = try read(path)
        #expect(s.format == "gadgetbridge")
        #expect(s.steps == 4)
        #expect(
            readings == [
                StepReading(
                    start: Instant(nanosecondsSinceEpoch: 1_725_785_760_000_000_000),
                    end: Instant(nanosecondsSinceEpoch: 1_725_785_820_000_000_000), steps: 4)
            ])
    }

    @Test func zipBackupIsReadThroughItsDatabaseEntry() throws {
        let zip = SharedData.packageRoot.appendingPathComponent("fixtures/formats/gadgetbridge_backup.zip").path
        let (s, _) = try read(zip)
        #expect(s.format == "gadgetbridge")
        #expect(s.steps == 4)
    }

    @Test func notMeasuredCumulativeAndSummaryRowsAreHandled() throws {
        let dir = try TempDir()
        let path = dir.path("Gadgetbridge")
        let m = Self.midnight
        try makeDatabase(
            path,
            Self.schema
                + rows("MI_BAND_ACTIVITY_SAMPLE", device: 1, from: m + 3600, [-1, 10, -1, 5])  // -1 = not measured
                // Garmin: running daily totals, -1 gap fillers, reset at local midnight.
                + rows("GARMIN_ACTIVITY_SAMPLE", device: 2, from: m + 86_400 - 180, [10, 25, -1])
                + rows("GARMIN_ACTIVITY_SAMPLE", device: 2, from: m + 86_400, [5, 12])
                // ms, a daily total
                + "INSERT INTO XIAOMI_DAILY_SUMMARY_SAMPLE VALUES (\((m + 7200) * 1000), 1, 9999);")
        let (s, readings) = try read(path)
        // 15 (not 13: -1 is no data) + Garmin 10 + 15 + 5 + 7 (not the raw 52); the daily summary is not added.
        #expect(s.steps == 52)
        #expect(readings.filter { $0.startNs >= (m + 86_400) * 1_000_000_000 }.map(\.steps) == [5, 7])
    }

    @Test func aStateSavedByEarlierVersionsReadsAndWritesTheSame() throws {
        // As a version with "TABLE/device" string keys and [day, total] arrays wrote it.
        let old =
            #"{"counted":[20405,[1,2]],"lastTimestamp":{"GARMIN_ACTIVITY_SAMPLE\/2":1763000000,"#
            + #""MI_BAND_ACTIVITY_SAMPLE\/1":1762990000},"lastTotal":{"GARMIN_ACTIVITY_SAMPLE\/2":[20405,512]}}"#
        let state = try JSONDecoder().decode(GadgetbridgeFormat.State.self, from: Data(old.utf8))
        let garmin = GadgetbridgeFormat.TableDevice(table: "GARMIN_ACTIVITY_SAMPLE", device: 2)
        #expect(state.lastTimestamp[garmin] == 1_763_000_000)
        #expect(state.lastTimestamp[.init(table: "MI_BAND_ACTIVITY_SAMPLE", device: 1)] == 1_762_990_000)
        #expect(state.lastTotal[garmin] == .init(day: 20405, total: 512))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(String(decoding: try encoder.encode(state), as: UTF8.self) == old)
        #expect(GadgetbridgeFormat.TableDevice(text: "NO_DEVICE") == nil)
    }

    @Test func millisecondTimestampsAreTold() throws {
        let dir = try TempDir()
        let path = dir.path("ms.db")
        try makeDatabase(
            path,
            """
            CREATE TABLE XIAOMI_ACTIVITY_SAMPLE (TIMESTAMP INTEGER, DEVICE_ID INTEGER, STEPS INTEGER, PRIMARY KEY (TIMESTAMP, DEVICE_ID));
            INSERT INTO XIAOMI_ACTIVITY_SAMPLE VALUES (1763000000000, 1, 30);
            """)
        #expect(try read(path).1.first?.startNs == 1_763_000_000_000_000_000)
    }

    /// NOTES.md §4: tables may cover the same minutes, not only devices. One device whose samples moved from
    /// MI_BAND_ACTIVITY_SAMPLE to HUAMI_EXTENDED_ACTIVITY_SAMPLE (an app update) holds the overlap in both: counted
    /// once (the table with more steps that minute), under every policy; minutes in one table only all count.
    @Test func oneDeviceInTwoTablesCountsEachMinuteOnce() throws {
        let dir = try TempDir()
        let path = dir.path("Gadgetbridge.db")
        let t = Self.midnight + 36_000
        try makeDatabase(
            path,
            Self.schema.replacingOccurrences(of: "BANGLE_JSACTIVITY_SAMPLE", with: "HUAMI_EXTENDED_ACTIVITY_SAMPLE")
                + rows("MI_BAND_ACTIVITY_SAMPLE", device: 1, from: t, [10, 10, 10, 10])
                + rows("HUAMI_EXTENDED_ACTIVITY_SAMPLE", device: 1, from: t + 120, [11, 11, 11, 11]))
        // Minutes 0-1 band table only (20), 2-3 both (11 each kept, not 21), 4-5 the new table only (22).
        #expect(try read(path).0.steps == 20 + 22 + 22)
        var options = ReadOptions()
        options.overlap = .sumAll
        #expect(try read(path, options: options).0.steps == 64)
    }

    @Test func overlappingDevicesCountOneDevicePerMinute() throws {
        let dir = try TempDir()
        let path = dir.path("Gadgetbridge.db")
        let t = Self.midnight + 36_000
        try makeDatabase(
            path,
            Self.schema
                + rows("MI_BAND_ACTIVITY_SAMPLE", device: 1, from: t, [10, 10, 10, 10, 10])
                + rows("BANGLE_JSACTIVITY_SAMPLE", device: 2, from: t, [12, 12, 12, 12, 12, 12, 12, 12]))
        // Bangle.js has the most steps that day: its 8 minutes; the band's overlapping minutes are not added.
        #expect(try read(path).0.steps == 96)
        var options = ReadOptions()
        options.overlap = .preferSources(["left wrist"])  // the band, by its alias
        #expect(try read(path, options: options).0.steps == 5 * 10 + 3 * 12)
        options.overlap = .sumAll
        #expect(try read(path, options: options).0.steps == 146)
    }

    @Test func followModeReadsOnlyNewMinutesOfAReplacedExport() throws {
        let dir = try TempDir()
        let path = dir.path("Gadgetbridge")
        let t = Self.midnight + 36_000
        try makeDatabase(path, Self.schema + rows("MI_BAND_ACTIVITY_SAMPLE", device: 1, from: t, [10, 20]))
        var options = ReadOptions()
        options.exportDatabases = SQLiteExports()
        var (s, cursor) = try SourceReader.readNew(path: path, options: options, cursor: nil) { _ in }
        #expect(s.steps == 30)
        // Syncthing replaces the file: a new copy with two more band minutes and the Bangle's rows for all four.
        let next = dir.path("Gadgetbridge.tmp")
        try makeDatabase(
            next,
            Self.schema + rows("MI_BAND_ACTIVITY_SAMPLE", device: 1, from: t, [10, 20, 30, 40])
                + rows("BANGLE_JSACTIVITY_SAMPLE", device: 2, from: t, [50, 50, 50, 50, 50]))
        _ = rename(next, path)
        (s, cursor) = try SourceReader.readNew(path: path, options: options, cursor: cursor) { _ in }
        // Minutes 1-2 were counted already (from the band): only minutes 3-5, from the day's top device.
        #expect(s.steps == 150)
        (s, cursor) = try SourceReader.readNew(path: path, options: options, cursor: cursor) { _ in }
        #expect(s.steps == 0)
        // A device that appears later with 20-day-old history: those days are past what the state can check.
        try makeDatabase(
            next,
            Self.schema + rows("MI_BAND_ACTIVITY_SAMPLE", device: 1, from: t, [10, 20, 30, 40, 0, 7])
                + rows("BANGLE_JSACTIVITY_SAMPLE", device: 2, from: t - 20 * 86_400, [50]))
        _ = rename(next, path)
        (s, cursor) = try SourceReader.readNew(path: path, options: options, cursor: cursor) { _ in }
        #expect(s.steps == 7)
    }

    @Test func readsWhileTheAppHoldsAnExclusiveLock() throws {
        let dir = try TempDir()
        let path = dir.path("Gadgetbridge")
        try makeDatabase(path, Self.schema + rows("MI_BAND_ACTIVITY_SAMPLE", device: 1, from: Self.midnight, [10, 20]))
        var app: OpaquePointer?
        #expect(sqlite3_open(path, &app) == SQLITE_OK)
        defer { sqlite3_close(app) }
        // The app (or its export job) is writing: an ordinary reader would get SQLITE_BUSY; immutable=1 takes no lock.
        #expect(
            sqlite3_exec(
                app,
                "BEGIN EXCLUSIVE; INSERT INTO MI_BAND_ACTIVITY_SAMPLE (TIMESTAMP, DEVICE_ID, STEPS) VALUES (5, 1, 99);",
                nil, nil, nil) == SQLITE_OK)
        #expect(try read(path).0.steps == 30)
        #expect(sqlite3_exec(app, "COMMIT;", nil, nil, nil) == SQLITE_OK)  // and the writer was not blocked either
    }

    @Test func corruptAndWrongDatabasesAreClearErrors() throws {
        let dir = try TempDir()
        let real = try Data(contentsOf: URL(fileURLWithPath: try Self.realDatabase()))
        // Cut short: the schema pages are there, the table pages are not.
        let cut = try dir.write("cut.db", real.prefix(real.count / 3))
        #expect { try read(cut) } throws: {
            ($0 as? InputError).map { $0.file == cut && $0.description.contains("malformed") } ?? false
        }
        // Garbage after the header.
        var garbage = Data(real.prefix(100))
        garbage.append(Data((0..<8000).map { UInt8(truncatingIfNeeded: $0 &* 7919) }))
        let g = try dir.write("garbage.db", garbage)
        #expect { try read(g) } throws: { ($0 as? InputError)?.file == g }
        // An SQLite database of something else: said, nothing counted.
        let other = dir.path("other.db")
        try makeDatabase(other, "CREATE TABLE notes (text TEXT);")
        let (s, _) = try read(other)
        #expect(s.steps == 0)
        #expect(s.issues.first?.message.contains("no activity-sample table") == true)
        // A zip without the database, and a cut zip.
        let zip = try Data(
            contentsOf: SharedData.packageRoot.appendingPathComponent("fixtures/formats/gadgetbridge_backup.zip"))
        let cutZip = try dir.write("cut.zip", zip.prefix(zip.count - 30))
        #expect { try read(cutZip) } throws: { ($0 as? InputError)?.message.contains("cut short (truncated)") ?? false }
        var renamed = [UInt8](zip)
        for i in 0..<(renamed.count - 20) where Array(renamed[i..<(i + 21)]) == Array("database/Gadgetbridge".utf8) {
            renamed[i] = UInt8(ascii: "x")
            renamed[i + 20] = UInt8(ascii: "x")
        }
        let noEntry = try dir.write("other.zip", Data(renamed))
        #expect { try read(noEntry) } throws: {
            let message = ($0 as? InputError)?.message ?? ""
            return message.contains("no recording steptweet reads") && message.contains("xatabase/Gadgetbridgx")
        }
    }

    /// SensorInput links no SQLite: a reader given no opener of export databases says so, naming the file, instead
    /// of counting nothing.
    @Test func withoutAnExportDatabaseOpenerTheFileIsNamed() throws {
        let dir = try TempDir()
        let path = dir.path("Gadgetbridge")
        try makeDatabase(path, Self.schema + rows("MI_BAND_ACTIVITY_SAMPLE", device: 1, from: Self.midnight, [10]))
        let error = try #require(throws: InputError.self) {
            try AnyInput.read(path: path, options: ReadOptions()) { _ in }
        }
        #expect(error.file == path && error.message.contains("needs an SQLite reader"))
    }

    /// Table names come from the file (quoted whatever they hold); a DEVICE table without NAME is the error it was
    /// when the reader wrote its own SQL.
    @Test func tableNamesAreQuotedAndAMissingColumnIsNamed() throws {
        let dir = try TempDir()
        let odd = dir.path("odd.db")
        try makeDatabase(
            odd,
            """
            CREATE TABLE "ODD ""NAME""_SAMPLE" (TIMESTAMP INTEGER, STEPS INTEGER);
            INSERT INTO "ODD ""NAME""_SAMPLE" VALUES (\(Self.midnight), 12), (\(Self.midnight + 60), 5);
            """)
        #expect(try read(odd).0.steps == 17)
        let nameless = dir.path("nameless.db")
        try makeDatabase(
            nameless,
            """
            CREATE TABLE DEVICE (_id INTEGER PRIMARY KEY, IDENTIFIER TEXT);
            CREATE TABLE A_SAMPLE (TIMESTAMP INTEGER, DEVICE_ID INTEGER, STEPS INTEGER);
            INSERT INTO A_SAMPLE VALUES (\(Self.midnight), 1, 12);
            """)
        let error = try #require(throws: InputError.self) { try read(nameless) }
        #expect(error.file == nameless && error.message == "cannot read the database: no such column: NAME")
    }
}
