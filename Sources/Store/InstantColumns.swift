import GRDB
import WallTime

/// An instant in a column is the integer of nanoseconds since the epoch the state has always held (`…_ns`), so
/// records read and write `Instant` with the database unchanged.
extension Instant: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { nanosecondsSinceEpoch.databaseValue }

    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Instant? {
        Int64.fromDatabaseValue(dbValue).map(Instant.init(nanosecondsSinceEpoch:))
    }
}
