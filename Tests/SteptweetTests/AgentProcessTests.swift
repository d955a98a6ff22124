import Foundation
import TestSupport
import Testing

/// The agent as a real process: SIGUSR1 fetches now, SIGTERM stops it cleanly.
@Suite(.timeLimit(.minutes(1)), .temporaryFolder) struct AgentProcessTests {
    /// Collects a pipe's lines on a background thread.
    final class Lines: @unchecked Sendable {
        private let lock = NSLock()
        private var text = ""
        init(_ pipe: Pipe) {
            let handle = pipe.fileHandleForReading
            Thread {
                while true {
                    let data = handle.availableData
                    if data.isEmpty { return }
                    self.lock.withLock { self.text += String(decoding: data, as: UTF8.self) }
                }
            }.start()
        }
        var all: String { lock.withLock { text } }

        /// Waits (up to `patience`, in short steps) until the output contains `needle`.
        func wait(for needle: String) async throws -> Bool {
            await eventually { all.contains(needle) }
        }
    }

    /// A configuration reading the committed walk, with `interval` and `extra` (TOML) appended.
    func walkConfig(interval: String, extra: String = "") throws -> String {
        try Steptweet.walkConfig("[schedule]\ninterval = \"\(interval)\"\n[state]\npath = \"state.sqlite\"\n" + extra)
    }

    /// Starts `steptweet agent --config config` with `environment` added; its output is collected line by line.
    func startAgent(_ config: String, environment: [String: String] = [:]) throws -> (
        ChildProcess, stdout: Lines, stderr: Lines
    ) {
        let process = ChildProcess()
        process.executableURL = Steptweet.binary
        process.arguments = ["agent", "--config", config]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        return (process, Lines(out), Lines(err))
    }

    @Test func sigusr1FetchesNowAndSigtermStopsCleanly() async throws {
        let config = try walkConfig(interval: "1h")
        let (process, stdout, stderr) = try startAgent(config)
        defer { if process.isRunning { process.terminate() } }
        #expect(try await stderr.wait(for: "ready: `kill -USR1"), "\(stderr.all)")
        kill(process.processIdentifier, SIGUSR1)
        #expect(try await stderr.wait(for: "fetch signal: NewData"), "\(stderr.all)")
        #expect(try await stdout.wait(for: "を持って "))

        let status = try await Steptweet.run(["status", "--config", config])
        #expect(
            status.stdout.contains("agent:    running (pid \(process.processIdentifier), since 2"), "\(status.stdout)")
        #expect(status.stdout.contains("), idle, next fetch "), "\(status.stdout)")
        #expect(status.stdout.contains("view:     the running agent's"), "\(status.stdout)")
        #expect(stderr.all.contains("; window 2026-11-21T"), "one line per fetch with its window: \(stderr.all)")
        #expect(stderr.all.contains("stdout delivered"), "\(stderr.all)")

        kill(process.processIdentifier, SIGTERM)
        await offThePool { process.waitUntilExit() }
        #expect(process.terminationStatus == 0)
        #expect(try await stderr.wait(for: "agent stopped"))
        let after = try await Steptweet.run(["history", "--config", config, "--json"])
        #expect(after.stdout.contains("\"trigger\":\"signal\""))
    }

    /// SIGHUP (a closed terminal, `kill -HUP` for a reload that does not exist) stops the agent as SIGTERM does:
    /// before, it was its default action, the process killed at once (a post in flight cut, "agent stopped" never
    /// logged, a status of 129 from a shell).
    @Test(arguments: [SIGHUP, SIGINT])
    func sighupAndSigintStopGracefully(signal: Int32) async throws {
        let (process, _, stderr) = try startAgent(try walkConfig(interval: "1h"))
        defer { if process.isRunning { process.terminate() } }
        #expect(try await stderr.wait(for: "ready: `kill -USR1"), "\(stderr.all)")
        kill(process.processIdentifier, signal)
        await offThePool { process.waitUntilExit() }
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        #expect(try await stderr.wait(for: "agent stopped"), "\(stderr.all)")
    }

    @Test func withIntervalNeverTheAgentSaysSignalsAreIgnoredAndFetchesNothing() async throws {
        let (process, _, stderr) = try startAgent(try walkConfig(interval: "never"))
        defer { if process.isRunning { process.terminate() } }
        #expect(try await stderr.wait(for: "SIGUSR1 and pushes are ignored"), "\(stderr.all)")
        #expect(!stderr.all.contains("fetches now"))
        kill(process.processIdentifier, SIGUSR1)
        #expect(try await stderr.wait(for: "fetch not started: schedule.interval is \"never\""), "\(stderr.all)")
        kill(process.processIdentifier, SIGTERM)
        await offThePool { process.waitUntilExit() }
        #expect(process.terminationStatus == 0)
    }

    @Test func statusShowsTheRunningAgentsViewAndASecondAgentRefusesToStart() async throws {
        // The webhook URL is a secret only the agent's environment holds (as from a systemd EnvironmentFile).
        let config = try walkConfig(
            interval: "1h", extra: "[[publish]]\nkind = \"webhook\"\nurl_env = \"STEPTWEET_AGENT_ONLY_HOOK\"")
        let (process, _, stderr) = try startAgent(
            config, environment: ["STEPTWEET_AGENT_ONLY_HOOK": "http://127.0.0.1:9/hook"])
        defer { if process.isRunning { process.terminate() } }
        #expect(try await stderr.wait(for: "fetches now"), "\(stderr.all)")
        // Give the agent a moment to record what it resolved.
        var status = try await Steptweet.run(["status", "--config", config])
        _ = try await eventually(every: .milliseconds(20)) {
            status = try await Steptweet.run(["status", "--config", config])
            return status.stdout.contains("targets:  webhook ready")
        }
        #expect(status.stdout.contains("targets:  webhook ready"), "\(status.stdout)")
        #expect(!status.stdout.contains("missing credentials"), "the caller's shell lacks the secret; the agent has it")
        let json = try await Steptweet.run(["status", "--config", config, "--json"])
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(doc["view"] as? String == "agent")
        #expect(doc["agent_running"] as? Bool == true)

        // A real process: `agent` sets up the process's logging system and signal handlers.
        let second = try await Steptweet.runProcess(["agent", "--config", config])
        #expect(second.status == 75)
        #expect(
            second.stderr.contains(
                "another agent (pid \(process.processIdentifier)) is running on this state database"),
            "\(second.stderr)")

        kill(process.processIdentifier, SIGTERM)
        await offThePool { process.waitUntilExit() }
        let after = try await Steptweet.run(["status", "--config", config])
        #expect(after.stdout.contains("agent:    not running"))
        #expect(after.stdout.contains("view:     this shell's evaluation"))
        #expect(
            after.stdout.contains("missing credentials"), "without the agent, this shell's own view: \(after.stdout)")
    }
}
