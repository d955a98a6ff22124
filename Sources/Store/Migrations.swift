import GRDB

/// Every schema change of the state, in the one migrator, in the order databases received them. A migration's
/// identifier is recorded in `grdb_migrations` once it ran: the ones below keep their identifiers and their effect as
/// released (an existing database is never migrated again), and a change to the schema is a new migration at the end,
/// written with GRDB's table builders (`db.create(table:)`, `db.alter(table:)`).
enum Migrations {
    static var migrator: DatabaseMigrator {
        var m = DatabaseMigrator()
        m.registerMigration("v1", migrate: v1)
        m.registerMigration("v2-unconfirmed") { db in
            // 1 while the last attempt's fate is unknown: counted but not answered (a crash), or answered ambiguously.
            try db.execute(sql: "ALTER TABLE outbox ADD COLUMN unconfirmed INTEGER NOT NULL DEFAULT 0")
        }
        m.registerMigration("v3-target-info") { db in
            // What targets read from their servers (Mastodon's character limit), with when (`TargetInfoRecord`).
            try db.execute(
                sql: "CREATE TABLE target_info (key TEXT PRIMARY KEY, value TEXT NOT NULL, stored_ns INTEGER NOT NULL)")
        }
        m.registerMigration("v4-agent-status", migrate: agentStatus)
        m.registerMigration("v5-last-reading") { db in
            // The end of the latest step reading counted from a source, and, while a source whose position was lost
            // is read again from its start, the end up to which its readings are not counted again.
            try db.execute(
                sql: """
                    ALTER TABLE source_cursor ADD COLUMN last_reading_end_ns INTEGER;
                    ALTER TABLE source_cursor ADD COLUMN skip_readings_through_ns INTEGER;
                    """)
        }
        m.registerMigration("v6-skipped-lines") { db in
            // Malformed lines skipped that no fetch has reported yet (JSON), and each fetch's warnings (JSON array).
            try db.execute(
                sql: """
                    ALTER TABLE source_cursor ADD COLUMN skipped_lines TEXT;
                    ALTER TABLE fetch_history ADD COLUMN warnings TEXT;
                    """)
        }
        m.registerMigration("v7-late-steps") { db in
            // Steps stored for time a posted window already covered, waiting for the next window; and how many of
            // them each fetch posted.
            try db.execute(
                sql: """
                    ALTER TABLE window_state ADD COLUMN late_steps INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE fetch_history ADD COLUMN late_steps INTEGER;
                    """)
        }
        m.registerMigration("v8-received", migrate: received)
        m.registerMigration("v9-remote-position") { db in
            // Where a source pulled from a phone (phyphox) stopped: its session, time reference and last buffer time
            // (JSON), kept beside its detector.
            try db.execute(sql: "ALTER TABLE source_cursor ADD COLUMN remote_position TEXT")
        }
        m.registerMigration("v10-device-overlap", migrate: deviceOverlap)
        registerV11(&m)
        registerV16(&m)
        return m
    }

    /// The migrations v11 to v15.
    static func registerV11(_ m: inout DatabaseMigrator) {
        m.registerMigration("v11-outbox-image") { db in
            // A window's chart, once per idempotency key (`OutboxImageRecord`).
            try db.execute(
                sql: """
                    CREATE TABLE outbox_image (
                        idempotency_key TEXT PRIMARY KEY, png BLOB NOT NULL, alt TEXT NOT NULL, width INTEGER NOT NULL,
                        height INTEGER NOT NULL, created_ns INTEGER NOT NULL)
                    """)
        }
        m.registerMigration("v12-steps-compaction") { db in
            // One row: the second up to which `steps` holds minute rows only (`StepsCompaction`).
            try db.execute(
                sql: """
                    CREATE TABLE steps_compaction (id INTEGER PRIMARY KEY CHECK (id = 1), until_second INTEGER NOT NULL);
                    """)
        }
        m.registerMigration("v13-received-checkpoint") { db in
            // Where each device's readings were last recounted up to (`ReceivedCheckpointRecord`).
            try db.execute(
                sql: """
                    CREATE TABLE received_checkpoint (
                        device TEXT PRIMARY KEY, before_ns INTEGER NOT NULL, microsteps INTEGER NOT NULL) WITHOUT ROWID;
                    """)
        }
        m.registerMigration("v14-received-total", migrate: receivedTotal)
        m.registerMigration("v15-received-refusal") { db in
            // Each device's last payload with items left out (`ReceivedDevice.lastRefusal`).
            try db.execute(
                sql: """
                    ALTER TABLE received_device ADD COLUMN last_refusal_ns INTEGER;
                    ALTER TABLE received_device ADD COLUMN last_refusal TEXT;
                    """)
        }
    }

