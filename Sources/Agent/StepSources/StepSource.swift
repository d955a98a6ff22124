import Foundation
import Publishing
import SensorInput
import StepDetection
import Store
import WallTime

/// Where steps come from: a file that grows, a whole export read again, a file a live device writes, what phones
/// pushed, a phone that is pulled (phyphox). Each reads what is new since its saved position (kept under its `name`,
/// with its detector state) and says up to when its data is complete: its watermark. A fetch asks every source, saves
/// what each read, and closes windows at the earliest watermark; steps that arrive later for time already posted go
/// into the next window as late steps.
protocol StepSource: Sendable {
    /// The key its position is saved under.
    var name: String { get }

    /// Reads what is new after `saved`, stopping after about `byteLimit` bytes when given (a slice of a backlog).
    /// `observeDevice`: take a live device's reading first (once per fetch; never in a dry run).
    func read(after saved: SavedSource, now: Instant, byteLimit: Int64?, observeDevice: Bool) throws -> SourceRead

    /// Runs once what `read` returned is committed (a rotated file read to its end can go).
    func didSave(_ read: SourceRead)

    /// Fetches, before `read`, what the source takes from another machine (a phone's remote interface), giving up at
    /// `deadline`; returns the source that reads it. `read` stays synchronous, so the walk trigger's ingestion (which
    /// does not pull) and a fetch read alike.
    func pull(after saved: SavedSource, deadline: Deadline) async -> any StepSource
}

extension StepSource {
    /// A source of local data has nothing to fetch: it reads in `read`.
    func pull(after saved: SavedSource, deadline: Deadline) async -> any StepSource { self }
}

/// What a detector reported while a source fed it samples: steps per second and the walking bouts that ended. Every
/// source that runs a detector collects its events here (`detected.take` as the detector's `emit`).
/// A source's detector for this read: the saved one, or a new one with `parameters` when there is none. A saved one
/// made with other parameters (`[detect] sensitivity` changed) finishes its walk into `detected`, and a new one goes on
/// after its last sample (samples read again are still refused).
func resumedDetector(
    _ saved: StepDetector?, parameters: DetectorParameters, detected: inout DetectedSteps
) -> StepDetector {
    guard var old = saved else { return StepDetector(parameters: parameters) }
    guard old.parameters != parameters else { return old }
    old.finish { detected.take($0) }
    var fresh = StepDetector(parameters: parameters)
    if let last = old.lastSample { fresh.push(time: last, magnitude: standardGravity) { _ in } }
    return fresh
}

struct DetectedSteps {
    /// Steps per second (seconds since the Unix epoch).
    var buckets: [Int64: Int] = [:]
    var bouts: [WalkingBout] = []

    mutating func take(_ event: DetectorEvent) {
        switch event {
        case .step(let t): buckets[t.secondsSinceEpoch, default: 0] += 1
        case .boutEnded(let b): bouts.append(b)
        case .boutStarted, .refused, .decision: break
        }
    }
}

/// What one source read (not yet saved): steps per second, walking bouts, where the next read starts, and the
/// watermark.
struct SourceRead: Sendable {
    /// Steps per second (seconds since the Unix epoch), counted as they are.
    var buckets: [Int64: Int] = [:]
    /// Steps per second of each device that may overlap another in time (the phones that push or are pulled): one
    /// device counts per minute (`DeviceOverlap`).
    var deviceBuckets: [String: [Int64: Int]] = [:]
    var bouts: [WalkingBout] = []
    /// Where the next read starts (position, detector, skipped lines not yet reported).
    var next: SavedSource
    /// Steps before this time are final: no window closes after it.
    var watermark: Instant
    /// Whether the read stopped at its byte limit with more left.
    var moreToRead = false
    /// Saved state that could not be used, and what reading did instead.
    var warnings: [String] = []
    /// What the fetch that closes the window on this read tells about the input: skipped lines, an empty source.
    var inputWarnings: [String] = []
    /// What this read alone found about the input (a file found out of time order), told by the fetch whichever of
    /// its reads finds it: `inputWarnings` are only the last read's.
    var notices: [String] = []
    /// The file this read started in, when it read that file to its end and moved on to another (a rotation).
    var finishedInode: UInt64?
    /// What else the source saves in the same transaction (the received readings it counted, the samples it fed,
    /// the phone it heard).
    var changes: [IngestedSlice.Change] = []
    /// A followed file's readings, counted through its reading ledger rather than as `buckets`.
    var readings: ReadingLedger.Change?
    /// A followed export's records gathered or settled while it is counted out of time order (`GatheredExport`).
    var spill: ReadingSpill.Change?

    /// What saving the read stores (one transaction with the window it closes, if any): steps, bouts, the position.
    func slice(source: String, now: Instant, boutsHandled: Bool, prefer: [String]) throws -> IngestedSlice {
        IngestedSlice(
            buckets: buckets, deviceBuckets: deviceBuckets, prefer: prefer, bouts: bouts, boutsHandled: boutsHandled,
            position: try next.record(source: source, now: now), changes: changes, readings: readings, spill: spill)
    }
}
