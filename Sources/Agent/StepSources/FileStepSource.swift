import Foundation
import Messages
import Publishing
import SensorInput
import StepDetection
import Store
import WallTime

/// A source in a file or folder (`[source]`): a recording or step log read from its cursor as it grows, a whole
/// export read again, the sample file the agent's sampler writes, or a live step counter's log.
struct FileStepSource: StepSource {
    let source: AgentConfiguration.Source
    /// The detector's parameters (`[detect] sensitivity`).
    var parameters = DetectorParameters.standard
    /// The state, where an export out of time order keeps its records while they are gathered (`GatheredExport`).
    let store: StateStore

    var name: String { source.path }

    func didSave(_ read: SourceRead) {
        source.accelerometer?.removeRotatedFile(ifFinished: read.finishedInode)
    }

    func read(after saved: SavedSource, now: Instant, byteLimit: Int64?, observeDevice: Bool) throws -> SourceRead {
        var ingest = SourceRead(next: Self.resumed(saved, parameters: parameters), watermark: now)
        guard try Self.observe(source, now: now, observeDevice: observeDevice) else { return ingest }
        var options = Self.readOptions(source, byteLimit: byteLimit)
        var tally = ReadingTally(saved)
        tally.prepare(&options, saved)
        var detected = DetectedSteps()
        var detector = resumedDetector(ingest.next.detector, parameters: parameters, detected: &detected)
        // Kept in the readers' nanoseconds while reading (a sample at a time), saved as instants.
        var last = ingest.next.lastSample?.nanosecondsSinceEpoch
        var first = ingest.next.firstData?.nanosecondsSinceEpoch
        var lastReadingEnd = ingest.next.lastReadingEnd?.nanosecondsSinceEpoch
        let countedThrough = tally.filtersAsRead ? Self.readingsCountedThrough(saved)?.nanosecondsSinceEpoch : nil
        let handle: (DetectorEvent) -> Void = { detected.take($0) }
        var gathered: [SourcedReading] = []
        let sink: (InputItem) -> Void = { item in
            switch item {
            case .sample(let s):
                if first == nil { first = s.time.nanosecondsSinceEpoch }
                last = s.time.nanosecondsSinceEpoch
                detector.push(time: s.time, x: s.x, y: s.y, z: s.z, handle)
            case .reading(let r):
                if let countedThrough, r.end.nanosecondsSinceEpoch <= countedThrough { return }
                if first == nil { first = r.start.nanosecondsSinceEpoch }
                lastReadingEnd = max(lastReadingEnd ?? r.end.nanosecondsSinceEpoch, r.end.nanosecondsSinceEpoch)
                tally.take(r)
            case .record(let r):
                gathered.append(r)
            }
        }
        let batch: SampleBatchSink = { run in  // runs of samples from a large CSV, in one call each
            guard let firstSample = run.first, let lastSample = run.last else { return }
            if first == nil { first = firstSample.time.nanosecondsSinceEpoch }
            last = lastSample.time.nanosecondsSinceEpoch
            detector.push(run, handle)
        }
        let (from, rotated) = try Self.startingCursor(source, saved: saved, options: options, sink)
        var (summary, cursor) = try SourceReader.readNew(
            path: source.path, options: options, cursor: from, batch: batch, sink)
        if let rotated { summary = rotated.merged(with: summary) }
        let export = GatheredExport(path: source.path, from: from, byteLimit: byteLimit, overlap: options.overlap)
        let settled = try export.settle(&cursor, store: store, &summary, sink)
        try report(summary, anyData: first != nil || cursor?.gathering != nil, into: &ingest)
        export.note(&ingest, cursor: cursor, summary: summary, gathered: gathered, settled: settled)
        if let start = from?.inode, let now = cursor?.inode, now != start { ingest.finishedInode = start }
        ingest.moreToRead =
            export.moreToRead(cursor, settled: settled)
            ?? Self.stoppedByLimit(byteLimit, from: from, to: cursor, startedOver: summary.startedOver)
        let instant = { (ns: Int64?) in ns.map(Instant.init(nanosecondsSinceEpoch:)) }
        (ingest.next.lastSample, ingest.next.lastReadingEnd) = (instant(last), instant(lastReadingEnd))
        ingest.watermark = Self.watermark(
            &detector, moreToRead: ingest.moreToRead, lastSample: ingest.next.lastSample,
            lastReadingEnd: ingest.next.lastReadingEnd, follow: source.follow, now: now, handle)
        tally.count(
            into: &ingest, detected: detected, source: name, saved: saved, summary: summary,
            countedThrough: instant(countedThrough))
        (ingest.next.detector, ingest.next.cursor) = (detector, cursor)
        ingest.next.firstData = instant(first)
        return ingest
    }