    /// The migrations from v16 on: a new one goes at the end.
    static func registerV16(_ m: inout DatabaseMigrator) {
        m.registerMigration("v16-adding-key", migrate: addingKey)
        m.registerMigration("v17-reading-sent") { db in
            // When the app sent each reading, as the payload says (Health Connect's `timestamp`): a send older than the
            // one a reading was kept from does not replace it; NULL where the app says not.
            try db.execute(sql: "ALTER TABLE received_reading ADD COLUMN sent_ns INTEGER")
        }
        m.registerMigration("v18-received-counted") { db in
            // The spans of each sample stream already fed and removed (`ReceivedCountedRecord`).
            try db.execute(
                sql: """
                    CREATE TABLE received_counted (
                        stream TEXT NOT NULL, start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL,
                        PRIMARY KEY (stream, start_ns)) WITHOUT ROWID;
                    """)
        }
        m.registerMigration("v19-outbox-key-memory") { db in
            // When and under which target key scope an unconfirmed delivery's first attempt was made.
            try db.execute(
                sql: """
                    ALTER TABLE outbox ADD COLUMN unconfirmed_since_ns INTEGER;
                    ALTER TABLE outbox ADD COLUMN key_scope TEXT;
                    """)
        }
        m.registerMigration("v20-agent-receiver") { db in
            // The receiver's line of the agent's status.
            try db.execute(sql: "ALTER TABLE agent_status ADD COLUMN receiver TEXT")
        }
        m.registerMigration("v21-chart-request") { db in
            // A window's chart to draw after the commit that closed the window (`ChartRequestRecord`).
            try db.create(table: "outbox_chart_request") { t in
                t.primaryKey("idempotency_key", .text)
                t.column("inputs", .blob).notNull()
                t.column("created_ns", .integer).notNull()
            }
        }
        m.registerMigration("v22-outbox-last-attempt") { db in
            // When a post was last tried, on the clock of that fetch: a clock set back since then ends its wait.
            try db.execute(sql: "ALTER TABLE outbox ADD COLUMN last_attempt_ns INTEGER")
        }
        m.registerMigration("v23-step-log-seq-at") { db in try seqKeyAt(db) }
        m.registerMigration("v24-reading-ledger") { db in
            // What a followed file's readings counted per minute (`ReadingLedger`), an hour a row, and where each
            // source stands. A source read before has no state row: it is counted as before until its file starts
            // over, and its ledger is filled then.
            try db.execute(
                sql: """
                    CREATE TABLE reading_ledger (
                        source TEXT NOT NULL, hour INTEGER NOT NULL, counted BLOB NOT NULL, pending BLOB,
                        PRIMARY KEY (source, hour)) WITHOUT ROWID;
                    CREATE TABLE reading_ledger_state (
                        source TEXT PRIMARY KEY NOT NULL, mode TEXT NOT NULL, from_second INTEGER);
                    """)
        }
        m.registerMigration("v25-step-log-seq-device-ts") { db in try seqKeyDeviceTs(db) }
        m.registerMigration("v26-reading-spill", migrate: readingSpill)
    }

