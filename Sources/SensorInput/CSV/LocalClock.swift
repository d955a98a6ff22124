import Foundation
import StepDetection

/// What a reader of local clock times tells the person about the clock changes a recording crossed (into
/// `ReadSummary.notes`): rows in an hour the clocks repeat, read as its second pass because the times went back, and
/// rows at clock times the clocks skip, read forward by the gap. Neither loses a row, and neither is silent.
struct ClockChangeNotes: Sendable, Equatable {
    var repeated = 0
    var skipped = 0
    /// The clock time (ns since 1970-01-01 00:00 on the local clock) of the first row of each kind.
    var firstRepeatedLocalNs: Int64?
    var firstSkippedLocalNs: Int64?

    mutating func noteRepeated(localNs: Int64) {
        repeated += 1
        if firstRepeatedLocalNs == nil { firstRepeatedLocalNs = localNs }
    }

    mutating func noteSkipped(localNs: Int64) {
        skipped += 1
        if firstSkippedLocalNs == nil { firstSkippedLocalNs = localNs }
    }

    /// Adds the rows `other` saw after these.
    mutating func add(_ other: ClockChangeNotes) {
        repeated += other.repeated
        skipped += other.skipped
        firstRepeatedLocalNs = firstRepeatedLocalNs ?? other.firstRepeatedLocalNs
        firstSkippedLocalNs = firstSkippedLocalNs ?? other.firstSkippedLocalNs
    }

    /// The notes for a read in `zone`, none when no row met a change.
    func notes(zone: TimeZone) -> [String] {
        func clock(_ localNs: Int64) -> String {
            String(StepLogLine.rfc3339(localNs).prefix(19)).replacingOccurrences(of: "T", with: " ")
        }
        func rows(_ n: Int) -> String { n == 1 ? "1 row" : "\(n) rows" }
        var out: [String] = []
        if let first = firstRepeatedLocalNs {
            out.append(
                "\(rows(repeated)) in the hour the clocks of \(zone.identifier) repeat (from \(clock(first))) read as "
                    + "its second pass: the times went back there, and a recording's times go on")
        }
        if let first = firstSkippedLocalNs {
            let kept = zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(first / 1_000_000_000 - 86_400)))
            let offset = String(format: "%@%02d:%02d", kept < 0 ? "-" : "+", abs(kept) / 3600, abs(kept) / 60 % 60)
            out.append(
                "\(rows(skipped)) at clock times \(zone.identifier) skips (from \(clock(first))): these and the rows "
                    + "after them read at the offset before the change, \(offset), as the device's clock did not move")
        }
        return out
    }
}

/// Date-time text without an offset, row after row, as instants on the clock of `ReadOptions.timeZone`
/// (`--time-zone`, the configuration's `text.time_zone`, else the machine's zone), through `ZoneOffsets` as the
/// generic CSV reader reads it: a clock time that goes back into the hour the clocks repeat is its second pass, one
/// the clocks skip is read forward by the gap, each counted for the read's notes. For the line formats (Axivity,
/// GENEActiv, ActiGraph); saved with their state (follow mode) without the zone's table.
struct LocalClock: Codable, Sendable {
    /// An offset (ns east of UTC) the file states for all its times (GENEActiv's `Time Zone`), which wins over the
    /// zone.
    var fixedOffsetNs: Int64?
    /// The instant of the last time read: whether the next goes back.
    var lastNs: Int64?
    /// The offset the device kept over a spring change, once a time in its gap was read.
    var held: HeldClock?
    /// This read's rows at a clock change (not saved: each read notes its own).
    var changes = ClockChangeNotes()
    /// The zone's table (nil: UTC), looked up once per read.
    private var table: ZoneOffsets??

    private enum CodingKeys: String, CodingKey { case fixedOffsetNs, lastNs, held }

    init() {}

