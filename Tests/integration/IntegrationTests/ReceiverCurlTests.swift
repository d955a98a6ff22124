import Foundation
import TestSupport
import Testing

/// The receiver of a real `steptweet agent` process driven with curl, as a phone app's request or a script would
/// reach it: a bearer token or the token in the path, a gzip body, a step log; refused requests get their status.
/// The agent then stops on SIGTERM, and a one-shot fetch posts exactly what was received, once.
@Suite(.serialized) struct ReceiverCurlTests {
    /// The built binary beside the test bundle (the package builds it for its own tests).
    static var binary: URL {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(
                "steptweet"),
            URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(
                ".build/debug/steptweet"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]
    }

    /// Runs a program to its end; its standard output and exit status.
    static func run(_ path: String, _ arguments: [String], environment: [String: String] = [:]) throws -> (
        out: String, status: Int32
    ) {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (String(decoding: data, as: UTF8.self), process.terminationStatus)
    }

    /// `curl` a request; the status code and the answer's JSON object.
    static func curl(_ port: Int, _ path: String, _ extra: [String]) throws -> (status: Int, answer: [String: Any]) {
        let r = try run(
            "/usr/bin/curl",
            ["-sS", "--max-time", "20", "-w", "\n%{http_code}"] + extra + ["http://127.0.0.1:\(port)\(path)"])
        let lines = r.out.split(separator: "\n", omittingEmptySubsequences: false)
        let status = Int(lines.last ?? "") ?? 0
        let body = lines.dropLast().joined(separator: "\n")
        let answer = (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] ?? [:]
        return (status, answer)
    }

    /// An agent receiving on `port` (configuration at `config`), started.
    static func startAgent(config: String, port: UInt16) throws -> ChildProcess {
        try ReceivingAgent.configuration(port: port, interval: "never", posts: "posts.jsonl")
            .write(toFile: config, atomically: false, encoding: .utf8)
        return try ReceivingAgent.start(binary: Self.binary, config: config)
    }

    @Test func curlPushesArePostedOnceAfterAGracefulStop() async throws {
        #expect(FileManager.default.isExecutableFile(atPath: "/usr/bin/curl"), "curl is not installed")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("steptweet-curl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("config.toml").path
        // Health Auto Export: ten minutes from 10:00 (+09:00), 100 + m steps in minute m.
        let points = (0..<10).map { m in
            #"{"date": "2026-11-21 10:0\#(m):00 +0900", "qty": \#(100 + m), "source": "Watch"}"#
        }
        let hae = dir.appendingPathComponent("hae.json").path
        try
            #"{"data": {"metrics": [{"name": "step_count", "units": "count", "data": [\#(points.joined(separator: ","))]}]}}"#
            .write(toFile: hae, atomically: false, encoding: .utf8)
        let bearer = ["-H", "Authorization: Bearer tok", "-H", "Content-Type: application/json"]
        // A port free when chosen; the agent is started again on another when a server took it first (it exits 75).
        let (agent, port, first) = try await startedOnFreePort { port in
            let agent = try Self.startAgent(config: config, port: port)
            var first = (status: 0, answer: [String: Any]())
            for _ in 0..<200 where first.status == 0 && agent.isRunning {  // the agent may still be starting
                first = try Self.curl(Int(port), "/ingest", bearer + ["--data-binary", "@" + hae])
                if first.status == 0 { try await Task.sleep(for: .milliseconds(25)) }
            }
            return ((agent, Int(port), first), agent)
        }
        defer { if agent.isRunning { kill(agent.processIdentifier, SIGKILL) } }
        #expect(first.status == 200, "\(first.answer)")
        #expect(first.answer["readings"] as? Int == 10 && first.answer["device"] as? String == "Watch")

        // The same body gzip-compressed, as a resend: all duplicates.
        _ = try Self.run("/bin/gzip", ["-k", hae])
        let gzipped = try Self.curl(
            port, "/ingest", bearer + ["-H", "Content-Encoding: gzip", "--data-binary", "@" + hae + ".gz"])
        #expect(gzipped.status == 200 && gzipped.answer["duplicates"] as? Int == 10, "\(gzipped.answer)")

        // A step log from a script, the token in the path (as Sensor Logger sends it).
        let log = dir.appendingPathComponent("steps.jsonl").path
        try """
        {"ts": "2026-11-21T10:20:00+09:00", "total": 5000, "src": "script"}
        {"ts": "2026-11-21T10:25:00+09:00", "total": 5300, "src": "script"}
        """.write(toFile: log, atomically: false, encoding: .utf8)
        let steplog = try Self.curl(port, "/ingest/tok", ["--data-binary", "@" + log])
        #expect(steplog.status == 200 && steplog.answer["format"] as? String == "steplog", "\(steplog.answer)")

        // Refused: a wrong token, a body that is no payload, a GET, a path that is not the receiver's.
        #expect(
            try Self.curl(port, "/ingest", ["-H", "Authorization: Bearer nope", "--data-binary", "@" + hae]).0 == 401)
        #expect(try Self.curl(port, "/ingest", bearer + ["--data-binary", "not json"]).0 == 400)
        #expect(try Self.curl(port, "/ingest", ["-H", "Authorization: Bearer tok"]).0 == 405)
        #expect(try Self.curl(port, "/other", bearer + ["--data-binary", "@" + hae]).0 == 404)

        kill(agent.processIdentifier, SIGTERM)
        agent.waitUntilExit()
        #expect(agent.terminationStatus == 0, "the agent stops gracefully on SIGTERM")

        let fetch = try Self.run(
            Self.binary.path, ["fetch", "--config", config, "--now", "2026-11-21T10:30:00+09:00"],
            environment: ["RECEIVE_TOKEN": "tok"])
        let haeSteps = (0..<10).reduce(0) { $0 + 100 + $1 }
        #expect(fetch.out.contains("\(haeSteps + 300) 歩"), "\(fetch.out)")
        let again = try Self.run(
            Self.binary.path, ["fetch", "--config", config, "--now", "2026-11-21T11:00:00+09:00"],
            environment: ["RECEIVE_TOKEN": "tok"])
        #expect(again.out.contains("NoData"), "\(again.out)")
        let posts = try String(contentsOf: dir.appendingPathComponent("posts.jsonl"), encoding: .utf8)
        #expect(posts.split(separator: "\n").count == 1)
    }
}
