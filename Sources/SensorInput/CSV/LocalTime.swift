import Foundation

/// Local days and wall-clock times without an offset (an export's local dates and minutes, Gadgetbridge's running
/// totals that reset at local midnight) in `ReadOptions.timeZone` (`--time-zone`), else the machine's zone. A local
/// time is given as seconds since 1970-01-01 00:00 on the local clock (the date and time read as if they were UTC).
/// The offsets come from the zone's `ZoneOffsets` table, the one the generic CSV reader uses; what this adds is the
/// daily exports' reading of a repeated hour: a row is put in the first pass after the previous row's instant, so an
/// equal clock time after a row in the first pass is the second pass (`instant(_:after:)`).
struct LocalTime {
    let offsets: ZoneOffsets

    init(zone: TimeZone) { offsets = ZoneOffsets.of(zone) }

    /// The zone's offset from UTC (s) at instant `t` (Unix s).
    func offset(_ t: Int64) -> Int64 { offsets.offset(atUTC: t) }

    /// The local day (days since 1970-01-01 on the local calendar) of instant `t` (Unix s).
    func localDay(_ t: Int64) -> Int64 { TimeParsing.floorDiv(t + offset(t), 86_400) }

    /// The instants (Unix s) that read `local` on the zone's clock, earliest first: one; two in the hour a fall-back
    /// repeats; none in the hour a spring-forward skips.
    func instants(_ local: Int64) -> [Int64] {
        // The offsets a day either side bracket a change near `local` (changes are months apart).
        var out: [Int64] = []
        for o in [offset(local - 86_400), offset(local), offset(local + 86_400)] where !out.contains(local - o) {
            if offset(local - o) == o { out.append(local - o) }
        }
        return out.sorted()
    }

    /// The instant (Unix s) of `local`: the first one after `after` (the previous row's, so that rows going on through
    /// a repeated hour land in its second pass), else the earliest; a time the clock skips is read with the offset
    /// before the change (02:30 on a spring-forward day is 03:30 of the new offset): `ZoneOffsets.instant(local:)`.
    func instant(_ local: Int64, after: Int64? = nil) -> Int64 {
        let earliest = offsets.instant(local: local)
        guard let after, earliest <= after else { return earliest }
        return instants(local).first(where: { $0 > after }) ?? earliest
    }

    /// Seconds since the epoch of 00:00 on the local day whose date is `utcMidnight` (s) read as UTC (a day of a DST
    /// change lasts 23 or 25 hours: each midnight has its own offset).
    func midnight(_ utcMidnight: Int64) -> Int64 { instant(utcMidnight) }

    /// A reading of `steps` over the local day whose date is `utcMidnight` (s) read as UTC.
    func day(_ utcMidnight: Int64, steps: Int) -> StepReading {
        StepReading(
            startNs: midnight(utcMidnight) * 1_000_000_000, endNs: midnight(utcMidnight + 86_400) * 1_000_000_000,
            steps: steps)
    }
}