    /// The instant of a time `parseDateTime` read: as written when it has an offset, else on the local clock.
    mutating func instantNs(_ parsed: (ns: Int64, hadZone: Bool), options: ReadOptions) -> Int64 {
        var ns = parsed.ns
        if !parsed.hadZone {
            if let fixedOffsetNs {
                ns -= fixedOffsetNs
            } else if let zone = zone(options) {
                let resolved = zone.resolveNs(localNs: ns)
                if resolved.skipped {
                    changes.noteSkipped(localNs: ns)
                    if held == nil { held = zone.heldClock(fromGapInstantNs: resolved.instant) }
                }
                let instant = held?.instantNs(resolved.instant, inGap: resolved.skipped) ?? resolved.instant
                if let previous = lastNs, let second = zone.secondPass(ofNs: instant, after: previous) {
                    changes.noteRepeated(localNs: ns)
                    ns = second
                } else {
                    ns = instant
                }
            }
        }
        lastNs = ns
        return ns
    }

    /// A single clock time with nothing before it (ActiGraph's Start Date and Time): its first pass, or forward by
    /// the gap.
    mutating func instantNs(localNs: Int64, options: ReadOptions) -> Int64 {
        if let fixedOffsetNs { return localNs - fixedOffsetNs }
        return zone(options)?.instantNs(localNs: localNs) ?? localNs
    }

    /// The notes of this read's rows at a clock change.
    var notes: [String] {
        guard case .some(.some(let zone)) = table else { return [] }
        return changes.notes(zone: zone.zone)
    }

    private mutating func zone(_ options: ReadOptions) -> ZoneOffsets? {
        if let table { return table }
        let found = ZoneOffsets.converting(options.timeZone)
        table = .some(found)
        return found
    }
}

extension GenericCSVReader.ReadState {

    /// For a time that goes back from `previous`: the second pass of an hour the clocks repeat when the time
    /// column is local clock time and the row lies in that hour's first pass (`ZoneOffsets.secondPass`).
    mutating func secondPass(of timeNs: Int64, after previous: Int64) -> Int64? {
        guard let zone = localZone, let second = zone.secondPass(ofNs: timeNs, after: previous) else { return nil }
        clockChanges.noteRepeated(localNs: zone.localNs(ofNs: timeNs))
        return second
    }

    /// A time read as `ns` on the zone's clock, at the offset the device kept once a row lay in a spring gap
    /// (`inGap`: this one does).
    mutating func heldTime(_ ns: Int64, inGap: Bool) -> Int64 {
        guard let zone = localZone else { return ns }
        if inGap, held == nil { held = zone.heldClock(fromGapInstantNs: ns) }
        return held?.instantNs(ns, inGap: inGap) ?? ns
    }

    /// The samples of `chunk` at the offset the device kept once a row lay in a spring gap (`heldTime`), moved in
    /// the chunk's block; whether their times still never decrease.
    mutating func holdClock(in chunk: ParsedChunk) -> Bool {
        guard localZone != nil, held != nil || !chunk.gapSamples.isEmpty, let block = chunk.block else {
            return chunk.inOrder
        }
        var nextGap = 0
        var inOrder = true
        var last = Int64.min
        for j in 0..<block.count {
            let inGap = nextGap < chunk.gapSamples.count && Int(chunk.gapSamples[nextGap]) == j
            if inGap { nextGap += 1 }
            let t = heldTime(block.base[j].time.nanosecondsSinceEpoch, inGap: inGap)
            block.base[j].time.nanosecondsSinceEpoch = t
            if t < last { inOrder = false }
            last = t
        }
        return inOrder
    }

    /// Sample `j` of `chunk`, moved into the second pass of a repeated hour when it goes back there (in the chunk's
    /// block too, so that the run handed on from the block carries it).
    mutating func sample(_ j: Int, of chunk: ParsedChunk) -> AccelerationSample {
        var sample = chunk.samples[j]
        guard let previous = lastNs, let second = secondPass(of: sample.time.nanosecondsSinceEpoch, after: previous)
        else { return sample }
        sample.time.nanosecondsSinceEpoch = second
        chunk.block?.base[j].time.nanosecondsSinceEpoch = second
        return sample
    }
}

extension GenericCSVReader {
    /// Whether the time field of a first data row (`fields`) is date-time text with an offset; nil when it is not
    /// date-time text.
    static func dateTimeHasOffset(_ fields: [String], _ l: Layout) -> Bool? {
        guard l.time < fields.count else { return nil }
        let text = Substring(fields[l.time]).trimmingPrefixSpaces()
        if let parsed = TimeParsing.parseDateTime(text) { return parsed.hadZone }
        return TimeParsing.parseMonthNameDateTime(text) != nil ? false : nil
    }
}
