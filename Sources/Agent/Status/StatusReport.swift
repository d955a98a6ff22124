import Foundation
import Ingestion
import Messages
import Store
import WallTime

/// What `steptweet status` shows: schedule, the agent's state, recent results, the outbox, and why fetching is off.
///
/// When an agent runs on the state database (it holds `<state>.agent.lock`), the configuration part is the running
/// agent's own view, recorded when it started: its targets, push listener, interval and sampling, resolved with its
/// environment (its secrets, e.g. from a systemd `EnvironmentFile`), not the caller's. Otherwise it is this process's
/// evaluation of the configuration, and `view` says so.
public struct StatusReport: Encodable, Sendable {
    public var config: String
    public var statePath: String
    /// Whose view the configuration part is: `agent` (the running agent's record) or `this shell`.
    public var view: String
    public var schedule: String
    public var window: String
    public var disabledReason: String?
    /// `mastodon ready, x ready` or `missing credentials: …`.
    public var targets: String
    public var agentState: AgentState?
    public var agentPid: Int?
    public var agentRunning: Bool
    public var agentStarted: String?
    public var nextFetch: String?
    public var lastResults: [FetchHistoryRecord]
    public var pendingPosts: Int
    public var oldestPending: OutboxRecord?
    public var failedPosts: Int
    /// `on: 127.0.0.1:PORT`, `off: <why>`, or nil when no [push] table is configured.
    public var pushListener: String?
    /// Whether the receiver listens: the running agent's `listening on HOST:PORT` (or why not), `not listening (no
    /// agent running)`, or nil when no [receive] table is configured.
    public var receiver: String?
    /// A live accelerometer source: how it is sampled, into which file, and the time of its last written sample.
    public var sampling: String?
    public var lastSample: Date?
    /// The devices that pushed to the receiver, most recently heard first.
    public var receivedDevices: [ReceivedDeviceListing] = []
    /// Why this user cannot write the state (a folder or file that is not writable), which `fetch` and `agent` refuse.
    public var stateProblem: String?

    /// Reads the state database without changing it (an absent database reads as empty).
    public static func load(configuration c: AgentConfiguration, history: Int = 5) throws -> StatusReport {
        let store = try StateStore(readOnlyPath: c.statePath)
        let agent = try store.agentStatus()
        let pending = try store.outbox(status: .pending)
        let holder = StateLock.holder(of: c.statePath + ".agent.lock")
        let running = holder != nil
        let pid = holder.map(Int.init).flatMap { $0 > 0 ? $0 : nil } ?? agent.pid
        let ownTargets =
            c.publishingProblem.map { "missing credentials: \($0)" }
            ?? c.publishers.map { "\($0.name) ready" }.joined(separator: ", ")
        let ownPush = c.push.map { p in
            p.token == nil ? "off: \(p.tokenProblem ?? "no token")" : "on: 127.0.0.1:\(p.port)"
        }
        let ownSampling = c.source?.accelerometer.map { "\($0.summary) by the agent into \($0.samplePath)" }
        let agentView = running && agent.targets != nil
        return StatusReport(
            config: agentView ? agent.config ?? c.file : c.file, statePath: c.statePath,
            view: agentView ? "agent" : "this shell",
            schedule: agentView ? agent.interval ?? c.schedule.effectiveInterval : c.schedule.effectiveInterval,
            window: c.schedule.window.description,
            disabledReason: agentView ? agent.disabledReason : c.disabledReason,
            targets: agentView ? agent.targets ?? ownTargets : ownTargets,
            agentState: agent.state, agentPid: pid, agentRunning: running,
            agentStarted: running ? agent.started : nil,
            nextFetch: running ? agent.nextFetch : nil,
            lastResults: try store.history(limit: history), pendingPosts: pending.count, oldestPending: pending.first,
            failedPosts: try store.outbox(status: .failed).count,
            pushListener: agentView ? agent.push.flatMap { $0 == "off: no [push] table" ? nil : $0 } : ownPush,
            receiver: c.receive.map {
                receiverLine(
                    running: running, recorded: agent.receiver,
                    tokenProblem: $0.token == nil ? $0.tokenProblem ?? "no token" : nil)
            },
            sampling: agentView ? agent.sampling : ownSampling,
            lastSample: c.source?.accelerometer.flatMap { SampleFileWriter.lastTime(in: $0.samplePath) }?.date,
            receivedDevices: try store.receivedDevices(), stateProblem: writeProblem(statePath: c.statePath))
    }

    /// Why this user could not write the state at `statePath`: its folder, the database or a lock file there and not
    /// writable (`fetch` and `agent` stop on it with 77, or 73 on a read-only file system), else nil. A folder that
    /// does not exist yet is created by the first fetch, unless it cannot be (`creationProblem`).
    static func writeProblem(statePath: String) -> String? {
        let folder = (statePath as NSString).deletingLastPathComponent
        let place = folder.isEmpty ? "." : folder
        if let problem = creationProblem(folder: place) { return problem }
        if access(place, F_OK) != 0 { return nil }  // the first fetch creates it
        for path in [place, statePath, statePath + ".lock", statePath + ".agent.lock"] where access(path, F_OK) == 0 {
            guard access(path, W_OK) != 0 else { continue }
            let reason = String(cString: strerror(errno))
            return "\(path == place ? "the state folder \(place)" : path) is not writable by this user (\(reason)); "
                + "`fetch` and `agent` refuse to run until it is"
        }
        return nil
    }

