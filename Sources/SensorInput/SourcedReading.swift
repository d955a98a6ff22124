/// A step reading with the source that recorded it (a phone, a watch), as exports that hold several sources give
/// them: Apple Health's records, Samsung Health's pedometer rows. Held until the read ends, then combined by
/// `ReadOptions.overlap` so that a phone and a watch over the same minutes are not counted twice.
struct SourcedReading: Codable, Sendable {
    var source: String
    var reading: StepReading

    /// `records` split before their last run of overlapping records (in start order): what a later record, starting
    /// after all of them, can no longer join, and the run it can.
    static func lastRun(_ records: [SourcedReading]) -> (before: [SourcedReading], last: [SourcedReading]) {
        let sorted = records.sorted { ($0.reading.startNs, $0.reading.endNs) < ($1.reading.startNs, $1.reading.endNs) }
        var runStart = 0
        var runEnd = Int64.min
        for (i, r) in sorted.enumerated() {
            if r.reading.startNs >= runEnd { runStart = i }
            runEnd = max(runEnd, r.reading.endNs)
        }
        return (Array(sorted[..<runStart]), Array(sorted[runStart...]))
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
