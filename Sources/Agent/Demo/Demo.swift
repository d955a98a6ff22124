import Foundation
import Messages
import Publishing
import SensorInput
import StepDetection
import Store
import WallTime

/// `steptweet demo`: the whole path on embedded defaults. A committed recording is replayed into a growing CSV file
/// as a virtual clock advances; background fetches run on that clock with their state in a temporary SQLite file and
/// post to an in-process loopback HTTP endpoint, one delivery of which fails on purpose and is recovered by the next
/// fetch. Needs no configuration, no network and no sleeping.
public struct DemoRunner: Sendable {
    /// One fetch of the demo.
    public struct FetchReport: Sendable {
        public var at: Date
        /// The window the fetch considered (closed when `text` is set, still open otherwise).
        public var window: StepWindow
        /// The text composed for a new window, if any.
        public var text: String?
        /// `NewData`, `NoData` or `Failed: <reason>`.
        public var result: String
        /// What happened to each delivery: `delivered: <text>`, `retry later: <reason>`, ...
        public var deliveries: [String]
    }

    /// What the demo replays: the recording built into the binary, or a file.
    public enum Recording: Sendable, Equatable {
        /// `fixtures/demo_walk_50hz.csv`, compiled in by the EmbedDemoRecording plugin: no checkout needed.
        case embedded
        case file(String)

        /// How the demo names it.
        public var name: String {
            switch self {
            case .embedded: return "the built-in \(EmbeddedDemoRecording.name)"
            case .file(let path): return path
            }
        }
    }

    public var recording: Recording
    public var composer: MessageComposer
    /// Where the virtual clock starts; the first window opens here.
    public var start: Date
    /// When each replayed copy of the recording begins, as seconds after `start`.
    public var walkOffsets: [Double]
    /// Background fetches, as seconds after `start`.
    public var fetchOffsets: [Double]
    /// Which request to the endpoint (1-based) is refused on purpose.
    public var failingPost: Int

    public init(
        recording: Recording = .embedded, composer: MessageComposer, start: Date,
        walkOffsets: [Double] = [120, 270, 1260], fetchOffsets: [Double] = [600, 1200, 1800, 2400],
        failingPost: Int = 2
    ) {
        self.recording = recording
        self.composer = composer
        self.start = start
        self.walkOffsets = walkOffsets
        self.fetchOffsets = fetchOffsets
        self.failingPost = failingPost
    }

    /// Runs the fetches in order, calling `report` after each; `prepared` receives the endpoint URL and state path.
    /// Returns the posts the endpoint kept.
    @discardableResult
    public func run(prepared: (URL, String) -> Void = { _, _ in }, _ report: (FetchReport) -> Void) async throws
        -> [LoopbackEndpoint.Received]
    {
        let timeline = try readTimeline()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("steptweet-demo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let live = dir.appendingPathComponent("live.csv")
        try Data("t_ms,x,y,z\n".utf8).write(to: live)

        let endpoint = LoopbackEndpoint()
        let url = try await endpoint.start()
        let statePath = dir.appendingPathComponent("state.sqlite").path
        prepared(url, statePath)
        do {
            let config = try configuration(dir: dir, live: live, endpoint: url, statePath: statePath)
            try StateStore(path: statePath).setWindowStartIfUnset(Instant(start))
            let fetcher = Fetcher(configuration: config, clock: ContinuousClock())
            await endpoint.fail(requests: [failingPost])
            var next = 0
            for offset in fetchOffsets {
                // Everything recorded before the fetch has arrived in the live file.
                next = try append(timeline, from: next, before: offset * 1000, to: live)
                let now = start.addingTimeInterval(offset)
                report(Self.summary(of: await fetcher.fetch(now: Instant(now), trigger: [.demo]), at: now))
            }
        } catch {
            await endpoint.stop()
            throw error
        }
        let kept = await endpoint.received
        await endpoint.stop()
        return kept
    }

    /// The recording's samples, laid once per walk on the virtual timeline (ms after `start`), in time order.
    func readTimeline() throws -> [(ms: Double, s: AccelerationSample)] {
        var samples: [AccelerationSample] = []
        switch recording {
        case .embedded:
            _ = try AnyInput.read(bytes: Array(EmbeddedDemoRecording.text.utf8), name: EmbeddedDemoRecording.name) {
                if case .sample(let s) = $0 { samples.append(s) }
            }
        case .file(let path):
            _ = try AccelerationInput.read(path: path) { samples.append($0) }
        }
        guard let first = samples.first?.time.nanosecondsSinceEpoch else {
            throw InputError(file: recording.name, message: "no samples")
        }
        var timeline: [(ms: Double, s: AccelerationSample)] = []
        for offset in walkOffsets {
            timeline += samples.map { (offset * 1000 + Double($0.time.nanosecondsSinceEpoch - first) / 1e6, $0) }
        }
        timeline.sort { $0.ms < $1.ms }
        return timeline
    }

    /// The demo agent: the live file every 10 minutes, the default budget (30 s: a loaded machine still finishes each
    /// fetch in it; 5 s made the demo's output differ under load), the loopback endpoint as its one target.
    func configuration(dir: URL, live: URL, endpoint url: URL, statePath: String) throws -> AgentConfiguration {
        var schedule = AgentConfiguration.Schedule()
        schedule.interval = .every(600)
        return AgentConfiguration(
            file: dir.appendingPathComponent("demo.toml").path,
            source: AgentConfiguration.Source(path: live.path, start: start, follow: true),
            schedule: schedule, composer: composer,
            publishers: [WebhookPublisher(name: "loopback", url: url, bodyTemplate: try WebhookBodyTemplate())],
            publishingProblem: nil, statePath: statePath, push: nil)
    }

    /// Appends the timeline's samples from index `next` up to `endMs` to the live file; returns the next index.
    func append(_ timeline: [(ms: Double, s: AccelerationSample)], from next: Int, before endMs: Double, to live: URL)
        throws -> Int
    {
        var next = next
        var chunk = ""
        while next < timeline.count && timeline[next].ms < endMs {
            let (ms, s) = timeline[next]
            chunk += String(format: "%.3f,%.5f,%.5f,%.5f\n", ms, s.x, s.y, s.z)
            next += 1
        }
        let handle = try FileHandle(forWritingTo: live)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(chunk.utf8))
        try handle.close()
        return next
    }

    /// What the demo prints for one fetch: its window, text, result line and one line per delivery.
    static func summary(of r: Agent.FetchReport, at now: Date) -> FetchReport {
        let window = StepWindow(r.window ?? TimeWindow(start: now, end: now), steps: r.steps ?? 0)
        let lines = r.deliveries.map { d in
            switch d.outcome {
            case .delivered, .alreadyDelivered:
                return "delivered to \(d.target) (id \(d.remoteID ?? "?")) for \(d.window.idempotencyKey)"
            default:
                return "\(d.outcome) at \(d.target): \(d.reason ?? "") (kept in the outbox)"
            }
        }
        return FetchReport(at: now, window: window, text: r.windows.last?.text, result: r.line, deliveries: lines)
    }
}
