import Agent
import Foundation
@_exported import HTTPTestSupport
import Messages
import Publishing
@_exported import TestSupport

/// A publisher under the test's control.
actor ScriptedPublisher: Publisher {
    nonisolated let name: String
    nonisolated let image: ImageOption
    var outcomes: [DeliveryOutcome]
    private(set) var received: [Post] = []

    init(name: String = "test", outcomes: [DeliveryOutcome] = [], image: ImageOption = .off) {
        self.name = name
        self.outcomes = outcomes
        self.image = image
    }

    func publish(_ post: Post, deadline: Deadline) async -> DeliveryOutcome {
        received.append(post)
        return outcomes.isEmpty ? .delivered(remoteID: "r\(received.count)") : outcomes.removeFirst()
    }
}

enum Fixture {
    /// The committed 60 s walk at 50 Hz (t_ms relative times).
    static var walk: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("fixtures/demo_walk_50hz.csv").path
    }

    static func date(_ text: String) -> Date { Timestamps.parse(text)! }

    /// A configuration reading `source` (relative times anchored at `start`) with state in `dir`; its fetch budget is
    /// `TestBudget`'s unless `schedule` sets a deadline (the fetcher's clock is the real one unless a test injects one).
    static func config(
        dir: TempDir, source: String? = walk, start: String = "2026-11-21T10:02:00+09:00",
        extra: String = "", schedule: String = "", publish: String = ""
    ) throws -> AgentConfiguration {
        var text = ""
        if let source { text += "[source]\npath = \"\(source)\"\nstart = \"\(start)\"\n\(extra)\n" }
        text +=
            "[schedule]\ninterval = \"10m\"\n\(schedule)\n[text]\ntime_zone = \"Asia/Tokyo\"\n[state]\npath = \"state.sqlite\"\n\(publish)"
        return try AgentConfiguration.parse(
            TestBudget.applied(to: text), file: dir.path("config.toml"), environment: [:])
    }
}

/// Step inputs of one reading a minute from 10:00 (+09:00) on 2026-11-21, minute `m` holding `40 + m` steps: our step
/// log (a reading at each minute's half) and a Google Fit export (a reading over each minute).
enum MinuteReadings {
    static func steps(_ minutes: Range<Int>) -> Int { minutes.reduce(0) { $0 + 40 + $1 } }

    static func stepLog(_ minutes: Range<Int>) -> String {
        minutes.map { m in #"{"ts": "2026-11-21T10:\#(m < 10 ? "0" : "")\#(m):30+09:00", "steps": \#(40 + m)}"# + "\n" }
            .joined()
    }

    /// A fetcher of the step log of these minutes written in `dir`, reading one slice of about four readings a fetch.
    static func slicedStepLogFetcher(dir: TempDir, _ minutes: Range<Int>) throws -> (path: String, fetcher: Fetcher) {
        let path = try dir.write("steps.jsonl", stepLog(minutes))
        var config = try Fixture.config(dir: dir, source: path)
        config.schedule.deadline = 0.000_001  // one slice per fetch
        config.publishers = [ScriptedPublisher()]
        var fetcher = Fetcher(configuration: config, clock: ContinuousClock())
        fetcher.sliceBytes = 200
        return (path, fetcher)
    }

    static func googleFit(_ minutes: Range<Int>) -> String {
        let t0 = Timestamps.nanoseconds(Fixture.date("2026-11-21T10:00:00+09:00"))
        let points = minutes.map { m in
            let start = t0 + Int64(m) * 60_000_000_000
            return
                "{\"fitValue\":[{\"value\":{\"intVal\":\(40 + m)}}],\"endTimeNanos\":\(start + 60_000_000_000),\"dataTypeName\":\"com.google.step_count.delta\",\"startTimeNanos\":\(start)}"
        }
        return
            "{\n \"Data Source\": \"derived:com.google.step_count.delta:com.google.android.gms:estimated_steps\",\n \"Data Points\": [\(points.joined(separator: ",\n"))]\n}\n"
    }
}

extension FetchReport {
    /// The steps of the windows this fetch posted.
    var postedSteps: Int { windows.reduce(0) { $0 + $1.steps } }
}
