import Agent
import Foundation
import Messages
import Publishing
@_exported import TestSupport

/// A publisher under the test's control.
actor ScriptedPublisher: Publisher {
    nonisolated let name: String
    var outcomes: [DeliveryOutcome]
    private(set) var received: [Post] = []

    init(name: String = "test", outcomes: [DeliveryOutcome] = []) {
        self.name = name
        self.outcomes = outcomes
    }

    func publish(_ post: Post, deadline: Deadline) async -> DeliveryOutcome {
        received.append(post)
        return outcomes.isEmpty ? .delivered(remoteID: "r\(received.count)") : outcomes.removeFirst()
    }
}

enum Fixture {
    /// The committed 60 s walk at 50 Hz (t_ms relative times).
    static var walk: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("fixtures/demo_walk_50hz.csv").path
    }

    static func date(_ text: String) -> Date { Timestamps.parse(text)! }

    /// A configuration reading `source` (relative times anchored at `start`) with state in `dir`.
    static func config(dir: TempDir, source: String? = walk, start: String = "2026-11-21T10:02:00+09:00",
                       extra: String = "", schedule: String = "", publish: String = "") throws -> AgentConfiguration {
        var text = ""
        if let source { text += "[source]\npath = \"\(source)\"\nstart = \"\(start)\"\n\(extra)\n" }
        text += "[schedule]\ninterval = \"10m\"\n\(schedule)\n[text]\ntime_zone = \"Asia/Tokyo\"\n[state]\npath = \"state.sqlite\"\n\(publish)"
        return try AgentConfiguration.parse(text, file: dir.path("config.toml"), environment: [:])
    }
}
