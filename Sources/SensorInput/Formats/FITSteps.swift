/// Steps in decoded FIT messages: monitoring (all-day) files give running daily totals per activity type, activity
/// files give strides per session (or cadence per record).
enum FITSteps {
    /// One cumulative reading of a monitoring file: `cycles` of `activityType` since local midnight, at `time`
    /// (Unix seconds), `utcOffset` seconds east of UTC (from `monitoring_info`).
    struct MonitoringPoint: Equatable {
        var time: Int64
        var activityType: Int
        var cumulative: Int64
        var utcOffset: Int64

        /// Local day number (days since 1970-01-01 in local time) whose running total this is. A total stamped
        /// exactly at local midnight closes the day that ends there (devices write the day's summary then), not the
        /// day that begins: the totals of the day before would otherwise count again as the new day's.
        var localDay: Int64 { TimeParsing.floorDiv(time + utcOffset - 1, 86_400) }

    }

    /// Steps of one activity file: readings over its records (or its sessions), Unix seconds.
    struct Activity {
        var startTime: Int64
        var endTime: Int64
        var readings: [StepReading]
        /// Seconds east of UTC, from the `activity` message's `local_timestamp` when it has one.
        var utcOffset: Int64?
        /// The first sport the file names that is not counted in steps (2 = cycling), nil when none.
        var otherSport: Int64? = nil
    }

    /// A sport's name in the FIT profile, for the few a person records without steps.
    static func sportName(_ sport: Int64) -> String {
        let names: [Int64: String] = [
            2: "cycling", 3: "transition", 4: "fitness equipment", 5: "swimming", 10: "training",
            12: "cross-country skiing",
            13: "alpine skiing", 15: "rowing", 19: "paddling", 21: "e-biking",
        ]
        return names[sport] ?? "sport \(sport)"
    }

    /// Activity types whose `cycles` are steps (not strokes): all but cycling (2) and swimming (5).
    static func countsSteps(_ activityType: Int) -> Bool { activityType != 2 && activityType != 5 }

    /// The cumulative step counts of monitoring messages (global 55), with `timestamp_16` (field 26) rebuilt from the
    /// most recent full timestamp of any message before it.
    static func monitoringPoints(_ messages: [FITContainer.Message]) -> [MonitoringPoint] {
        var points: [MonitoringPoint] = []
        var last: Int64?
        var utcOffset: Int64 = 0
        for m in messages {
            var time = m.timestamp
            if m.global == 55, m.fields[253] == nil, let t16 = m.fields[26], let reference = last {
                time = reference + ((t16 - (reference & 0xFFFF)) & 0xFFFF)
            }
            if let t = time { last = t }
            if m.global == 103, let local = m.fields[0], let t = m.timestamp, (0...0xFFFF_FFFF).contains(local) {
                let offset = local - t  // monitoring_info: local_timestamp − timestamp
                utcOffset = abs(offset) <= 14 * 3600 ? offset : 0
            }
            guard m.global == 55, let t = time, let cycles = m.fields[3] else { continue }
            let type = m.fields[5].map(Int.init) ?? m.fields[24].map { Int($0 & 0x1F) } ?? 0
            guard countsSteps(type) else { continue }
            points.append(
                MonitoringPoint(
                    time: t + FITContainer.epochOffset, activityType: type, cumulative: cycles,
                    utcOffset: utcOffset))
        }
        return points
    }

    /// A stretch between two records and the strides taken in it.
    struct Part {
        var from: Int64
        var to: Int64
        var weight: Double
    }

