import Foundation
import GRDB
import TestSupport
import Testing

@testable import Store

/// The Store module keeps the state's schema as released and is the only place that speaks SQL (issue #46).
@Suite struct StoreBoundaryTests {
    /// A database records the identifiers of the migrations it ran: renaming, dropping or reordering one would run a
    /// migration again on an existing database, or skip one.
    @Test func theMigratorKeepsEveryReleasedIdentifierInOrder() {
        #expect(
            Migrations.migrator.migrations == [
                "v1", "v2-unconfirmed", "v3-target-info", "v4-agent-status", "v5-last-reading", "v6-skipped-lines",
                "v7-late-steps", "v8-received", "v9-remote-position", "v10-device-overlap", "v11-outbox-image",
                "v12-steps-compaction", "v13-received-checkpoint", "v14-received-total", "v15-received-refusal",
                "v16-adding-key", "v17-reading-sent", "v18-received-counted", "v19-outbox-key-memory",
                "v20-agent-receiver", "v21-chart-request", "v22-outbox-last-attempt", "v23-step-log-seq-at",
                "v24-reading-ledger", "v25-step-log-seq-device-ts", "v26-reading-spill",
            ])
    }

    /// Up to `v20-agent-receiver`, a new database gets the very schema the migrations gave it before they were
    /// gathered in one place (`fixtures/state-schema-v20.sql`, dumped from a database that the release before
    /// created); the migrations since add a table (`v21-chart-request`) and a column at the end of the outbox's
    /// (`v22-outbox-last-attempt`), the reading ledger's two tables (`v24-reading-ledger`) and the gathered records'
    /// two (`v26-reading-spill`), and change nothing else.
    @Test func aNewDatabaseHasTheReleasedSchema() throws {
        let released = try String(contentsOfFile: SharedData.fixture("state-schema-v20.sql"), encoding: .utf8)
        #expect(try schema(upTo: "v20-agent-receiver") == released)
        let entries = { (dump: String) in Set(dump.components(separatedBy: "-- ").filter { !$0.isEmpty }) }
        let all = entries(try schema())
        let outbox = try #require(entries(released).first { $0.hasPrefix("table outbox\n") })
        #expect(all.isSuperset(of: entries(released).subtracting([outbox])))
        #expect(
            all.subtracting(entries(released)) == [
                """
                table outbox_chart_request
                CREATE TABLE "outbox_chart_request" ("idempotency_key" TEXT PRIMARY KEY NOT NULL, "inputs" BLOB NOT NULL, "created_ns" INTEGER NOT NULL);

                """,
                outbox.replacingOccurrences(
                    of: "key_scope TEXT, UNIQUE", with: "key_scope TEXT, last_attempt_ns INTEGER, UNIQUE"),
                """
                table reading_ledger
                CREATE TABLE reading_ledger (
                    source TEXT NOT NULL, hour INTEGER NOT NULL, counted BLOB NOT NULL, pending BLOB,
                    PRIMARY KEY (source, hour)) WITHOUT ROWID;

                """,
                """
                table reading_ledger_state
                CREATE TABLE reading_ledger_state (
                    source TEXT PRIMARY KEY NOT NULL, mode TEXT NOT NULL, from_second INTEGER);

                """,
                """
                table reading_spill
                CREATE TABLE reading_spill (
                    source_id INTEGER NOT NULL, start_ns INTEGER NOT NULL, number INTEGER NOT NULL,
                    end_ns INTEGER NOT NULL, origin TEXT NOT NULL, steps INTEGER NOT NULL,
                    PRIMARY KEY (source_id, start_ns, number)) WITHOUT ROWID;

                """,
                """
                table reading_spill_source
                CREATE TABLE reading_spill_source (id INTEGER PRIMARY KEY, source TEXT NOT NULL UNIQUE);

                """,
            ])
    }

    /// The tables and indexes of a new database migrated up to `last` (all when nil), as `sqlite_master` has them.
    func schema(upTo last: String? = nil) throws -> String {
        let queue = try DatabaseQueue()
        if let last {
            try Migrations.migrator.migrate(queue, upTo: last)
        } else {
            try Migrations.migrator.migrate(queue)
        }
        return try queue.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT type, name, sql FROM sqlite_master
                    WHERE name NOT LIKE 'sqlite_%' AND name != 'grdb_migrations' ORDER BY type, name
                    """
            ).map { row in "-- \(row["type"] as String) \(row["name"] as String)\n\(row["sql"] as String);\n" }
                .joined()
        }
    }

    /// No file in Sources outside Store imports GRDB (or GRDB's SQLite module) or holds a statement of SQL: not even
    /// SensorInput's reader of Gadgetbridge exports, which names tables and columns to Store's `SQLiteExports`.
    @Test func onlyStoreImportsGRDBOrWritesSQL() throws {
        let sources = SharedData.packageRoot.appendingPathComponent("Sources")
        let statements = try NSRegularExpression(
            pattern: #"\b(SELECT .+ FROM|INSERT (OR \w+ )?INTO|UPDATE \w+ SET|DELETE FROM|CREATE (TABLE|INDEX)|"#
                + #"ALTER TABLE|PRAGMA \w+|sqlite3_\w+\()"#)
        var found: [String] = []
        let files = FileManager.default.enumerator(atPath: sources.path)?.compactMap { $0 as? String } ?? []
        for file in files where file.hasSuffix(".swift") && !file.hasPrefix("Store/") {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let line = String(line)
                let range = NSRange(line.startIndex..., in: line)
                if line.hasPrefix("import GRDB") || statements.firstMatch(in: line, range: range) != nil {
                    found.append("Sources/\(file):\(n + 1): \(line)")
                }
            }
        }
        #expect(files.contains("Store/StateStore.swift"), "the scan reads Sources")
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
    }
}