    /// The first schema: steps per second, source cursors, the window position, bouts, history, the outbox, and the
    /// key/value agent state that `v4-agent-status` replaced.
    static func v1(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE steps (second INTEGER PRIMARY KEY, count INTEGER NOT NULL) WITHOUT ROWID;
                CREATE TABLE source_cursor (
                    source TEXT PRIMARY KEY, cursor TEXT, detector TEXT, last_sample_ns INTEGER,
                    first_data_ns INTEGER, updated_ns INTEGER NOT NULL);
                CREATE TABLE window_state (id INTEGER PRIMARY KEY CHECK (id = 1), posted_until_ns INTEGER NOT NULL);
                CREATE TABLE bouts (
                    end_ns INTEGER PRIMARY KEY, start_ns INTEGER NOT NULL, steps INTEGER NOT NULL,
                    handled INTEGER NOT NULL DEFAULT 0);
                CREATE TABLE fetch_history (
                    id INTEGER PRIMARY KEY AUTOINCREMENT, started_ns INTEGER NOT NULL, ended_ns INTEGER NOT NULL,
                    trigger TEXT NOT NULL, window_start_ns INTEGER, window_end_ns INTEGER, steps INTEGER,
                    result TEXT NOT NULL, error TEXT);
                CREATE TABLE outbox (
                    id INTEGER PRIMARY KEY AUTOINCREMENT, window_start_ns INTEGER NOT NULL, window_end_ns INTEGER NOT NULL,
                    steps INTEGER NOT NULL, text TEXT NOT NULL, target TEXT NOT NULL, idempotency_key TEXT NOT NULL,
                    status TEXT NOT NULL DEFAULT 'pending', attempts INTEGER NOT NULL DEFAULT 0,
                    next_attempt_ns INTEGER NOT NULL, remote_id TEXT, last_error TEXT, created_ns INTEGER NOT NULL,
                    delivered_ns INTEGER, UNIQUE (target, idempotency_key));
                CREATE INDEX outbox_pending ON outbox (status, id);
                CREATE TABLE agent_state (key TEXT PRIMARY KEY, value TEXT NOT NULL);
                """)
    }

    /// `agent_status` (`AgentStatus`), filled from the key/value `agent_state` table of earlier versions, which it
    /// replaces.
    static func agentStatus(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE agent_status (
                    id INTEGER PRIMARY KEY CHECK (id = 1), pid INTEGER, started TEXT, config TEXT, state TEXT, updated TEXT,
                    next_fetch TEXT, disabled_reason TEXT, last_result TEXT, consecutive_failures INTEGER, targets TEXT,
                    push TEXT, interval TEXT, sampling TEXT);
                INSERT INTO agent_status (id, pid, state, updated, next_fetch, disabled_reason, last_result, consecutive_failures)
                    SELECT 1,
                        (SELECT CAST(value AS INTEGER) FROM agent_state WHERE key = 'pid'),
                        (SELECT value FROM agent_state WHERE key = 'state'),
                        (SELECT value FROM agent_state WHERE key = 'updated'),
                        (SELECT value FROM agent_state WHERE key = 'next_fetch'),
                        (SELECT value FROM agent_state WHERE key = 'disabled_reason'),
                        (SELECT value FROM agent_state WHERE key = 'last_result'),
                        (SELECT CAST(value AS INTEGER) FROM agent_state WHERE key = 'consecutive_failures')
                    WHERE EXISTS (SELECT 1 FROM agent_state);
                DROP TABLE agent_state;
                """)
    }

    /// What phones push: devices, their readings, sample streams and their samples waiting for a fetch.
    static func received(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE received_device (
                    device TEXT PRIMARY KEY, format TEXT NOT NULL, first_heard_ns INTEGER NOT NULL,
                    last_heard_ns INTEGER NOT NULL, data_end_ns INTEGER, readings INTEGER NOT NULL DEFAULT 0,
                    samples INTEGER NOT NULL DEFAULT 0);
                CREATE TABLE received_reading (
                    device TEXT NOT NULL, key TEXT NOT NULL, start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL,
                    microsteps INTEGER NOT NULL, changed INTEGER NOT NULL DEFAULT 1,
                    counted_start_ns INTEGER, counted_end_ns INTEGER, counted_steps INTEGER NOT NULL DEFAULT 0,
                    PRIMARY KEY (device, key)) WITHOUT ROWID;
                CREATE INDEX received_reading_time ON received_reading (device, start_ns, key);
                CREATE INDEX received_reading_changed ON received_reading (changed) WHERE changed = 1;
                CREATE TABLE received_stream (
                    stream TEXT PRIMARY KEY, device TEXT NOT NULL, last_heard_ns INTEGER NOT NULL,
                    newest_ns INTEGER NOT NULL, last_total INTEGER);
                CREATE TABLE received_sample (
                    stream TEXT NOT NULL, time_ns INTEGER NOT NULL, x REAL NOT NULL, y REAL NOT NULL, z REAL NOT NULL,
                    PRIMARY KEY (stream, time_ns)) WITHOUT ROWID;
                """)
    }

    /// `device_minute` and `minute_choice` (`DeviceOverlap`), filled from what the received readings counted before
    /// this migration, so that a resend of an earlier reading changes the minute it is in by its difference. Past
    /// minutes keep the steps they counted (posted windows are not re-decided).
    static func deviceOverlap(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE device_minute (
                    minute INTEGER NOT NULL, device TEXT NOT NULL, seconds BLOB NOT NULL,
                    PRIMARY KEY (minute, device)) WITHOUT ROWID;
                CREATE TABLE minute_choice (minute INTEGER PRIMARY KEY, device TEXT NOT NULL) WITHOUT ROWID;
                """)
        var changes: [String: [Int64: Int]] = [:]
        let rows = try ReceivedReadingRecord.filter(ReceivedReadingRecord.Columns.countedStartNs != nil).fetchCursor(db)
        while let row = try rows.next() {
            row.counted?.stepsPerSecond { changes[row.device, default: [:]][$0, default: 0] += $1 }
        }
        _ = try DeviceOverlap().resolve(db, changes)
    }

    /// The records of a followed export out of time order, gathered over fetches and settled in start order
    /// (`ReadingSpill`). A state from before has none: its source goes on from its cursor.
    static func readingSpill(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE reading_spill_source (id INTEGER PRIMARY KEY, source TEXT NOT NULL UNIQUE);
                CREATE TABLE reading_spill (
                    source_id INTEGER NOT NULL, start_ns INTEGER NOT NULL, number INTEGER NOT NULL,
                    end_ns INTEGER NOT NULL, origin TEXT NOT NULL, steps INTEGER NOT NULL,
                    PRIMARY KEY (source_id, start_ns, number)) WITHOUT ROWID;
                """)
    }

    /// `received_total` (`ReceivedTotalRecord`), with each stream's last total before this migration at the time of
    /// its latest reading, so that a recording in progress goes on from it.
    static func receivedTotal(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE received_total (
                    stream TEXT NOT NULL, time_ns INTEGER NOT NULL, total INTEGER NOT NULL,
                    PRIMARY KEY (stream, time_ns)) WITHOUT ROWID;
                """)
        let streams = try Row.fetchAll(
            db, sql: "SELECT stream, device, last_total FROM received_stream WHERE last_total IS NOT NULL")
        for row in streams {
            let stream: String = row["stream"]
            let device: String = row["device"]
            let session = String(stream.dropFirst(device.count + 1))
            let latest = try Int64.fetchOne(
                db,
                sql: "SELECT MAX(end_ns) FROM received_reading WHERE device = ? AND key >= ? AND key < ?",
                arguments: [device, "total:\(session):", "total:\(session);"])
            guard let latest else { continue }
            try ReceivedTotalRecord(stream: stream, timeNs: latest, total: row["last_total"]).insert(db)
        }
    }

    /// Step-log lines with a `seq` were keyed `STREAM seq N`, so a writer whose `seq` started again on the same boot
    /// (reinstalled) replaced its earlier lines: keyed `STREAM seq N at END` now, their time added, so that a resend
    /// across the upgrade still replaces them.
    static func seqKeyAt(_ db: Database) throws {
        try db.execute(
            sql: "UPDATE OR IGNORE received_reading SET key = key || ' at ' || end_ns WHERE key GLOB '* seq [0-9-]*'")
    }

    /// Step-log lines with a `seq` were keyed `STREAM seq N at TS`, so a writer reinstalled with a new `boot_id` that
    /// sent its history again with new `seq` numbers added every line a second time: keyed `seq at TS` now (the
    /// device's line at that time, `StepLogApp.seqKey`), so that such a resend across the upgrade replaces them. Two
    /// lines of one device at the same time under different streams (already counted twice) keep the second's old
    /// key: the rekeying changes no count.
    static func seqKeyDeviceTs(_ db: Database) throws {
        try db.execute(
            sql: """
                UPDATE OR IGNORE received_reading SET key = 'seq at ' || end_ns
                WHERE key GLOB '* seq [0-9-]* at [0-9-]*' AND key = substr(key, 1, length(key) - length(end_ns)) || end_ns
                    AND key NOT GLOB 'total:*'
                """)
    }

    /// Adding readings stored before `StateStore.addingKey` were keyed `START-END-STEPS`: rekeyed, so that a resend
    /// across the upgrade replaces them rather than adding them again. Two such readings with the same end and steps
    /// (already counted twice) keep the second's old key: the rekeying changes no count.
    static func addingKey(_ db: Database) throws {
        try db.execute(
            sql: """
                UPDATE OR IGNORE received_reading SET key = 'at ' || end_ns || ' steps ' || (microsteps / 1000000)
                WHERE key = start_ns || '-' || end_ns || '-' || (microsteps / 1000000)
                """)
    }
}