    /// The position a read starts from: `saved`, with a detector (a fresh one when none could be read) and no
    /// problems yet.
    static func resumed(_ saved: SavedSource, parameters: DetectorParameters) -> SavedSource {
        var next = saved
        next.detector = saved.detector ?? Self.freshDetector(saved, parameters: parameters)
        next.problems = []
        return next
    }

    /// Whether a read from `from` to `to` stopped at `byteLimit` (not at the end of the input): at least the limit
    /// was consumed in this file, counted from its start when it started over (a newer export over the old one, read
    /// in slices). After a rotation, the old file's rest and the new file's start are no measure: the next fetch goes
    /// on.
    static func stoppedByLimit(_ byteLimit: Int64?, from: SourceCursor?, to cursor: SourceCursor?, startedOver: Bool)
        -> Bool
    {
        guard let byteLimit, let cursor, cursor != from, startedOver || cursor.inode == from?.inode ?? cursor.inode
        else { return false }
        return cursor.offset - (startedOver ? 0 : from?.offset ?? 0) >= byteLimit
    }

    /// Readings were counted but the position after them is lost (an unreadable cursor, or a file that started over:
    /// the source is read from its start): those ending up to the last one counted are not counted again, in every
    /// slice of that reading until it reaches the end. (A reading written later but ending earlier, out of time
    /// order, would be lost with them: the lesser harm than counting the rest twice.)
    static func readingsCountedThrough(_ saved: SavedSource) -> Instant? {
        saved.cursor == nil ? saved.lastReadingEnd : saved.skipReadingsThrough
    }

    /// What reading found about the input itself: a reader's saved state it could not use, skipped lines (kept until
    /// the fetch that closes a window reports them), an empty source or one that holds no steps, a unit corrected;
    /// relative times without `source.start` fail.
    func report(_ summary: ReadSummary, anyData: Bool, into ingest: inout SourceRead) throws {
        if summary.savedStateUnreadable {
            ingest.warnings.append(
                "the saved state of the \(summary.format) reader of \(source.path) cannot be read (written by another version?): reading went on without it, and step readings up to the last one counted were not counted again"
            )
        }
        ingest.next.skipped.add(summary)
        ingest.inputWarnings = ingest.next.skipped.warnings(file: source.path)
        // A file found out of time order, gathered from its start, says so (the fetch's log line; not a failure of
        // the walk trigger, which leaves a read with warnings to the next fetch).
        if summary.gatherBegan { ingest.notices += summary.notes.map { "\(source.path): \($0)" } }
        if !anyData, summary.skippedLines == 0 {
            // A ride's FIT file holds no steps by its own account: its note says why, not "nothing after the header".
            if summary.validWithoutSteps {
                ingest.inputWarnings += summary.notes.map { "\(source.path): \($0)" }
            } else if let empty = Self.emptyNote(source.path) {
                ingest.inputWarnings.append(empty)
            }
        }
        // A stated unit the data contradicted (a file in g labelled m/s²), said by the read that decided the units.
        if summary.kind == .acceleration { ingest.warnings += summary.notes.map { "\(source.path): \($0)" } }
        if summary.samples > 0 && !summary.absoluteTime && source.start == nil {
            throw FetchFailure(
                kind: .configuration,
                message:
                    "\(source.path): its times are relative (they start near 0): set source.start to the wall-clock time of its first sample"
            )
        }
    }

    /// A detector for a source without a readable saved one. Samples read again are refused by a detector whose
    /// last sample is after them; so where samples were counted but the position after them is lost (an unreadable
    /// cursor: the file is read from its start), the fresh one starts at the last sample counted, as a still phone.
    static func freshDetector(_ saved: SavedSource, parameters: DetectorParameters) -> StepDetector {
        var detector = StepDetector(parameters: parameters)
        if saved.cursor == nil, let last = saved.lastSample {
            detector.push(time: last, magnitude: standardGravity) { _ in }
        }
        return detector
    }

