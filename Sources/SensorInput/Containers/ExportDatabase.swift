/// An app's export database (Gadgetbridge's), read by table and column names: SensorInput holds no SQL and links no
/// SQLite. Store opens such files (`SQLiteExports`: read-only and immutable, or a copy held in memory) and the command
/// or the agent hands its opener to the readers in `ReadOptions.exportDatabases`.
public protocol ExportDatabase: AnyObject {
    /// Names of the tables, sorted.
    func tableNames() throws -> [String]
    /// Upper-cased names of the columns of `table`.
    func columnNames(of table: String) throws -> [String]
    /// The largest integer in `column` of `table`; nil when the table has no rows.
    func largest(_ column: String, in table: String) throws -> Int64?
    /// The distinct values of `column` in `table` (nil: NULL).
    func distinctValues(of column: String, in table: String) throws -> [Int64?]
    /// Calls `row` for each row `scan` selects, in its order.
    func scan(_ scan: TableScan, row: (any TableRow) throws -> Void) throws
}

/// Opens export databases: a file, or bytes held in memory (a zip entry, pushed or fuzzed bytes) named for errors.
/// Failures are `InputError`s naming the file and what SQLite said.
public protocol ExportDatabaseOpener: Sendable {
    func open(path: String) throws -> any ExportDatabase
    func open(bytes: [UInt8], name: String) throws -> any ExportDatabase
}

/// The rows of one table: the columns to read (nil: an absent column, read as NULL), the conditions all rows meet, and
/// the column they are ordered by.
public struct TableScan: Sendable, Equatable {
    /// A condition on an integer column.
    public enum Condition: Sendable, Equatable {
        case greater(String, than: Int64)
        case equal(String, to: Int64)
    }

    public var table: String
    public var columns: [String?]
    public var conditions: [Condition]
    public var orderedBy: String?

    public init(table: String, columns: [String?], conditions: [Condition] = [], orderedBy: String? = nil) {
        self.table = table
        self.columns = columns
        self.conditions = conditions
        self.orderedBy = orderedBy
    }
}

/// One row of a `TableScan`, its columns by position.
public protocol TableRow {
    func integer(_ column: Int) -> Int64?
    func text(_ column: Int) -> String?
}
