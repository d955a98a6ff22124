import Foundation
import StepDetection

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Storage for one range's samples, written by the thread that parses the range and read by the one that delivers
/// it; then handed back to its `SampleBlockPool` for a later range.
final class SampleBlock: @unchecked Sendable {
    let base: UnsafeMutablePointer<AccelerationSample>
    let capacity: Int
    /// Samples written, from `base`.
    var count = 0

    init(capacity: Int) {
        self.capacity = capacity
        base = .allocate(capacity: capacity)
    }

    deinit { base.deallocate() }

    var samples: UnsafeBufferPointer<AccelerationSample> { UnsafeBufferPointer(start: base, count: count) }
}

/// The sample blocks of one read, reused from range to range. With a new allocation for every range, parser threads
/// wrote into freshly mapped pages: a block freed by the delivering thread went back to the parsing thread's heap,
/// whose top glibc then trimmed, so its pages were faulted in again (15,000 page faults and 0.05-0.07 s of system time
/// on the 448 MB stream with two threads). At most the ranges in flight hold a block, so the pool stays that small.
final class SampleBlockPool: @unchecked Sendable {
    private let lock = NSLock()
    private var free: [SampleBlock] = []

    /// A block of at least `capacity` samples, empty.
    func take(capacity: Int) -> SampleBlock {
        lock.lock()
        let index = free.lastIndex { $0.capacity >= capacity }
        let reused = index.map { free.remove(at: $0) }
        lock.unlock()
        guard let reused else { return SampleBlock(capacity: capacity) }
        reused.count = 0
        return reused
    }

    /// Hands a block back once its samples are delivered.
    func give(_ block: SampleBlock) {
        lock.lock()
        free.append(block)
        lock.unlock()
    }
}

/// The lines of a CSV file that start in one byte range, parsed into samples on their own.
struct ParsedChunk: Sendable {
    /// The samples (nil: none were parsed, e.g. the read failed).
    var block: SampleBlock?
    var samples: UnsafeBufferPointer<AccelerationSample> { block?.samples ?? UnsafeBufferPointer(start: nil, count: 0) }
    /// The line of each sample, counted from the chunk's first line (1); empty while every line gave a sample, so
    /// that the usual chunk stores no line numbers (`line(ofSample:)` reads either).
    var sampleLines: [Int32] = []
    /// Whether the samples' times never decrease within the chunk: then only the first needs checking against the
    /// samples before the chunk.
    var inOrder = true
    /// The first lines that could not be read (line numbers counted from the chunk's first line), in line order.
    var issues: [InputError] = []
    /// Further unreadable lines, only counted.
    var unreportedIssues = 0
    /// Lines taken, blank and bad ones included.
    var lineCount = 0
    /// Offset just after the last line taken.
    var end: Int64 = 0
    /// Reading ends with this chunk: a last line without a newline was left, or `strict` met a bad line.
    var stops = false
    /// The read itself failed.
    var failure: InputError?
    /// Rows at clock times the zone skips, and the indices of their samples, ascending.
    var clockChanges = ClockChangeNotes()
    var gapSamples: [Int32] = []

    /// The line of sample `j`, counted from the chunk's first line.
    func line(ofSample j: Int) -> Int32 { sampleLines.isEmpty ? Int32(j + 1) : sampleLines[j] }
}

/// Splits the data lines of a generic CSV file (header and units known) into byte ranges at line boundaries and
/// parses each range on its own, so that ranges can be parsed on several cores and handed to the detector in file
/// order. A line belongs to the range its first byte lies in; the first range starts at a line start.
struct CSVChunkParser: Sendable {
    let path: String
    let source: ByteSource
    let layout: GenericCSVReader.Layout
    let scale: GenericCSVReader.Scale
    let options: ReadOptions
    let completeLinesOnly: Bool
    /// Lines starting in `begin..<limitEnd` are read, in ranges of `chunkBytes`.
    let begin: Int64
    let limitEnd: Int64
    let chunkBytes: Int64
    /// A zip entry's ranges, cut as it is inflated (`source` is then not read).
    var inflated: InflatedRanges? = nil
    /// Where ranges take their sample blocks from (and the deliverer hands them back).
    let blocks = SampleBlockPool()

    var count: Int { limitEnd <= begin ? 0 : Int((limitEnd - begin + chunkBytes - 1) / chunkBytes) }

