import Foundation
import Messages

/// What `steptweet status` shows: schedule, the agent's state, recent results, the outbox, and why fetching is off.
public struct StatusReport: Codable, Sendable {
    public var config: String
    public var statePath: String
    public var schedule: String
    public var window: String
    public var disabledReason: String?
    public var agentState: String?
    public var agentPid: Int?
    public var agentRunning: Bool
    public var nextFetch: String?
    public var lastResults: [StateStore.HistoryEntry]
    public var pendingPosts: Int
    public var oldestPending: StateStore.OutboxEntry?
    public var failedPosts: Int
    /// `127.0.0.1:PORT`, `off: <why>`, or nil when no [push] table is configured.
    public var pushListener: String?
    /// A live accelerometer source: how it is sampled, into which file, and the time of its last written sample.
    public var sampling: String?
    public var lastSample: Date?

    /// Reads the state database without changing it (an absent database reads as empty).
    public static func load(configuration c: AgentConfiguration, history: Int = 5) throws -> StatusReport {
        let store = try StateStore(readOnlyPath: c.statePath)
        let agent = try store.agentState()
        let pending = try store.outbox(status: "pending")
        let pid = agent["pid"].flatMap(Int.init)
        let running = pid.map { kill(pid_t($0), 0) == 0 } ?? false && agent["state"] != "stopped"
        return StatusReport(
            config: c.file, statePath: c.statePath, schedule: c.schedule.effectiveInterval,
            window: c.schedule.window.description,
            disabledReason: c.disabledReason ?? agent["disabled_reason"],
            agentState: agent["state"], agentPid: pid, agentRunning: running,
            nextFetch: running ? agent["next_fetch"] : nil,
            lastResults: try store.history(limit: history), pendingPosts: pending.count, oldestPending: pending.first,
            failedPosts: try store.outbox(status: "failed").count,
            pushListener: c.push.map { p in p.token == nil ? "off: \(p.tokenProblem ?? "no token")" : "127.0.0.1:\(p.port)" },
            sampling: c.source?.accelerometer.map { "\($0.summary) by the agent into \($0.samplePath)" },
            lastSample: c.source?.accelerometer.flatMap { SampleFileWriter.lastTime(in: $0.samplePath) }
                .map { Date(timeIntervalSince1970: Double($0) / 1e9) })
    }

    /// Human-readable lines.
    public func lines(zone: TimeZone) -> [String] {
        let f = { (d: Date) in Timestamps.format(d, zone: zone) }
        var out = ["config:   \(config)", "state:    \(statePath)",
                   "schedule: interval \(schedule), window \(window)"]
        if let disabledReason { out.append("fetching: disabled: \(disabledReason)") }
        if agentRunning {
            out.append("agent:    running (pid \(agentPid ?? 0)), \(agentState ?? "idle")" + (nextFetch.map { ", next fetch \($0)" } ?? ""))
        } else {
            out.append("agent:    not running" + (agentState.map { " (last state: \($0))" } ?? ""))
        }
        if let pushListener { out.append("push:     \(pushListener)") }
        if let sampling {
            out.append("device:   \(sampling)" + (lastSample.map { ", last sample \(f($0))" } ?? ", no sample yet"))
        }
        out.append("outbox:   \(pendingPosts) pending" + (failedPosts > 0 ? ", \(failedPosts) failed permanently" : ""))
        if let o = oldestPending {
            out.append("          oldest: \(o.target) \(f(o.windowStart)) 〜 \(f(o.windowEnd)), \(o.attempts) attempt(s)"
                       + (o.lastError.map { ", last error: \($0)" } ?? ""))
        }
        if lastResults.isEmpty { out.append("results:  no fetch yet") } else { out.append("results:") }
        for h in lastResults {
            out.append("  \(f(h.started)) \(h.trigger): \(h.result)" + (h.error.map { ": \($0)" } ?? "")
                       + (h.steps.map { " (\($0) steps)" } ?? ""))
        }
        return out
    }
}

/// Terminal bar charts of steps per period.
public enum StepChart {
    /// One line per period: label, a bar scaled to `width`, and the count.
    public static func lines(_ buckets: [(start: Int64, steps: Int)], label: (Date) -> String, width: Int = 40) -> [String] {
        let top = buckets.map(\.steps).max() ?? 0
        return buckets.map { b in
            let n = top > 0 ? Int((Double(b.steps) / Double(top) * Double(width)).rounded()) : 0
            let bar = String(repeating: "█", count: n) + (n == 0 && b.steps > 0 ? "▏" : "")
            return "\(label(Date(timeIntervalSince1970: Double(b.start)))) \(bar.padding(toLength: width, withPad: " ", startingAt: 0)) \(b.steps)"
        }
    }
}
