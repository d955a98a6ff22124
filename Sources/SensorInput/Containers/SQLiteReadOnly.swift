import Foundation
import GRDBSQLite

/// A read-only SQLite connection through the system library (GRDB's `GRDBSQLite` module, no GRDB itself): opened
/// with `immutable=1`, so it takes no lock and never blocks (or is blocked by) the app writing its export; or a
/// database held in memory (`sqlite3_deserialize`, for a zip entry or fuzzing).
final class SQLiteReadOnly {
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

    /// Runs `sql` with integer `arguments`, calling `row` for each result row.
    func query(_ sql: String, _ arguments: [Int64] = [], row: (Row) throws -> Void) throws {
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

    /// One result row: columns by index.
    struct Row {
        let statement: OpaquePointer
        func int(_ column: Int32) -> Int64? {
            sqlite3_column_type(statement, column) == SQLITE_NULL ? nil : sqlite3_column_int64(statement, column)
        }
        func text(_ column: Int32) -> String? {
            sqlite3_column_text(statement, column).map { String(cString: $0) }
        }
    }

    /// Names of the tables.
    func tables() throws -> [String] {
        var out: [String] = []
        try query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") {
            if let n = $0.text(0) { out.append(n) }
        }
        return out
    }

    /// Upper-cased column names of `table`.
    func columns(_ table: String) throws -> [String] {
        var out: [String] = []
        try query("PRAGMA table_info(\(Self.quoted(table)))") { if let n = $0.text(1) { out.append(n.uppercased()) } }
        return out
    }

    static func quoted(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
