import Foundation
import TestSupport
import Testing

/// A state folder that cannot be written is a permission problem (77), not a temporary one (75); one that cannot be
/// created where it is configured is 73; commands that only read the state work on a read-only folder.
///
/// The permission failures are real: the commands run as a process that the kernel refuses. Tests running as root
/// (which ignores permission bits) run it as nobody through `setpriv` (`Steptweet.runProcessUnprivileged`); a
/// read-only bind mount or `chattr +i` would need a mount namespace or a file system that supports the flag, and
/// setuid in the test process would change every test running beside it.
@Suite(.temporaryFolder) struct StatePermissionTests {
    /// A configuration over the committed walk whose state is `state/state.sqlite`, with one fetch stored, and the
    /// state folder then made read-only; its path.
    static func readOnlyState() async throws -> (config: String, folder: String) {
        let config = try Steptweet.walkConfig(
            "[text]\ntime_zone = \"Asia/Tokyo\"\n[state]\npath = \"state/state.sqlite\"\n")
        let first = try await Steptweet.runProcess(["fetch", "--config", config, "--now", "2026-11-21T10:10:00+09:00"])
        #expect(first.status == 0, "\(first.stderr)")
        let folder = (config as NSString).deletingLastPathComponent + "/state"
        // As a stopped agent leaves it: no `-shm` index beside the database (its write-ahead log is empty).
        let wal = try? FileManager.default.attributesOfItem(atPath: folder + "/state.sqlite-wal")
        #expect((wal?[.size] as? Int ?? 0) == 0, "the log holds nothing that removing it would lose")
        for suffix in ["-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: folder + "/state.sqlite" + suffix)
        }
        // The database is created for its owner alone (it holds tokens); the unprivileged runner stands for that
        // owner here, so it is given read access as the owner has.
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: folder + "/state.sqlite")
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: folder)
        return (config, folder)
    }

    @Test func aReadOnlyStateFolderIsAPermissionProblemAndCanStillBeRead() async throws {
        let (config, folder) = try await Self.readOnlyState()
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder) }

        let fetch = try await Steptweet.runProcessUnprivileged(["fetch", "--config", config])
        #expect(fetch.status == 77, "\(fetch)")
        #expect(
            fetch.stdout.contains(
                "Failed: cannot open lock file \(folder)/state.sqlite.lock: Permission denied in the folder \(folder)"),
            "\(fetch.stdout)")
        let agent = try await Steptweet.runProcessUnprivileged(["agent", "--config", config])
        #expect(agent.status == 77, "\(agent.stderr)")
        #expect(agent.stderr.contains("state.sqlite.agent.lock: Permission denied"), "\(agent.stderr)")
        let retry = try await Steptweet.runProcessUnprivileged(["outbox", "retry", "--config", config, "1"])
        #expect(retry.status == 77, "\(retry.stderr)")

        // What only reads the state reads it.
        let history = try await Steptweet.runProcessUnprivileged(["history", "--config", config])
        #expect(history.status == 0, "\(history.stderr)")
        #expect(history.stdout.hasPrefix("2026-11-21T10:10:00+09:00  manual"), "\(history.stdout)")
        #expect(history.stdout.hasSuffix("113 steps  NewData\n"), "\(history.stdout)")
        let status = try await Steptweet.runProcessUnprivileged(["status", "--config", config])
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stdout.contains("  2026-11-21T10:10:00+09:00 manual: NewData (113 steps)"), "\(status.stdout)")
        // ... and says what `fetch` and `agent` refused, still exiting 0 as for every problem line.
        let problem =
            "the state folder \(folder) is not writable by this user (Permission denied); `fetch` and `agent` refuse to run until it is"
        #expect(
            status.stdout.contains("\nstate:    \(folder)/state.sqlite\nproblem:  \(problem)\n"), "\(status.stdout)")
        let json = try await Steptweet.runProcessUnprivileged(["status", "--config", config, "--json"])
        #expect(json.status == 0, "\(json.stderr)")
        #expect(json.stdout.contains(#""state_problem":"\#(problem)""#), "\(json.stdout)")
        let steps = try await Steptweet.runProcessUnprivileged(["steps", "--config", config, "--from", "2026-11-21"])
        #expect(steps.stdout.hasPrefix("113 steps from 2026-11-21T00:00:00+09:00"), "\(steps)")
        let outbox = try await Steptweet.runProcessUnprivileged(["outbox", "--config", config])
        #expect(outbox.status == 0, "\(outbox.stderr)")
        let dryRun = try await Steptweet.runProcessUnprivileged([
            "fetch", "--config", config, "--dry-run", "--now", "2026-11-21T10:20:00+09:00",
        ])
        #expect(dryRun.status == 0, "\(dryRun.stderr)")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == [
                "state.sqlite", "state.sqlite.lock",
            ],
            "nothing was created beside the database")
    }

    @Test func aStatePathThroughAFileCannotBeCreated() async throws {
        let file = try Steptweet.tempFile("not a folder\n", name: "file")
        let config = try Steptweet.walkConfig("[state]\npath = \"\(file)/state.sqlite\"\n")
        let fetch = try await Steptweet.run(["fetch", "--config", config, "--now", "2026-11-21T10:10:00+09:00"])
        #expect(fetch.status == 73, "\(fetch)")
        #expect(fetch.stdout.contains("state.sqlite.lock: \(file) is not a folder"), "\(fetch.stdout)")
        let retry = try await Steptweet.run(["outbox", "retry", "--config", config, "1"])
        #expect(retry.status == 73, "\(retry)")
        #expect(retry.stderr.contains("cannot be created: \(file) is not a folder"), "\(retry.stderr)")
        let agent = try await Steptweet.runProcess(["agent", "--config", config])
        #expect(agent.status == 73, "\(agent.stderr)")
        // `status` reads no state and says why a fetch would stop, still exiting 0 as for every problem line.
        let status = try await Steptweet.run(["status", "--config", config])
        #expect(status.status == 0, "\(status.stderr)")
        let problem =
            "the state folder \(file) is a file, not a folder; `fetch` and `agent` refuse to run until it can"
        #expect(status.stdout.contains("\nproblem:  \(problem)\n"), "\(status.stdout)")
    }

    /// A state folder not made yet, in a folder this user cannot write: `status` says so before a fetch finds it.
    @Test func aStateFolderThatCannotBeCreatedIsShownByStatus() async throws {
        let (_, readOnly) = try await Self.readOnlyState()
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: readOnly) }
        let config = try Steptweet.walkConfig("[state]\npath = \"\(readOnly)/new/state.sqlite\"\n")
        let fetch = try await Steptweet.runProcessUnprivileged(["fetch", "--config", config])
        #expect(fetch.status == 77 || fetch.status == 73, "\(fetch)")
        let status = try await Steptweet.runProcessUnprivileged(["status", "--config", config])
        #expect(status.status == 0, "\(status.stderr)")
        let problem =
            "the state folder \(readOnly)/new cannot be created: \(readOnly) is not writable by this user (Permission denied); `fetch` and `agent` refuse to run until it can"
        #expect(status.stdout.contains("\nproblem:  \(problem)\n"), "\(status.stdout)")
        #expect(!FileManager.default.fileExists(atPath: readOnly + "/new"), "status creates nothing")
    }

    /// A state folder the system will not create (under /proc, for root too): the fetch and the agent name the key
    /// that sets it, not only a lock file the user never configured.
    @Test func aStateFolderTheSystemWillNotCreateIsNamedByItsKey() async throws {
        let folder = "/proc/steptweet-no-such-folder-\(getpid())"
        let config = try Steptweet.walkConfig("[state]\npath = \"\(folder)/state.sqlite\"\n")
        let fetch = try await Steptweet.run(["fetch", "--config", config, "--now", "2026-11-21T10:10:00+09:00"])
        #expect(fetch.status == 73, "\(fetch)")
        let said =
            "cannot open lock file \(folder)/state.sqlite.lock: the state folder \(folder) could not be created (No such file or directory); state.path must be in a folder this user can create and write"
        #expect(fetch.stdout.contains(said), "\(fetch.stdout)")
        let agent = try await Steptweet.runProcess(["agent", "--config", config])
        #expect(agent.status == 73, "\(agent.stderr)")
        #expect(
            agent.stderr.contains("state.sqlite.agent.lock: the state folder \(folder) could not be created"),
            "\(agent.stderr)")
        #expect(agent.stderr.contains("state.path must be"), "\(agent.stderr)")
    }
}