    /// Takes a live step counter's reading into its log first. False when there is nothing to read yet: a dry run
    /// before the first reading (a dry run writes nothing). Throws when the sampler has not written samples yet.
    static func observe(_ source: AgentConfiguration.Source, now: Instant, observeDevice: Bool) throws -> Bool {
        if let counter = source.stepCounter {
            if observeDevice {
                try counter.record(now: now)
            } else if !FileManager.default.fileExists(atPath: counter.logPath) {
                return false
            }
        }
        if let accelerometer = source.accelerometer, !FileManager.default.fileExists(atPath: accelerometer.samplePath) {
            throw InputError(
                file: accelerometer.samplePath,
                message:
                    "no samples yet: \(accelerometer.summary) is sampled by `steptweet agent`, which has not run with this configuration",
                kind: .notYetAvailable)
        }
        return true
    }

    /// How the source is read: its format, start and source preference, at most `byteLimit`, on every core it may use.
    static func readOptions(_ source: AgentConfiguration.Source, byteLimit: Int64?) -> ReadOptions {
        var options = ReadOptions.withSQLiteExports()  // a Gadgetbridge export, opened read-only by Store
        options.start = source.start.map(Instant.init)
        options.format = source.format
        options.rateHz = source.rateHz  // a recording without a time column (UCI HAR/HAPT)
        options.timeZone = source.timeZone  // a date-time without an offset is in text.time_zone
        options.byteLimit = byteLimit
        options.jobs = Parallelism.availableCores()  // a large slice of CSV is parsed on every core it may use
        if !source.prefer.isEmpty { options.overlap = .preferSources(source.prefer) }
        return options
    }

    /// Where reading starts: the saved cursor; before the first read of a sampled accelerometer, its rotated file
    /// first (read here, its summary returned), then the current file from its start under its identity.
    static func startingCursor(
        _ source: AgentConfiguration.Source, saved: SavedSource, options: ReadOptions,
        _ sink: (InputItem) -> Void
    ) throws -> (SourceCursor?, ReadSummary?) {
        var from = saved.cursor
        var rotated: ReadSummary?
        guard from == nil, let device = source.accelerometer else { return (from, nil) }
        if FileManager.default.fileExists(atPath: device.rotatedPath) {
            // The sampler rotated its file before any fetch read it: that file comes first.
            (rotated, from) = try SourceReader.readNew(path: device.rotatedPath, options: options, cursor: nil, sink)
        }
        if from == nil, let identity = Self.identity(of: source.path) {
            // Start at the current file's beginning under its identity, so that a rotation from now on is noticed
            // (and the renamed file read first) instead of starting in the new file.
            from = SourceCursor(offset: 0, lineNumber: 0, device: identity.device, inode: identity.inode)
        }
        return (from, rotated)
    }

    /// Up to when the source's steps are final (the window may close there), ending the detector's last bout when
    /// the input is over.
    static func watermark(
        _ detector: inout StepDetector, moreToRead: Bool, lastSample last: Instant?, lastReadingEnd: Instant?,
        follow: Bool, now: Instant, _ handle: (DetectorEvent) -> Void
    ) -> Instant {
        let settled = detector.settled
        if moreToRead {
            // A slice of a backlog: the rest follows, so nothing is over yet; the window may close only at what the
            // detector has settled (or, before any walk, at the last sample read; for a step log, at the end of the
            // latest reading read).
            return min(now, settled ?? last ?? lastReadingEnd ?? now)
        } else if !follow {
            // A complete recording: its last bout is over.
            detector.finish(handle)
            return now
        } else if let last, now - last > Self.lateDataAllowance {
            // The stream stopped: the next sample, if any, comes after a gap that ends the bout. End it now, so that
            // its last steps land in this window rather than after it was posted.
            detector.finish(handle)
            return now
        } else if let settled {
            // The stream may go on (samples can arrive a little after they were taken: a writer's buffer, a
            // rotation): candidates still waiting for a bout's confirmation may yet be credited, so the window
            // closes no later than the detector's settled time.
            return min(now, settled)
        }
        return now
    }

    /// How long after its last sample a growing source may still deliver samples that continue the same stream.
    /// Past it the stream is taken as ended: its bout is closed and windows close at the fetch time.
    static let lateDataAllowance = Duration.seconds(60)

    /// What to say of a source file with nothing to count in it, in `count`'s words; nil for a folder or a file
    /// that cannot be looked at.
    static func emptyNote(_ path: String) -> String? {
        var st = stat()
        guard stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        return st.st_size == 0 ? "\(path): file is empty" : "\(path): no samples or readings after the header"
    }

    static func identity(of path: String) -> (device: UInt64, inode: UInt64)? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return (UInt64(st.st_dev), UInt64(st.st_ino))
    }
}