    /// Why the state folder `folder` cannot be used or made: it is a file, or it does not exist and the nearest
    /// folder above it that exists is a file or is not writable by this user (`fetch` says 73 or 77); nil otherwise.
    static func creationProblem(folder: String) -> String? {
        var above = folder
        while access(above, F_OK) != 0 && above != "/" && above != "." {
            above = (above as NSString).deletingLastPathComponent
            if above.isEmpty { above = "." }
        }
        let refused = "`fetch` and `agent` refuse to run until it can"
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: above, isDirectory: &isFolder), !isFolder.boolValue {
            let what = above == folder ? "is a file" : "cannot be created: \(above) is a file"
            return "the state folder \(folder) \(what), not a folder; \(refused)"
        }
        guard above != folder, access(above, W_OK) != 0 else { return nil }
        let reason = String(cString: strerror(errno))
        return
            "the state folder \(folder) cannot be created: \(above) is not writable by this user (\(reason)); \(refused)"
    }

    /// The receiver's line: what the running agent recorded, or that none runs (with the last agent's failure to
    /// listen, which is why it stopped, or why one started with this shell's configuration would not listen).
    static func receiverLine(running: Bool, recorded: String?, tokenProblem: String? = nil) -> String {
        if running { return recorded ?? "not listening yet" }
        if let recorded, recorded.hasPrefix("not listening:") {
            return "not listening (no agent running; the last one stopped: \(recorded.dropFirst(15)))"
        }
        if let tokenProblem { return "not listening (no agent running); an agent would not start it: \(tokenProblem)" }
        return "not listening (no agent running)"
    }

    /// Human-readable lines.
    public func lines(zone: TimeZone) -> [String] {
        let f = { (d: Date) in Timestamps.format(d, zone: zone) }
        var out = ["config:   \(config)", "state:    \(statePath)"]
        if let stateProblem { out.append("problem:  \(stateProblem)") }
        if agentRunning {
            out.append(
                "agent:    running (pid \(agentPid ?? 0)" + (agentStarted.map { ", since \($0)" } ?? "") + "), "
                    + (agentState ?? .idle).rawValue + (nextFetch.map { ", next fetch \($0)" } ?? ""))
        } else {
            out.append("agent:    not running" + (agentState.map { " (last state: \($0.rawValue))" } ?? ""))
        }
        out.append(
            "view:     "
                + (view == "agent"
                    ? "the running agent's (its environment and secrets)"
                    : "this shell's evaluation of the configuration (no agent running)"))
        out.append("schedule: interval \(schedule), window \(window)")
        out.append("targets:  \(targets)")
        if let disabledReason { out.append("fetching: disabled: \(disabledReason)") }
        if let pushListener { out.append("push:     \(pushListener)") }
        if let receiver { out.append("receiver: \(receiver)") }
        if let sampling {
            out.append("device:   \(sampling)" + (lastSample.map { ", last sample \(f($0))" } ?? ", no sample yet"))
        }
        for d in receivedDevices { out.append("received: " + d.line(zone: zone)) }
        out.append(
            "outbox:   \(pendingPosts) pending"
                + (failedPosts > 0
                    ? ", \(failedPosts) failed permanently (`steptweet outbox` lists them; `outbox retry ID` re-queues, `outbox drop ID` gives up)"
                    : ""))
        if let o = oldestPending {
            out.append(
                "          oldest: \(o.target) \(f(o.window.span.start.date)) 〜 \(f(o.window.span.end.date)), \(o.attempts) attempt(s)"
                    + (o.lastError.map { ", last error: \($0)" } ?? ""))
        }
        if lastResults.isEmpty { out.append("results:  no fetch yet") } else { out.append("results:") }
        for h in lastResults {
            out.append(
                "  \(f(h.started.date)) \(h.trigger): \(h.result.rawValue)" + (h.error.map { ": \($0)" } ?? "")
                    + (h.steps.map { " (\($0) steps)" } ?? ""))
        }
        return out
    }
}

extension ReceivedDeviceListing {
    /// `Watch  health-auto-export: last heard …, data up to …, 10 readings, 0 samples`, then `; last refusal …: what`
    /// when a payload had items left out, times in `zone`.
    public func line(zone: TimeZone) -> String {
        let f = { (d: Date) in Timestamps.format(d, zone: zone) }
        let plural = { (n: Int, noun: String) in "\(n) \(noun)\(n == 1 ? "" : "s")" }
        return "\(device)  \(format): last heard \(f(lastHeard))" + (dataUntil.map { ", data up to \(f($0))" } ?? "")
            + ", \(plural(readings, "reading")), \(plural(samples, "sample"))"
            + (lastRefusal.map { "; last refusal \(f($0)): \(lastRefusalText ?? "")" } ?? "")
    }
}
