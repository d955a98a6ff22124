/// A step reading with the source that recorded it (a phone, a watch), as exports that hold several sources give
/// them: Apple Health's records, Samsung Health's pedometer rows. Held until the read ends, then combined by
/// `ReadOptions.overlap` so that a phone and a watch over the same minutes are not counted twice.
public struct SourcedReading: Codable, Sendable, Equatable {
    public var source: String
    public var reading: StepReading

    public init(source: String, reading: StepReading) {
        self.source = source
        self.reading = reading
    }

    /// `records` sorted (by start, then end) and split after their last run of overlapping records that ends by
    /// `bound`: the runs a record starting after `bound` can no longer join, and the rest.
    static func runs(_ records: [SourcedReading], endingBy bound: Int64) -> (
        done: [SourcedReading], rest: [SourcedReading]
    ) {
        let sorted = records.sorted { ($0.reading.startNs, $0.reading.endNs) < ($1.reading.startNs, $1.reading.endNs) }
        var cut = 0
        var runEnd = Int64.min
        for (i, r) in sorted.enumerated() {
            if i > 0, r.reading.startNs >= runEnd {
                // A run ended before this record: run ends only grow, so the first that ends after `bound` stops.
                guard runEnd <= bound else { break }
                cut = i
            }
            runEnd = max(runEnd, r.reading.endNs)
        }
        return (Array(sorted[..<cut]), Array(sorted[cut...]))
    }

    /// Applies `policy` to records of several sources: runs of overlapping records keep one source. A record repeated
    /// exactly (same source, interval and value: real exports hold such copies) is counted once, whatever the policy.
    static func combine(_ records: [SourcedReading], policy: OverlapPolicy) -> [StepReading] {
        var sorted = records.sorted {
            ($0.reading.startNs, $0.reading.endNs, $0.source, $0.reading.steps)
                < ($1.reading.startNs, $1.reading.endNs, $1.source, $1.reading.steps)
        }
        sorted = sorted.indices.filter { i in
            i == 0 || sorted[i].source != sorted[i - 1].source || sorted[i].reading != sorted[i - 1].reading
        }.map { sorted[$0] }
        if case .sumAll = policy { return sorted.map(\.reading) }
        var out: [StepReading] = []
        var i = 0
        while i < sorted.count {
            var j = i + 1
            var runEnd = sorted[i].reading.endNs
            while j < sorted.count, sorted[j].reading.startNs < runEnd {
                runEnd = max(runEnd, sorted[j].reading.endNs)
                j += 1
            }
            let run = sorted[i..<j]
            var totals: [String: Int] = [:]
            for h in run { totals[h.source, default: 0] += h.reading.steps }
            var keep = totals.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key ?? ""
            // The sources matching the first preferred name that matches any (by containment, ignoring case); of
            // them, the one with the most steps.
            let ranked = totals.compactMap { source, steps in policy.rank(of: [source]).map { ($0, -steps, source) } }
            if let first = ranked.min(by: <) { keep = first.2 }
            out += run.filter { $0.source == keep }.map(\.reading)
            i = j
        }
        return out
    }
}

/// A parser of records of several sources, read in slices (Apple Health's, Samsung Health's): at a slice's end, the
/// runs of overlapping records that end a day (`deliveryMargin`) before the latest record start read are combined and
/// delivered, the rest held for the next slice. A record that starts before the end of what was delivered could have
/// joined a run already counted (an export grouped by source, shuffled): reading it throws `RecordsOutOfOrder`, and
/// the file's records are gathered from its start (`ReadOptions.gather`: each handed out as `InputItem.record`, none
/// held) and settled in start order by the caller (`SourceCursor.Gathering`), so that a sliced read counts what one
/// read of the file counts.
/// The three properties are the parser's own (its saved state keeps `held` under the name it always had).
protocol HoldsSourcedRecords {
    var held: [SourcedReading] { get set }
    /// The latest record start read (nanoseconds); nil in states saved before it was kept.
    var latestStart: Int64? { get set }
    /// The latest end of a record delivered at a slice's end (nanoseconds).
    var deliveredThrough: Int64? { get set }
}

extension HoldsSourcedRecords {
    /// How long before the latest start read a run must end to be delivered at a slice's end: records written a
    /// little out of time order (a watch's synced after the phone's) stay in slices.
    static var deliveryMargin: Int64 { 86_400 * 1_000_000_000 }

    /// Holds `record`; throws when it starts before what was delivered. While the file is gathered
    /// (`ReadOptions.gather`), hands it out as it is instead, and `deliveredThrough` becomes the latest end read: a
    /// record written later that starts before it is out of order again.
    mutating func hold(_ record: SourcedReading, options: ReadOptions, _ emit: (InputItem) -> Void) throws {
        let start = record.reading.startNs
        if options.gather {
            latestStart = max(latestStart ?? start, start)
            deliveredThrough = max(deliveredThrough ?? record.reading.endNs, record.reading.endNs)
            return emit(.record(record))
        }
        if let through = deliveredThrough, start < through { throw RecordsOutOfOrder(start: start, through: through) }
        latestStart = max(latestStart ?? start, start)
        held.append(record)
    }

    /// A slice ends: delivers the runs that end `deliveryMargin` before the latest start read.
    mutating func deliverSettled(policy: OverlapPolicy, _ emit: (InputItem) -> Void) {
        let (bound, overflow) = (latestStart ?? .min).subtractingReportingOverflow(Self.deliveryMargin)
        let (done, rest) = SourcedReading.runs(held, endingBy: overflow ? .min : bound)
        if let end = done.map(\.reading.endNs).max() { deliveredThrough = max(deliveredThrough ?? end, end) }
        for r in SourcedReading.combine(done, policy: policy) { emit(.reading(r)) }
        held = rest
    }

    /// The read ends: delivers everything held.
    mutating func deliverHeld(policy: OverlapPolicy, _ emit: (InputItem) -> Void) {
        for r in SourcedReading.combine(held, policy: policy) { emit(.reading(r)) }
        held.removeAll()
    }
}

/// A record read in a slice starts before the end of what earlier slices delivered: the file's records are not in
/// time order, and only its records settled in start order (`SourceCursor.Gathering`) count it as one read does.
struct RecordsOutOfOrder: Error {
    var start: Int64
    var through: Int64
}