    /// Parses range `k`. Never throws: a failed read is reported in the chunk.
    func parse(_ k: Int) -> ParsedChunk {
        let start = begin + Int64(k) * chunkBytes
        let stop = min(start + chunkBytes, limitEnd)
        // Range k > 0 reads one byte before its start, to know whether a line starts right there.
        let from = k == 0 ? start : start - 1
        var chunk = ParsedChunk()
        var buffer: ByteBuffer
        let length: Int
        if let inflated {
            do {
                (buffer, length) = try inflated.range(k)
            } catch {
                chunk.failure = error as? InputError ?? InputError(file: path, message: "\(error)")
                return chunk
            }
        } else {
            buffer = ByteBuffer(capacity: Int(stop - from) + 4096)
            do {
                length = try source.read(
                    &buffer, at: from, count: Int(stop - from), throughLineEndAtOrAfter: Int(stop - from) - 1,
                    ifALineStarts: k > 0)
            } catch {
                buffer.free()
                var e = error as? InputError ?? InputError(file: path, message: "\(error)")
                e.file = path
                chunk.failure = e
                return chunk
            }
        }
        defer { buffer.free() }
        let p = buffer.base
        p[length] = 0x0A  // a sentinel newline ends an unterminated last line: no bounds checks in the hot loop
        var i = 0
        if k > 0 {
            guard length > 0 else {
                chunk.end = from
                return chunk
            }
            if p[0] == 0x0A {
                i = 1
            } else if let nl = memchr(p, 0x0A, length) {
                i = p.distance(to: nl.assumingMemoryBound(to: UInt8.self)) + 1
            } else {
                i = length
            }
        }
        scan(p, length: length, from: i, startsBefore: Int(stop - from), into: &chunk)
        chunk.end = from + Int64(min(chunk.end, Int64(length)))
        return chunk
    }

    /// `body` with the block's storage.
    @inline(__always)
    private func withSampleStorage(_ block: SampleBlock, _ body: (UnsafeMutablePointer<AccelerationSample>) -> Int)
        -> Int
    {
        body(block.base)
    }

    /// Parses the lines starting at `start` and before `limit` of a buffer whose byte at `length` is a newline.
    /// `chunk.end` is set to the buffer index after the last line taken.
    private func scan(
        _ p: UnsafeMutablePointer<UInt8>, length: Int, from start: Int, startsBefore limit: Int,
        into chunk: inout ParsedChunk
    ) {
        // Samples are written in place into a block from the pool, not appended: no capacity check and count update
        // through an array per sample. Every line that gives a sample takes at least `fieldCount + 1` bytes with its
        // newline (one byte per field read, at least two, and a delimiter between fields, one field fewer when the
        // row ends in the delimiter), so no range holds more than this many.
        let capacity = max(0, limit - start) / (layout.fieldCount + 1) + 1
        let block = blocks.take(capacity: capacity)
        chunk.block = block
        var range = RangeScan(self, from: start, startsBefore: limit, capacity: capacity)
        // The loop runs in a closure handed the block's storage: as plain statements here it ran 6 % slower (the
        // field parser was inlined differently).
        block.count = withSampleStorage(block) { out in range.run(p, length: length, limit: limit, into: out) }
        range.write(into: &chunk)
    }
}

extension GenericCSVReader {
    /// Reads the rest of the file from `state.offset` in byte ranges parsed on `options.jobs` threads, delivering
    /// samples and skipped lines in file order.
    static func readChunks(
        path: String, options: ReadOptions, completeLinesOnly: Bool, source: LineSource,
        layout: Layout, scale: Scale, byteBudget: Int64?, _ state: inout ReadState,
        batch: SampleBatchSink?, _ sink: (AccelerationSample) -> Void
    ) throws {
        let bytes: ByteSource
        var fd: Int32 = -1
        defer { if fd >= 0 { close(fd) } }
        let size: Int64
        switch source {
        case .memory(let b):
            bytes = .memory(b)
            size = Int64(b.count)
        case .file:
            (fd, size) = try LineReader.openFile(path, at: 0)
            bytes = .file(fd)
        case .zipEntry(let member):
            bytes = .memory([])
            size = member.entry.size
        }
        let limitEnd = min(size, byteBudget.map { state.offset + max(0, $0) } ?? size)
        var parser = CSVChunkParser(
            path: path, source: bytes, layout: layout, scale: scale, options: options,
            completeLinesOnly: completeLinesOnly, begin: state.offset, limitEnd: limitEnd,
            chunkBytes: Int64(max(1, options.chunkBytes)))
        if case .zipEntry(let member) = source {
            // An entry has no offsets to read ranges at: they are cut from it as it is inflated, a window at a time.
            parser.inflated = try InflatedRanges(
                member, begin: state.offset, limitEnd: limitEnd, chunkBytes: parser.chunkBytes)
        }
        var meter = ProgressMeter(total: limitEnd - state.offset, enabled: options.progress)
        defer { meter.finish() }
        let jobs = max(1, options.jobs)
        try Parallelism.ordered(parser.count, jobs: jobs, window: 2 * jobs, produce: parser.parse) { _, chunk in
            if let failure = chunk.failure { throw failure }
            try deliver(chunk, lineBase: state.lastLine, path: path, options: options, &state, batch: batch, sink)
            if let block = chunk.block { parser.blocks.give(block) }  // delivered: its samples are not read again
            meter.advance(chunk.end - state.offset)
            state.offset = chunk.end
            state.lastLine += chunk.lineCount
            return !chunk.stops
        }
        // The entry read to its end: a damaged one is an error, also when the ranges stopped before its end.
        try parser.inflated?.finish()
    }

