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
    /// hour the clocks repeat, its first pass; in an hour they skip, read with the offset before the change (02:30 on
    /// a spring-forward day is 03:30 of the new offset), as `LocalTime.instant` does.
    func instant(local: Int64) -> Int64 {
        let before = offset(atUTC: local - 86_400)
        if changes.isEmpty { return local - before }
        let after = offset(atUTC: local + 86_400)
        // Changes are months apart: the same offset a day either side is the offset between.
        if before == after || offset(atUTC: local - before) == before { return local - before }
        if offset(atUTC: local - after) == after { return local - after }
        return local - before
    }

    /// `instant(local:)` in nanoseconds, the fraction kept.
    func instantNs(localNs: Int64) -> Int64 {
        let seconds = TimeParsing.floorDiv(localNs, 1_000_000_000)
        return localNs + (instant(local: seconds) - seconds) * 1_000_000_000
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
