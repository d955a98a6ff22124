import Foundation

/// Wall-clock times without an offset (an export's local dates and minutes) as instants, in `ReadOptions.timeZone`
/// (`--time-zone`) or the machine's zone. A local time is given as seconds since 1970-01-01 00:00 on the local clock
/// (the date and time read as if they were UTC).
enum LocalTime {
    /// The zone's offset from UTC (s) at instant `t` (Unix s).
    static func offset(_ t: Int64, _ zone: TimeZone) -> Int64 {
        Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(t))))
    }

    /// The instants (Unix s) that read `local` on the clock of `zone`, earliest first: one; two in the hour a
    /// fall-back repeats; none in the hour a spring-forward skips.
    static func instants(_ local: Int64, _ zone: TimeZone) -> [Int64] {
        // The offsets a day either side bracket a change near `local` (changes are months apart).
        let offsets = Set([offset(local - 86_400, zone), offset(local, zone), offset(local + 86_400, zone)])
        return offsets.map { local - $0 }.filter { offset($0, zone) == local - $0 }.sorted()
    }

    /// The instant (Unix s) of `local`: the first one after `after` (the previous row's, so that rows going on through
    /// a repeated hour land in its second pass), else the earliest; a time the clock skips is read with the offset
    /// before the change (02:30 on a spring-forward day is 03:30 of the new offset).
    static func instant(_ local: Int64, _ zone: TimeZone, after: Int64? = nil) -> Int64 {
        let all = instants(local, zone)
        if let after, let later = all.first(where: { $0 > after }) { return later }
        return all.first ?? local - offset(local - 86_400, zone)
    }

    /// Seconds since the epoch of 00:00 in `zone` on the day that starts at `utcMidnight` in UTC (a day of a DST
    /// change lasts 23 or 25 hours: each midnight has its own offset).
    static func midnight(_ utcMidnight: Int64, _ zone: TimeZone) -> Int64 { instant(utcMidnight, zone) }

    /// A reading of `steps` over the local day whose date is `utcMidnight` (s) read as UTC.
    static func day(_ utcMidnight: Int64, _ zone: TimeZone, steps: Int) -> StepReading {
        StepReading(
            startNs: midnight(utcMidnight, zone) * 1_000_000_000,
            endNs: midnight(utcMidnight + 86_400, zone) * 1_000_000_000, steps: steps)
    }
}