    /// Whether a sample of `chunk` lies more than `AheadHold.aheadNs` after the one before it (`previousNs` for
    /// its first): such a chunk takes the checked path, sample by sample.
    static func jumpsAhead(_ chunk: ParsedChunk, after previousNs: Int64?) -> Bool {
        var previous = previousNs
        for sample in chunk.samples {
            let t = sample.time.nanosecondsSinceEpoch
            if AheadHold.holds(t, after: previous) { return true }
            previous = t
        }
        return false
    }

    /// Delivers a parsed chunk's samples and skipped lines in line order, checking time order across chunks. With
    /// `batch`, the accepted samples go to it in runs (the whole chunk when nothing in it is skipped), each run before
    /// the skipped line after it; otherwise one by one to `sink`.
    static func deliver(
        _ chunk: ParsedChunk, lineBase: Int, path: String, options: ReadOptions, _ state: inout ReadState,
        batch: SampleBatchSink? = nil, _ sink: (AccelerationSample) -> Void
    ) throws {
        let inOrder = state.holdClock(in: chunk)
        if let first = chunk.samples.first?.time.nanosecondsSinceEpoch,
            let last = chunk.samples.last?.time.nanosecondsSinceEpoch, inOrder, chunk.issues.isEmpty,
            state.lastNs.map({ first >= $0 }) ?? true, state.ahead == nil, !Self.jumpsAhead(chunk, after: state.lastNs)
        {
            // The usual chunk, nothing skipped and in order after the samples before it: what
            // `deliverChecked` does, at once.
            if let batch {
                batch(chunk.samples)
            } else {
                for sample in chunk.samples { sink(sample) }
            }
            state.lastNs = last
            state.summary.note(samples: chunk.samples.count, from: first, to: last)
        } else {
            try deliverChecked(chunk, lineBase: lineBase, path: path, options: options, &state, batch: batch, sink)
        }
        state.clockChanges.add(chunk.clockChanges)
        if !chunk.samples.isEmpty {
            state.summary.absoluteTime = state.probe.scale?.absolute == true || options.start != nil
        }
    }

    /// `deliver` sample by sample: a chunk with skipped lines, times out of order or far ahead (`AheadHold`).
    static func deliverChecked(
        _ chunk: ParsedChunk, lineBase: Int, path: String, options: ReadOptions, _ state: inout ReadState,
        batch: SampleBatchSink?, _ sink: (AccelerationSample) -> Void
    ) throws {
        var nextIssue = 0
        var runStart = 0
        func flush(upTo end: Int) {
            guard let batch, end > runStart else { return }
            batch(UnsafeBufferPointer(rebasing: chunk.samples[runStart..<end]))
        }
        func skip(_ e: InputError, before j: Int) throws {
            flush(upTo: j)
            runStart = j
            var e = e
            e.line = e.line.map { lineBase + $0 }
            try state.summary.skip(e, options: options)
        }
        for j in 0..<chunk.samples.count {
            let sample = state.sample(j, of: chunk)
            let line = Int(chunk.line(ofSample: j))
            while nextIssue < chunk.issues.count, chunk.issues[nextIssue].line ?? 0 < line {
                try skip(chunk.issues[nextIssue], before: j)
                nextIssue += 1
            }
            let judged = AheadHold.judge(sample, line: lineBase + line, lastNs: state.lastNs, ahead: &state.ahead)
            if let held = judged.released {
                flush(upTo: j)
                runStart = j
                state.deliverHeld(held, batch: batch, sink)
            }
            if let d = judged.dropped {
                try skip(InputError(file: path, line: d.line.map { $0 - lineBase }, message: d.message), before: j)
            }
            switch judged.verdict {
            case .backwards(let problem):
                try skip(InputError(file: path, line: line, message: problem), before: j)
                runStart = j + 1
                continue
            case .held:
                flush(upTo: j)
                runStart = j + 1
                continue
            case .deliver: break
            }
            state.lastNs = sample.time.nanosecondsSinceEpoch
            if batch == nil { sink(sample) }
            state.summary.note(sampleAt: sample.time.nanosecondsSinceEpoch)
        }
        flush(upTo: chunk.samples.count)
        runStart = chunk.samples.count
        for e in chunk.issues[nextIssue...] { try skip(e, before: chunk.samples.count) }
        state.summary.skippedLines += chunk.unreportedIssues
    }
}
