import Foundation
import Messages
import SensorInput
import StepDetection

/// `steptweet demo`: replays a committed recording as if it were arriving live and runs background fetches on a
/// virtual clock, printing each fetch's window, text and result. Needs no configuration, no network, no sleeping.
public struct DemoRunner {
    /// One fetch of the demo.
    public struct FetchReport: Sendable {
        public var at: Date
        public var window: StepWindow
        public var text: String?
        public var result: String
    }

    public var recording: String
    public var composer: MessageComposer
    /// Where the virtual clock starts; the first window opens here.
    public var start: Date
    /// When each replayed copy of the recording begins, as seconds after `start`.
    public var walkOffsets: [Double]
    /// Background fetches, as seconds after `start`.
    public var fetchOffsets: [Double]

    public init(recording: String, composer: MessageComposer, start: Date,
                walkOffsets: [Double] = [120, 270, 1260], fetchOffsets: [Double] = [600, 1200, 1800]) {
        self.recording = recording
        self.composer = composer
        self.start = start
        self.walkOffsets = walkOffsets
        self.fetchOffsets = fetchOffsets
    }

    /// Finds the committed demo recording from the working directory or from this source file's location.
    public static func defaultRecording(filePath: String = #filePath) -> String? {
        let name = "fixtures/demo_walk_50hz.csv"
        let repo = URL(fileURLWithPath: filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(name).path
        return [name, repo].first { FileManager.default.fileExists(atPath: $0) }
    }

    /// Runs the fetches in order, calling `report` after each.
    public func run(_ report: (FetchReport) -> Void) throws {
        // Load the recording once (it is small), then lay copies of it on the virtual timeline.
        var samples: [AccelerationSample] = []
        _ = try AccelerationInput.read(path: recording) { samples.append($0) }
        guard let first = samples.first?.timeNs else { throw InputError(file: recording, message: "no samples") }
        let startNs = Timestamps.nanoseconds(start)
        var timeline: [AccelerationSample] = []
        for offset in walkOffsets {
            let base = startNs + Int64(offset * 1e9) - first
            timeline += samples.map { AccelerationSample(timeNs: $0.timeNs + base, x: $0.x, y: $0.y, z: $0.z) }
        }
        timeline.sort { $0.timeNs < $1.timeNs }

        var detector = StepDetector()
        var stepTimes: [Int64] = []
        var next = 0
        var windowStart = start
        for offset in fetchOffsets {
            let now = start.addingTimeInterval(offset)
            let nowNs = Timestamps.nanoseconds(now)
            // Everything recorded before the fetch has arrived.
            while next < timeline.count && timeline[next].timeNs < nowNs {
                let s = timeline[next]
                detector.push(timeNs: s.timeNs, x: s.x, y: s.y, z: s.z) { if case .step(let t) = $0 { stepTimes.append(t) } }
                next += 1
            }
            let from = Timestamps.nanoseconds(windowStart)
            let steps = stepTimes.filter { $0 >= from && $0 < nowNs }.count
            let window = StepWindow(start: windowStart, end: now, steps: steps)
            if steps > 0 {
                report(FetchReport(at: now, window: window, text: composer.compose(window), result: "NewData"))
                windowStart = now
            } else {
                report(FetchReport(at: now, window: window, text: nil, result: "NoData"))
            }
        }
    }
}
