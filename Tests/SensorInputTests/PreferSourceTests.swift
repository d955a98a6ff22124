import Foundation
import Store
import TestSupport
import Testing

@testable import SensorInput

/// `--prefer-source` and `source.prefer` match a source as a user writes it: a name the device's name or alias
/// contains, ignoring case, as the phones that push are matched; a name that matches none of several devices is an
/// error naming them (it silently counted the device with the most steps).
@Suite(.temporaryFolder) struct PreferSourceTests {
    /// A Gadgetbridge database of the real sample's schema with a Fossil and a Mi Band over the same 120 minutes:
    /// the Fossil 43 steps a minute (5,160), the Mi Band 36 (4,320).
    static func twoDevices() throws -> String {
        let path = try TemporaryFolder.file(Data(), name: "Gadgetbridge.db")
        let t = GadgetbridgeTests.midnight + 36_000
        var sql = """
            BEGIN;
            CREATE TABLE DEVICE (_id INTEGER PRIMARY KEY, NAME TEXT, MANUFACTURER TEXT, IDENTIFIER TEXT, ALIAS TEXT);
            INSERT INTO DEVICE VALUES (1, 'Fossil Q Explorist HR', 'Fossil', 'AA', NULL), (2, 'Mi Band 4', 'Xiaomi', 'BB', NULL);
            CREATE TABLE HYBRID_HRACTIVITY_SAMPLE (TIMESTAMP INTEGER NOT NULL, DEVICE_ID INTEGER NOT NULL, USER_ID INTEGER,
              STEPS INTEGER, PRIMARY KEY (TIMESTAMP, DEVICE_ID)) WITHOUT ROWID;
            CREATE TABLE MI_BAND_ACTIVITY_SAMPLE (TIMESTAMP INTEGER NOT NULL, DEVICE_ID INTEGER NOT NULL, USER_ID INTEGER,
              STEPS INTEGER, PRIMARY KEY (TIMESTAMP, DEVICE_ID)) WITHOUT ROWID;
            """
        for k in 0..<120 {
            sql += "INSERT INTO HYBRID_HRACTIVITY_SAMPLE VALUES (\(t + Int64(60 * k)), 1, 1, 43);"
            sql += "INSERT INTO MI_BAND_ACTIVITY_SAMPLE VALUES (\(t + Int64(60 * k)), 2, 1, 36);"
        }
        try makeDatabase(path, sql + "COMMIT;")
        return path
    }

    func steps(_ path: String, prefer: [String]) throws -> Int {
        var options = ReadOptions()
        options.exportDatabases = SQLiteExports()
        if !prefer.isEmpty { options.overlap = .preferSources(prefer) }
        return try AnyInput.read(path: path, options: options) { _ in }.steps
    }

    @Test func aDeviceIsPreferredByPartOfItsNameIgnoringCase() throws {
        let path = try Self.twoDevices()
        #expect(try steps(path, prefer: []) == 5_160)
        #expect(try steps(path, prefer: ["Mi Band 4"]) == 4_320)
        #expect(try steps(path, prefer: ["mi band"]) == 4_320)
        #expect(try steps(path, prefer: ["Pixel 8", "band"]) == 4_320)
        #expect(try steps(path, prefer: ["2"]) == 4_320)  // its id, as before
    }

    @Test func aPreferenceThatMatchesNoDeviceIsANoteNamingThem() throws {
        let path = try Self.twoDevices()
        var options = ReadOptions()
        options.exportDatabases = SQLiteExports()
        options.overlap = .preferSources(["Garmin"])
        let summary = try AnyInput.read(path: path, options: options) { _ in }
        #expect(summary.steps == 5_160)  // the usual choice: nothing valid is lost
        let text = summary.notes.joined(separator: "\n")
        #expect(
            text.contains("\"Garmin\"") && text.contains("\"Fossil Q Explorist HR\"") && text.contains("\"Mi Band 4\""))
        #expect(text.contains("most steps"))
    }

    /// Apple Health's sources by the same rule: "watch" is the watch, whatever its owner called it.
    @Test func appleHealthSourcesMatchTheSameWay() throws {
        var records = ""
        for k in 0..<10 {
            let start = String(format: "2025-11-20 10:%02d:00 +0000", k)
            let end = String(format: "2025-11-20 10:%02d:59 +0000", k)
            records += """
                 <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Ann’s iPhone" unit="count" startDate="\(start)" endDate="\(end)" value="50"/>
                 <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Ann’s Apple Watch" unit="count" startDate="\(start)" endDate="\(end)" value="40"/>

                """
        }
        let xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"en_GB\">\n\(records)</HealthData>\n"
        let path = try TemporaryFolder.file(Data(xml.utf8), name: "export.xml")
        #expect(try steps(path, prefer: []) == 500)
        #expect(try steps(path, prefer: ["watch"]) == 400)
        #expect(try steps(path, prefer: ["Ann’s Apple Watch"]) == 400)
    }
}
