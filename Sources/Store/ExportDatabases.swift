import Foundation
import GRDBSQLite
import SensorInput

/// Opens the SQLite databases of app exports (Gadgetbridge's) for SensorInput's readers, which name tables and columns
/// and hold no SQL. Through the system SQLite as GRDB links it, not a GRDB queue: a file is opened as a URI with
/// `immutable=1` (it takes no lock, so the app writing its export is never blocked and never blocks the read), which
/// GRDB's queues cannot ask for, and bytes held in memory are loaded with `sqlite3_deserialize`, which GRDB has no call
/// for. The command and the agent hand this to the readers in `ReadOptions.exportDatabases`.
public struct SQLiteExports: ExportDatabaseOpener {
    public init() {}

    public func open(path: String) throws -> any ExportDatabase { try SQLiteExportDatabase(path: path) }

    public func open(bytes: [UInt8], name: String) throws -> any ExportDatabase {
        try SQLiteExportDatabase(bytes: bytes, name: name)
    }
}

/// One export database, read-only: the statements `ExportDatabase`'s calls stand for.
final class SQLiteExportDatabase: ExportDatabase {
    private var db: OpaquePointer?
    let name: String

    /// Opens the file at `path` read-only and immutable.
    init(path: String) throws {
        name = path
        let escaped =
            path.addingPercentEncoding(
                withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "?#%"))) ?? path
        let uri = "file:\(escaped)?immutable=1"
        let rc = sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nil)
        guard rc == SQLITE_OK else { throw error(rc, "cannot open the database") }
    }

    /// Opens a database held in memory (a copy of `bytes`), read-only.
    init(bytes: [UInt8], name: String) throws {
        self.name = name
        var rc = sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil)
        guard rc == SQLITE_OK else { throw error(rc, "cannot open an in-memory database") }
        guard let buffer = sqlite3_malloc64(UInt64(max(bytes.count, 1))) else {
            throw error(SQLITE_NOMEM, "out of memory")
        }
        bytes.withUnsafeBytes { if let base = $0.baseAddress { buffer.copyMemory(from: base, byteCount: bytes.count) } }
        let flags = UInt32(SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_READONLY)
        rc = sqlite3_deserialize(
            db, "main", buffer.assumingMemoryBound(to: UInt8.self), Int64(bytes.count), Int64(bytes.count), flags)
        guard rc == SQLITE_OK else { throw error(rc, "cannot load the database") }
    }

    deinit { sqlite3_close_v2(db) }

    func error(_ rc: Int32, _ what: String) -> InputError {
        let detail =
            db.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(rc))
        return InputError(file: name, message: "\(what): \(detail)")
    }

    func tableNames() throws -> [String] {
        var out: [String] = []
        try query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") {
            if let n = $0.text(0) { out.append(n) }
        }
        return out
    }

    func columnNames(of table: String) throws -> [String] {
        var out: [String] = []
        try query("PRAGMA table_info(\(Self.quoted(table)))") { if let n = $0.text(1) { out.append(n.uppercased()) } }
        return out
    }

    func largest(_ column: String, in table: String) throws -> Int64? {
        var out: Int64?
        try query("SELECT MAX(\(Self.identifier(column))) FROM \(Self.quoted(table))") { out = $0.integer(0) }
        return out
    }

    func distinctValues(of column: String, in table: String) throws -> [Int64?] {
        var out: [Int64?] = []
        try query("SELECT DISTINCT \(Self.identifier(column)) FROM \(Self.quoted(table))") { out.append($0.integer(0)) }
        return out
    }

    func scan(_ scan: TableScan, row: (any TableRow) throws -> Void) throws {
        var sql = "SELECT " + scan.columns.map { $0.map(Self.identifier) ?? "NULL" }.joined(separator: ", ")
        sql += " FROM \(Self.quoted(scan.table))"
        var arguments: [Int64] = []
        for (k, condition) in scan.conditions.enumerated() {
            sql += k == 0 ? " WHERE " : " AND "
            switch condition {
            case .greater(let column, let value):
                sql += "\(Self.identifier(column)) > ?"
                arguments.append(value)
            case .equal(let column, let value):
                sql += "\(Self.identifier(column)) = ?"
                arguments.append(value)
            }
        }
        if let order = scan.orderedBy { sql += " ORDER BY \(Self.identifier(order))" }
        try query(sql, arguments) { try row($0) }
    }

    /// Runs `sql` with integer `arguments`, calling `row` for each result row.
    private func query(_ sql: String, _ arguments: [Int64] = [], row: (Row) throws -> Void) throws {
        var statement: OpaquePointer?
        var rc = sqlite3_prepare_v2(db, sql, -1, &statement, nil)
        guard rc == SQLITE_OK, let statement else { throw error(rc, "cannot read the database") }
        defer { sqlite3_finalize(statement) }
        for (k, a) in arguments.enumerated() { sqlite3_bind_int64(statement, Int32(k + 1), a) }
        let r = Row(statement: statement)
        while true {
            rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { return }
            guard rc == SQLITE_ROW else { throw error(rc, "the database is damaged or unreadable") }
            try row(r)
        }
    }

    /// One result row: columns by position.
    struct Row: TableRow {
        let statement: OpaquePointer
        func integer(_ column: Int) -> Int64? {
            let c = Int32(column)
            return sqlite3_column_type(statement, c) == SQLITE_NULL ? nil : sqlite3_column_int64(statement, c)
        }
        func text(_ column: Int) -> String? {
            sqlite3_column_text(statement, Int32(column)).map { String(cString: $0) }
        }
    }

    /// A column name as the statement names it: bare when it is a plain name (as the readers' are), else quoted.
    static func identifier(_ name: String) -> String {
        let plain =
            name.utf8.first.map { !(48...57).contains($0) } == true
            && name.utf8.allSatisfy { $0 == 95 || (48...57).contains($0) || (65...90).contains($0 & ~0x20) }
        return plain ? name : quoted(name)
    }

    static func quoted(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

extension ReadOptions {
    /// SensorInput's default options, with app exports' SQLite databases (Gadgetbridge's) opened by `SQLiteExports`:
    /// what the commands and the agent start from, so that none of them reads such an export as an error for want of
    /// the opener SensorInput cannot link.
    public static func withSQLiteExports() -> ReadOptions {
        var options = ReadOptions()
        options.exportDatabases = SQLiteExports()
        return options
    }
}
