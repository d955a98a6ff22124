import Foundation

/// Garmin FIT files: one file, or a folder of them (a watch's `GARMIN/Monitor` and `GARMIN/Activity`, a Garmin
/// Connect export). Monitoring files give running daily totals per activity type (`cycles`, the raw value = steps),
/// turned into steps per interval; activity files give 2 × strides per session, spread by cadence. On a day that
/// monitoring data covers, activity steps are already in the totals and are not added again. Overlapping monitoring
/// files (re-synced days) are merged by (time, activity type), never added together.
///
/// Follow mode: the state keeps, per local day and activity type, the running total already delivered, and the
/// activities delivered, so a folder that gains files (or a file that is rewritten) yields only the new steps.
enum GarminFITFormat: WholeReader {
    static let format = InputFormat(
        name: "garmin-fit", kind: .steps,
        about:
            "Garmin FIT file or folder (GARMIN/Monitor, GARMIN/Activity): monitoring cycles per day, activity strides",
        sniff: { s in s.magic(Array(".FIT".utf8), at: 8) && s.magic.first.map { $0 >= 12 } == true ? 1000 : 0 },
        whole: GarminFITFormat.self)

    struct State: Codable {
        /// "localDay/activityType" → running total (steps) already delivered.
        var delivered: [String: Int64] = [:]
        /// Start times (Unix s) of the activities already delivered.
        var activities: Set<Int64> = []
        /// "localDay" → steps of activities delivered for a day no monitoring data covered then: when that day's
        /// monitoring totals arrive later, they hold those steps, which are not delivered again.
        var credit: [String: Int64] = [:]
    }

    static func sniffDirectory(_ files: [String]) -> Int {
        files.contains { $0.lowercased().hasSuffix(".fit") } ? 80 : 0
    }

    static func read(_ input: WholeInput, state data: Data?, report: inout WholeReport) throws -> Data? {
        var state = report.savedState(State.self, from: data) ?? State()
        let paths =
            input.isDirectory
            ? WholeInput.files(under: input.path).filter { $0.lowercased().hasSuffix(".fit") }
            : [input.path]
        var points: [FITSteps.MonitoringPoint] = []
        var activities: [FITSteps.Activity] = []
        var withoutSteps = 0
        for path in paths {
            let bytes = try path == input.path ? input.bytes() : WholeInput.bytes(of: path)
            guard FITContainer.isFIT(bytes) else {
                try report.problem(
                    InputError(
                        file: path,
                        message: bytes.isEmpty ? "file is empty" : "not a FIT file (no '.FIT' signature at byte 8)"))
                continue
            }
            let (messages, damages) = FITContainer.decode(bytes)
            for d in damages {
                try report.problem(
                    InputError(file: path, message: "\(d.description); kept the \(messages.count) messages before it"))
            }
            let filePoints = FITSteps.monitoringPoints(messages)
            if !filePoints.isEmpty {
                points += filePoints
            } else if let a = FITSteps.activity(messages) {
                activities.append(a)
                if a.readings.isEmpty, let sport = a.otherSport {
                    // A ride or a swim: a valid file whose cycles are pedal turns or strokes, not steps.
                    withoutSteps += 1
                    // Named when it is one file of a folder; the caller names the input.
                    report.summary.notes.append(
                        (path == input.path ? "" : "\(path): ") + "a \(FITSteps.sportName(sport)) activity holds no "
                            + "steps (steps are counted for running, walking and hiking)")
                }
            }
        }
        var readings = monitoringReadings(points, state: &state)
        let coveredDays = Set(points.map { "\($0.localDay)" })
        let offset = points.last?.utcOffset ?? 0
        for a in activities where !state.activities.contains(a.startTime) {
            let day = "\(TimeParsing.floorDiv(a.startTime + (a.utcOffset ?? offset), 86_400))"
            // Monitoring totals of that local day already hold the activity's steps.
            if coveredDays.contains(day) { continue }
            readings += a.readings
            state.activities.insert(a.startTime)
            state.credit[day, default: 0] += Int64(a.readings.reduce(0) { $0 + $1.steps })
        }
        readings.sort { ($0.startNs, $0.endNs) < ($1.startNs, $1.endNs) }
        for r in readings { report.emit(r) }
        report.summary.validWithoutSteps = withoutSteps > 0 && report.summary.readings == 0
        return try JSONEncoder().encode(state)
    }

    /// Steps per interval from cumulative points: per (local day, activity type) the increase of the running total
    /// above both the previous point and what `state` says was delivered; a total that drops within a day is a reset
    /// (it counts again from 0). An interval runs from the previous point of that day (any type) or local midnight.
    static func monitoringReadings(_ raw: [FITSteps.MonitoringPoint], state: inout State) -> [StepReading] {
        var points = raw.sorted {
            ($0.time, $0.activityType, $1.cumulative) < ($1.time, $1.activityType, $0.cumulative)
        }
        // Re-synced files repeat points: one per (time, type), the largest total first after the sort.
        var unique: [FITSteps.MonitoringPoint] = []
        unique.reserveCapacity(points.count)
        for p in points where unique.last.map({ $0.time != p.time || $0.activityType != p.activityType }) ?? true {
            unique.append(p)
        }
        points = unique
        struct Running {
            var lastRaw: Int64 = 0
            var base: Int64 = 0
            var effective: Int64 = 0
            var delivered: Int64 = 0
        }
        struct Key: Hashable {
            var day: Int64
            var type: Int
        }
        var running: [Key: Running] = [:]
        var previousTime: [Int64: Int64] = [:]  // local day → time of its previous point
        var readings: [StepReading] = []
        for p in points {
            let day = p.localDay
            let key = Key(day: day, type: p.activityType)
            var r = running[key] ?? Running(delivered: state.delivered["\(day)/\(p.activityType)"] ?? 0)
            if p.cumulative < r.lastRaw { r.base += r.lastRaw }  // reset within the day
            r.lastRaw = p.cumulative
            let effective = r.base + p.cumulative
            let already = max(r.effective, r.delivered)
            let start = previousTime[day] ?? (day * 86_400 - p.utcOffset)
            if effective > already {
                var steps = effective - already
                // activity steps delivered before, inside this total
                if let credit = state.credit["\(day)"], credit > 0 {
                    let used = min(credit, steps)
                    steps -= used
                    state.credit["\(day)"] = credit - used
                }
                if steps > 0 {
                    readings.append(
                        StepReading(
                            startNs: min(start, p.time) * 1_000_000_000, endNs: p.time * 1_000_000_000,
                            steps: Int(steps)))
                }
                r.delivered = effective
            }
            r.effective = max(r.effective, effective)
            running[key] = r
            previousTime[day] = p.time
        }
        for (key, r) in running where r.delivered > 0 { state.delivered["\(key.day)/\(key.type)"] = r.delivered }
        return readings
    }
}
