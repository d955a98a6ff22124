import Foundation

/// A time zone's offsets from UTC as the instants where they change, for reading local wall-clock times (a generic
/// CSV's date-time column without an offset) on every parsing thread without asking Foundation for each row: a time
/// costs a binary search or two, and a zone without changes (UTC, a fixed offset) none. The table covers 1970 to
/// 2100; a time outside it asks the zone itself.
final class ZoneOffsets: Sendable {
    let zone: TimeZone
    /// Instants (Unix s) where the offset changes, ascending.
    let changes: [Int64]
    /// `offsets[i]`: the offset (s) before `changes[i]` and from `changes[i - 1]`; one more than `changes`.
    let offsets: [Int64]

    /// The end of the table: 2100-01-01T00:00:00Z.
    static let tableEnd: Int64 = 4_102_444_800

    init(zone: TimeZone) {
        self.zone = zone
        var changes: [Int64] = []
        var offsets = [Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: 0)))]
        var after = Date(timeIntervalSince1970: 0)
        while let next = zone.nextDaylightSavingTimeTransition(after: after), next > after,
            Int64(next.timeIntervalSince1970) < Self.tableEnd
        {
            let offset = Int64(zone.secondsFromGMT(for: next))
            if offset != offsets.last {
                changes.append(Int64(next.timeIntervalSince1970.rounded()))
                offsets.append(offset)
            }
            after = next
        }
        self.changes = changes
        self.offsets = offsets
    }

    /// The offset (s) in force at instant `t` (Unix s).
    func offset(atUTC t: Int64) -> Int64 {
        if changes.isEmpty { return offsets[0] }
        guard t >= 0, t < Self.tableEnd else {
            return Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(t))))
        }
        var low = 0
        var high = changes.count
        while low < high {
            let middle = (low + high) / 2
            if changes[middle] <= t { low = middle + 1 } else { high = middle }
        }
        return offsets[low]
    }

    /// The instant (Unix s) the zone's clocks read as `local` (s since 1970-01-01 00:00 on the local clock): in an
    /// hour the clocks repeat, its first pass (`secondPass` moves a row that goes back there to the second); in an
    /// hour they skip, read with the offset before the change (02:30 on a spring-forward day is 03:30 of the new
    /// offset), as `LocalTime.instant` does.
    func instant(local: Int64) -> Int64 { resolve(local: local).instant }

    /// `instant(local:)`, and whether the clocks skipped `local` (no instant reads it: it is read forward by the gap).
    @inline(__always)
    func resolve(local: Int64) -> (instant: Int64, skipped: Bool) {
        let before = offset(atUTC: local - 86_400)
        if changes.isEmpty { return (local - before, false) }
        let after = offset(atUTC: local + 86_400)
        // Changes are months apart: the same offset a day either side is the offset between.
        if before == after || offset(atUTC: local - before) == before { return (local - before, false) }
        if offset(atUTC: local - after) == after { return (local - after, false) }
        return (local - before, true)
    }

    /// `instant(local:)` in nanoseconds, the fraction kept.
    func instantNs(localNs: Int64) -> Int64 { resolveNs(localNs: localNs).instant }

    /// `resolve(local:)` in nanoseconds, the fraction kept.
    @inline(__always)
    func resolveNs(localNs: Int64) -> (instant: Int64, skipped: Bool) {
        let seconds = TimeParsing.floorDiv(localNs, 1_000_000_000)
        let (instant, skipped) = resolve(local: seconds)
        return (localNs + (instant - seconds) * 1_000_000_000, skipped)
    }

    /// The clock time (ns since 1970-01-01 00:00 on the local clock) of instant `ns`.
    func localNs(ofNs ns: Int64) -> Int64 {
        ns + offset(atUTC: TimeParsing.floorDiv(ns, 1_000_000_000)) * 1_000_000_000
    }

    /// For a local time read as `ns` (its first pass) that lands before `previousNs`, the row before it: the same
    /// clock time in the second pass of the hour the clocks repeat, when `ns` lies in that hour's first pass and the
    /// second pass does not go back too. A recording's times go on, so a clock time that goes back by up to the hour
    /// at the autumn change is the hour's second pass; nil when that is not what happened.
    func secondPass(ofNs ns: Int64, after previousNs: Int64) -> Int64? {
        guard !changes.isEmpty, ns < previousNs else { return nil }
        let seconds = TimeParsing.floorDiv(ns, 1_000_000_000)
        let now = offset(atUTC: seconds)
        let later = offset(atUTC: seconds + 86_400)
        // The offset falls within the day and the same clock time exists under the later offset: a repeated time.
        guard now > later, offset(atUTC: seconds + now - later) == later else { return nil }
        let second = ns + (now - later) * 1_000_000_000
        return second >= previousNs ? second : nil
    }

    /// The clock of a device that did not move at the change whose gap holds the instant `ns` (a clock time the
    /// zone skips, read forward by the gap with the offset before the change).
    func heldClock(fromGapInstantNs ns: Int64) -> HeldClock {
        let seconds = TimeParsing.floorDiv(ns, 1_000_000_000)
        guard let i = changes.lastIndex(where: { $0 <= seconds }) else {
            return HeldClock(fromNs: ns, untilNs: ns, shiftNs: 0, offsetS: offset(atUTC: seconds - 86_400))
        }
        let until = i + 1 < changes.count ? changes[i + 1] : Self.tableEnd
        return HeldClock(
            fromNs: changes[i] * 1_000_000_000, untilNs: until * 1_000_000_000,
            shiftNs: (offsets[i + 1] - offsets[i]) * 1_000_000_000, offsetS: offsets[i])
    }

    private static let cache = NSLock()
    nonisolated(unsafe) private static var tables: [String: ZoneOffsets] = [:]

    /// The table a reader converts local times with: nil for UTC (and any zone that never leaves it), whose local
    /// times are already instants, so that its rows cost what they cost before zones were read.
    static func converting(_ zone: TimeZone?) -> ZoneOffsets? {
        let table = of(zone)
        return table.changes.isEmpty && table.offsets[0] == 0 ? nil : table
    }

    /// The table of `zone` (`ReadOptions.timeZone`), else of the machine's zone; built once per zone and process.
    static func of(_ zone: TimeZone?) -> ZoneOffsets {
        let zone = zone ?? TimeZone.current
        cache.lock()
        defer { cache.unlock() }
        if let table = tables[zone.identifier] { return table }
        let table = ZoneOffsets(zone: zone)
        tables[zone.identifier] = table
        return table
    }
}

/// A device clock that stayed on the offset before a spring change: a file that shows a clock time the zone skips
/// comes from one, so its later rows are read at that offset too, and go on instead of going back by the gap.
struct HeldClock: Codable, Sendable, Equatable {
    /// The change the clock did not make (ns since the epoch), and the next one, from which the zone agrees again.
    var fromNs: Int64
    var untilNs: Int64
    /// How far the zone's clock moved forward (ns), and the offset the device kept (s east of UTC).
    var shiftNs: Int64
    var offsetS: Int64

    /// The instant of a row the zone read as `resolvedNs` (`inGap`: a time it skips, already read at the offset
    /// kept): a later row read with the zone's new offset is moved by the shift.
    @inline(__always)
    func instantNs(_ resolvedNs: Int64, inGap: Bool) -> Int64 {
        !inGap && resolvedNs >= fromNs && resolvedNs < untilNs ? resolvedNs + shiftNs : resolvedNs
    }
}
