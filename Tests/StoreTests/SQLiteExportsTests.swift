import Foundation
import GRDB
import SensorInput
import TestSupport
import Testing

@testable import Store

/// Store opens app exports' databases for SensorInput's readers: what each call of `ExportDatabase` reads, from a file
/// and from bytes in memory, and the errors that name the file.
@Suite struct SQLiteExportsTests {
    /// A small export: two devices, a NULL device and a NULL step count, rows out of order.
    static let sql = """
        CREATE TABLE DEVICE (_id INTEGER PRIMARY KEY, NAME TEXT);
        INSERT INTO DEVICE VALUES (1, 'band'), (2, 'watch');
        CREATE TABLE "A ""B""_SAMPLE" (TIMESTAMP INTEGER, DEVICE_ID INTEGER, STEPS INTEGER);
        INSERT INTO "A ""B""_SAMPLE" VALUES (300, 1, 3), (100, 1, 1), (200, 2, 2), (400, NULL, NULL), (50, 1, 9);
        CREATE TABLE EMPTY_SAMPLE (TIMESTAMP INTEGER);
        """

    func database(in dir: TempDir) throws -> String {
        let path = dir.path("export.db")
        try DatabaseQueue(path: path).write { try $0.execute(sql: Self.sql) }
        return path
    }

    func rows(_ db: any ExportDatabase, _ scan: TableScan) throws -> [[Int64?]] {
        var out: [[Int64?]] = []
        try db.scan(scan) { r in out.append((0..<scan.columns.count).map { r.integer($0) }) }
        return out
    }

    @Test(arguments: [false, true]) func readsTablesColumnsAndRowsByName(inMemory: Bool) throws {
        let dir = try TempDir()
        let path = try database(in: dir)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let db = try inMemory ? SQLiteExports().open(bytes: bytes, name: "x.db") : SQLiteExports().open(path: path)
        let table = #"A "B"_SAMPLE"#
        #expect(try db.tableNames() == [table, "DEVICE", "EMPTY_SAMPLE"])
        #expect(try db.columnNames(of: table) == ["TIMESTAMP", "DEVICE_ID", "STEPS"])
        #expect(try db.largest("TIMESTAMP", in: table) == 400)
        #expect(try db.largest("TIMESTAMP", in: "EMPTY_SAMPLE") == nil)
        #expect(try Set(db.distinctValues(of: "DEVICE_ID", in: table)) == [1, 2, nil])
        let scan = TableScan(
            table: table, columns: ["TIMESTAMP", "STEPS", nil],
            conditions: [.greater("TIMESTAMP", than: 60), .equal("DEVICE_ID", to: 1)], orderedBy: "TIMESTAMP")
        #expect(try rows(db, scan) == [[100, 1, nil], [300, 3, nil]])
        var names: [String] = []
        try db.scan(TableScan(table: "DEVICE", columns: ["NAME"], orderedBy: "_id")) { names.append($0.text(0) ?? "") }
        #expect(names == ["band", "watch"])
    }

    @Test func errorsNameTheFileAndWhatSQLiteSaid() throws {
        let dir = try TempDir()
        let missing = dir.path("missing.db")
        let open = try #require(throws: InputError.self) { try SQLiteExports().open(path: missing) }
        #expect(open.file == missing && open.message.hasPrefix("cannot open the database: "))
        let garbage = try SQLiteExports().open(bytes: Array(repeating: 7, count: 4096), name: "garbage.db")
        let read = try #require(throws: InputError.self) { try garbage.tableNames() }
        #expect(read.file == "garbage.db" && read.message == "cannot read the database: file is not a database")
        let db = try SQLiteExports().open(path: try database(in: dir))
        let column = try #require(throws: InputError.self) {
            try db.scan(TableScan(table: "DEVICE", columns: ["ALIAS"])) { _ in }
        }
        #expect(column.message == "cannot read the database: no such column: ALIAS")
    }

    /// The options the commands and the agent start from open an app's export database, which SensorInput's own
    /// defaults refuse, naming the file.
    @Test func theCommandsOptionsReadAnExportThatPlainOptionsRefuse() throws {
        let path = SharedData.fixture("formats/gadgetbridge_backup.zip")
        var readings = 0
        let summary = try AnyInput.read(path: path, options: .withSQLiteExports()) {
            if case .reading = $0 { readings += 1 }
        }
        #expect(summary.format == "gadgetbridge" && readings > 0)
        let refused = try #require(throws: InputError.self) {
            try AnyInput.read(path: path, options: ReadOptions()) { _ in }
        }
        #expect(refused.file.hasPrefix(path), "\(refused)")
    }
}
