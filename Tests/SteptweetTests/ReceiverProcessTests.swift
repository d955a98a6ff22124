import Foundation
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The receiver in a real agent process: a 200 means the payload is in the state database, so a SIGKILL right after
/// it loses nothing, and the next fetch posts exactly what was received.
@Suite(.timeLimit(.minutes(1)), .temporaryFolder) struct ReceiverProcessTests {
    /// An agent receiving on a port that was free when chosen, and its first answer to the payload. Another test's
    /// server may take the port between the choice and the agent's bind; the agent then exits 75 (the test below),
    /// and it is started again on another port (`startedOnFreePort`).
    func agentAnswering(_ body: Data, posts: String, ports: () -> UInt16 = LoopbackPort.free) async throws -> (
        agent: ChildProcess, port: UInt16, config: String, status: Int
    ) {
        try await startedOnFreePort(ports: ports) { port in
            let config = try Steptweet.configFile(
                ReceivingAgent.configuration(port: port, interval: "1h", posts: posts))
            let agent = try ReceivingAgent.start(binary: Steptweet.binary, config: config)
            var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/ingest")!)
            request.httpMethod = "POST"
            request.setValue("Bearer tok", forHTTPHeaderField: "Authorization")
            request.httpBody = body
            // Short, so that a port another server holds without answering does not keep the loop from seeing the
            // agent exit.
            request.timeoutInterval = 2
            var status = 0
            _ = await eventually(every: .milliseconds(25)) {  // until the agent answers, or stops
                if !agent.isRunning { return true }
                if let (_, response) = try? await URLSession.shared.data(for: request) {
                    status = (response as? HTTPURLResponse)?.statusCode ?? 0
                }
                return status == 200
            }
            return ((agent, port, config, status), agent)
        }
    }

    /// Health Auto Export: ten minutes from 10:00 (+09:00), 100 + m steps in minute m.
    static let tenMinutes: Data = {
        let points = (0..<10).map { m in
            #"{"date": "2026-11-21 10:0\#(m):00 +0900", "qty": \#(100 + m), "source": "Watch"}"#
        }
        return Data(
            #"{"data": {"metrics": [{"name": "step_count", "units": "count", "data": [\#(points.joined(separator: ","))]}]}}"#
                .utf8)
    }()

    /// The race `startedOnFreePort` covers: a port taken after it was chosen. The agent offered it exits, and the
    /// next start, on another port, answers.
    @Test func anAgentWhosePortWasTakenIsStartedAgainOnAnother() async throws {
        let (holder, taken) = LoopbackPort.boundSocket()
        defer { close(holder) }
        #expect(listen(holder, 1) == 0)
        var offered: [UInt16] = [taken]
        let posts = try Steptweet.tempFile("", name: "posts.jsonl")
        let (agent, port, _, status) = try await agentAnswering(Self.tenMinutes, posts: posts) {
            offered.isEmpty ? LoopbackPort.free() : offered.removeFirst()
        }
        defer { if agent.isRunning { kill(agent.processIdentifier, SIGKILL) } }
        #expect(offered.isEmpty && port != taken, "the taken port was offered first, then another")
        #expect(status == 200 && agent.isRunning)
    }

    @Test func aPayloadAnswered200SurvivesASigkillAndIsPostedOnce() async throws {
        let posts = try Steptweet.tempFile("", name: "posts.jsonl")
        let (agent, port, config, status) = try await agentAnswering(Self.tenMinutes, posts: posts)
        defer { if agent.isRunning { kill(agent.processIdentifier, SIGKILL) } }
        #expect(status == 200)
        let listening = try await Steptweet.run(["status", "--config", config])
        #expect(listening.stdout.contains("receiver: listening on 127.0.0.1:\(port)"), "\(listening.stdout)")
        kill(agent.processIdentifier, SIGKILL)
        await offThePool { agent.waitUntilExit() }

        let fetch = try await Steptweet.run(["fetch", "--config", config, "--now", "2026-11-21T10:10:00+09:00"])
        #expect(fetch.status == 0, "\(fetch.stdout)\(fetch.stderr)")
        #expect(fetch.stdout.contains("1045 歩"), "\(fetch.stdout)")
        let again = try await Steptweet.run(["fetch", "--config", config, "--now", "2026-11-21T10:30:00+09:00"])
        #expect(again.stdout.contains("NoData"), "\(again.stdout)")
        let lines = try String(contentsOfFile: posts, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 1)
        let devices = try await Steptweet.run(["devices", "--received", "--config", config])
        #expect(devices.stdout.contains("Watch  health-auto-export: last heard "), "\(devices.stdout)")
        #expect(devices.stdout.contains("10 readings"), "\(devices.stdout)")
    }

    /// Issue #44: an agent whose receiver cannot listen (its port taken) does not run on silently, losing every push:
    /// it exits 75 (EX_TEMPFAIL, so systemd starts it again) naming the address, never says it is ready, and
    /// `status` says the receiver is not listening and why.
    @Test func anAgentWhoseReceiverCannotListenExits75NamingTheAddress() async throws {
        let (holder, port) = LoopbackPort.boundSocket()
        defer { close(holder) }
        #expect(listen(holder, 1) == 0)
        let token = try Steptweet.tempFile("tok", name: "receive.token")
        chmod(token, 0o600)
        let config = try Steptweet.configFile(
            """
            [receive]
            listen = "127.0.0.1:\(port)"
            token_file = "\(token)"
            [schedule]
            interval = "1h"
            [state]
            path = "state.sqlite"
            """)
        let agent = try await Steptweet.runProcess(["agent", "--config", config])
        #expect(agent.status == 75, "\(agent.stderr)")
        #expect(agent.stderr.contains("receiver cannot listen on 127.0.0.1:\(port)"), "\(agent.stderr)")
        #expect(agent.stderr.lowercased().contains("address already in use"), "\(agent.stderr)")
        #expect(!agent.stderr.contains("ready: "), "\(agent.stderr)")
        let status = try await Steptweet.run(["status", "--config", config])
        #expect(status.stdout.contains("receiver: not listening"), "\(status.stdout)")
        #expect(status.stdout.contains("127.0.0.1:\(port)"), "\(status.stdout)")
    }

    /// With a file source beside `[receive]`, fetching goes on without the receiver's token, so `status` is the place
    /// to learn that an agent would start without its receiver (it said only "no agent running").
    @Test func statusSaysTheReceiverWouldBeOffWithoutItsToken() async throws {
        let config = try Steptweet.configFile(
            """
            [source]
            path = "\(Steptweet.fixture("demo_walk_50hz.csv"))"
            start = "2026-11-21T10:00:00+09:00"
            [receive]
            token_file = "/nonexistent-steptweet/receive.token"
            [state]
            path = "state.sqlite"
            """)
        let status = try await Steptweet.run(["status", "--config", config])
        #expect(status.status == 0, "\(status.stderr)")
        #expect(
            status.stdout.contains(
                "receiver: not listening (no agent running); an agent would not start it: receive.token_file: no such file"
            ), "\(status.stdout)")
        #expect(!status.stdout.contains("fetching: disabled"), "the file source is still fetched")
    }
}