    /// Readings over `parts` (FIT times): `total` steps split in proportion to the weights, or without a total
    /// 2 × the strides; cumulative rounding, so the readings add up to the (rounded) total exactly.
    static func distribute(_ parts: [Part], total: Double?) -> [StepReading] {
        let sum = parts.reduce(0) { $0 + $1.weight }
        guard sum > 0 else { return [] }
        var out: [StepReading] = []
        var acc = 0.0
        var given = 0
        for p in parts {
            acc += p.weight
            let exact = total.map { $0 * acc / sum } ?? 2 * acc
            let upTo = Int((exact * 1e6).rounded() / 1e6)  // whole steps so far (no float dust)
            if upTo > given {
                out.append(
                    StepReading(
                        startNs: (p.from + FITContainer.epochOffset) * 1_000_000_000,
                        endNs: (p.to + FITContainer.epochOffset) * 1_000_000_000, steps: upTo - given))
            }
            given = max(given, upTo)
        }
        return out
    }

    /// Sports whose cadence is strides: running, walking, hiking.
    static let stepSports: Set<Int64> = [1, 11, 17]

    /// Steps per session of an activity file: 2 × `total_strides` (session field 10 when the sport is running,
    /// walking or hiking), spread over the records by cadence; without a total (older devices, a cut file), the
    /// records' cadence (+ `fractional_cadence`) integrated over time — never for other sports (a bike's cadence is
    /// pedal turns), as told by any `sport`, `lap` or `session` message.
    static func activity(_ messages: [FITContainer.Message]) -> Activity? {
        struct Record {
            var time: Int64
            var cadence: Double
        }
        var records: [Record] = []
        var sessions: [(start: Int64, end: Int64, strides: Int64?)] = []
        var otherSport: Int64?
        var utcOffset: Int64?
        for m in messages {
            if m.global == 34, let local = m.fields[5], let t = m.timestamp, (0...0xFFFF_FFFF).contains(local),
                abs(local - t) <= 14 * 3600
            {
                utcOffset = local - t
            }
            if let sport = m.global == 12
                ? m.fields[0] : m.global == 19 ? m.fields[25] : m.global == 18 ? m.fields[5] : nil,
                !stepSports.contains(sport), sport != 0
            {
                otherSport = otherSport ?? sport
            }
            if m.global == 20, let t = m.timestamp, let c = m.fields[4] {
                records.append(Record(time: t, cadence: Double(c) + Double(m.fields[53] ?? 0) / 128))
            } else if m.global == 18, let end = m.timestamp {
                let sport = m.fields[5] ?? 0
                let start =
                    m.fields[2].flatMap { (0...end).contains($0) ? $0 : nil } ?? max(0, end - (m.fields[7] ?? 0) / 1000)
                if stepSports.contains(sport) { sessions.append((start, end, m.fields[10])) }
            }
        }
        records.sort { $0.time < $1.time }
        /// Record intervals in `start...end`, weight = strides in them (cadence × seconds, gaps capped at 30 s).
        func weighted(_ start: Int64, _ end: Int64) -> [Part] {
            var out: [Part] = []
            var previous: Int64?
            for r in records where r.time >= start && r.time <= end {
                if let p = previous, r.time > p {
                    out.append(Part(from: p, to: r.time, weight: r.cadence * Double(min(r.time - p, 30)) / 60))
                }
                previous = r.time
            }
            return out
        }
        var readings: [StepReading] = []
        if sessions.isEmpty && otherSport == nil { readings += distribute(weighted(Int64.min, Int64.max), total: nil) }
        for s in sessions {
            let parts = weighted(s.start, s.end)
            let total = s.strides.map { 2 * Double($0) }
            if let total, parts.allSatisfy({ $0.weight <= 0 }) {
                if total > 0 { readings += distribute([Part(from: s.start, to: s.end, weight: 1)], total: total) }
            } else {
                readings += distribute(parts, total: total)
            }
        }
        let times = records.map(\.time) + sessions.flatMap { [$0.start, $0.end] }
        guard let first = times.min(), let last = times.max() else { return nil }
        return Activity(
            startTime: first + FITContainer.epochOffset, endTime: last + FITContainer.epochOffset, readings: readings,
            utcOffset: utcOffset, otherSport: otherSport)
    }
}
