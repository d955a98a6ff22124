import Foundation

/// Local days and wall-clock times without an offset (an export's local dates and minutes, Gadgetbridge's running
/// totals that reset at local midnight) in `ReadOptions.timeZone` (`--time-zone`), else the machine's zone. A local
/// time is given as seconds since 1970-01-01 00:00 on the local clock (the date and time read as if they were UTC).
/// Offsets are cached per quarter hour of UTC (every zone changes its offset on a quarter hour): a year of minutes
/// asks the zone a few thousand times, not millions.
struct LocalTime {
    var zone: TimeZone
    private var cache: [Int64: Int64] = [:]

    init(zone: TimeZone) { self.zone = zone }

    /// The zone's offset from UTC (s) at instant `t` (Unix s).
    mutating func offset(_ t: Int64) -> Int64 {
        let quarter = TimeParsing.floorDiv(t, 900)
        if let o = cache[quarter] { return o }
        let o = Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(quarter * 900))))
        cache[quarter] = o
        return o
    }

    /// The local day (days since 1970-01-01 on the local calendar) of instant `t` (Unix s).
    mutating func localDay(_ t: Int64) -> Int64 { TimeParsing.floorDiv(t + offset(t), 86_400) }

    /// The instants (Unix s) that read `local` on the zone's clock, earliest first: one; two in the hour a fall-back
    /// repeats; none in the hour a spring-forward skips.
    mutating func instants(_ local: Int64) -> [Int64] {
        // The offsets a day either side bracket a change near `local` (changes are months apart).
        var out: [Int64] = []
        for o in [offset(local - 86_400), offset(local), offset(local + 86_400)] where !out.contains(local - o) {
            if offset(local - o) == o { out.append(local - o) }
        }
        return out.sorted()
    }

    /// The instant (Unix s) of `local`: the first one after `after` (the previous row's, so that rows going on through
    /// a repeated hour land in its second pass), else the earliest; a time the clock skips is read with the offset
    /// before the change (02:30 on a spring-forward day is 03:30 of the new offset).
    mutating func instant(_ local: Int64, after: Int64? = nil) -> Int64 {
        let before = offset(local - 86_400)
        // No change near: the one instant, without building the list.
        if before == offset(local + 86_400), offset(local - before) == before { return local - before }
        let all = instants(local)
        if let after, let later = all.first(where: { $0 > after }) { return later }
        return all.first ?? local - before
    }

    /// Seconds since the epoch of 00:00 on the local day whose date is `utcMidnight` (s) read as UTC (a day of a DST
    /// change lasts 23 or 25 hours: each midnight has its own offset).
    mutating func midnight(_ utcMidnight: Int64) -> Int64 { instant(utcMidnight) }

    /// A reading of `steps` over the local day whose date is `utcMidnight` (s) read as UTC.
    mutating func day(_ utcMidnight: Int64, steps: Int) -> StepReading {
        StepReading(
            startNs: midnight(utcMidnight) * 1_000_000_000, endNs: midnight(utcMidnight + 86_400) * 1_000_000_000,
            steps: steps)
    }
}
