import Foundation

/// A Fitbit Takeout folder (`Physical Activity/` of a Google Takeout or of Fitbit's own "Download your data", or
/// the `Fitbit/` or `Global Export Data/` folder holding it): every `steps-YYYY-MM-DD.json` in it (one a month, in the
/// layout `FitbitStepsFormat` reads), in date order, as one export. Its other files (`calories-`, `distance-`,
/// `heart_rate-`, `exercise-`, … and CSVs) carry no per-minute steps and are not read; a Fitbit folder without a
/// steps file is an error that says so. Each file is read by `FitbitStepsFormat`'s line parser, one for the whole
/// folder, so a minute two files hold (months overlap by the UTC shift; a re-export beside the old one) counts once,
/// the larger value. A malformed line is reported with its file and line, and the rest kept.
///
/// The folder form of `fitbit-steps`, found by its files (`InputFormats.folderForm`), not a format of its own:
/// `--format fitbit-steps` on a folder reads it so. Follow mode: the folder is read again each time; minutes after the
/// last one delivered are delivered, and when a file's minutes before it say something else than at the last read
/// (a re-export whose older month holds minutes synced late, or a corrected value: `State.digests`), every minute is
/// delivered again and the read says so (`ReadSummary.startedOver`), for the agent's reading ledger to count what
/// the folder now says, once.
enum FitbitTakeoutFolder: WholeReader {
    static let format = InputFormat(
        name: "fitbit-takeout", kind: .steps,
        about: "Fitbit Takeout folder (Physical Activity/): every steps-YYYY-MM-DD.json, in date order",
        sniff: { _ in 0 }, whole: FitbitTakeoutFolder.self)

    struct State: Codable {
        /// The end (ns) of the last minute delivered.
        var deliveredThroughNs: Int64 = Int64.min
        /// Each steps file's `MinuteDigest` (by its path under the folder) as the last read found it: a file whose
        /// minutes before `deliveredThroughNs` say something else now makes the folder start over
        /// (`ReadSummary.startedOver`). Nil in a state saved before they were kept.
        var digests: [String: MinuteDigest]?
    }

    /// Whether `file` (a path) is a Fitbit export's per-month JSON, `NAME-YYYY-MM-DD.json`: its name, nil when not.
    static func monthFile(_ file: String) -> (kind: String, date: String)? {
        let base = Export.baseName(file)
        guard base.hasSuffix(".json"), base.count > 16 else { return nil }
        let stem = base.dropLast(5)
        let date = stem.suffix(10)
        let kind = stem.dropLast(11)
        guard stem.dropLast(10).last == "-", !kind.isEmpty,
            date.enumerated().allSatisfy({ i, c in i == 4 || i == 7 ? c == "-" : c.isASCII && c.isNumber })
        else { return nil }
        return (String(kind), String(date))
    }

    /// The folder's `steps-YYYY-MM-DD.json` files, oldest first.
    static func stepFiles(_ files: [String]) -> [String] {
        files.filter { monthFile($0)?.kind == "steps" }.sorted { monthFile($0)?.date ?? "" < monthFile($1)?.date ?? "" }
    }

    /// A folder holding Fitbit's month files, or called `Physical Activity` (the newer Takeout's CSVs too).
    static func sniffDirectory(_ files: [String]) -> Int {
        let fitbit = files.filter { monthFile($0) != nil }
        if fitbit.contains(where: { monthFile($0)?.kind == "steps" }) { return 90 }
        if fitbit.count >= 2 || files.contains(where: { $0.contains("/Physical Activity") }) { return 20 }
        return 0
    }

    static func read(_ input: WholeInput, state data: Data?, report: inout WholeReport) throws -> Data? {
        var state = report.savedState(State.self, from: data) ?? State()
        let paths = try stepPaths(input)
        let threshold = state.deliveredThroughNs
        var newest = threshold
        // Held until every file is read when a month file may have changed before the last minute delivered.
        var fresh: [StepReading]? = state.digests == nil ? nil : []
        var digests: [String: MinuteDigest] = [:]
        var changed = false
        try readFiles(paths, cutoff: threshold, report: &report) { path, file in
            let key = String(path.dropFirst(input.path.count))
            digests[key] = file.all
            changed = changed || (state.digests.map { ($0[key] ?? MinuteDigest()) != file.known } ?? false)
        } _: { r, report in
            guard r.startNs >= threshold else { return }
            newest = max(newest, r.endNs)
            if fresh != nil { fresh?.append(r) } else { report.emit(r) }
        }
        if changed {
            // A month file says something else before the last minute delivered (a re-export with minutes synced
            // late, a value corrected): every minute again, which the agent reconciles with what it counted.
            report.summary.startedOver = true
            try readFiles(paths, cutoff: nil, report: &report, quiet: true) { _, _ in
            } _: { r, report in
                newest = max(newest, r.endNs)
                report.emit(r)
            }
        } else {
            for r in fresh ?? [] { report.emit(r) }
        }
        state.deliveredThroughNs = newest
        state.digests = digests
        return try JSONEncoder().encode(state)
    }

    /// The folder's steps files, oldest first; an error that says what the folder holds when it has none.
    static func stepPaths(_ input: WholeInput) throws -> [String] {
        let all = WholeInput.files(under: input.path)
        let paths = stepFiles(all)
        guard paths.isEmpty else { return paths }
        let prefix = input.path.hasSuffix("/") ? input.path : input.path + "/"
        let kinds = Set(all.compactMap { monthFile($0)?.kind }).sorted()
        throw InputError(
            file: input.path,
            message: "a Fitbit Takeout folder without steps-YYYY-MM-DD.json: its files ("
                + (kinds.isEmpty
                    ? Export.list(all.map { String($0.dropFirst(prefix.count)) })
                    : kinds.map { "\($0)-*.json" }.joined(separator: ", "))
                + ") carry no per-minute steps; steptweet reads the steps-YYYY-MM-DD.json files of Physical "
                + "Activity/ (Fitbit's \"Download your data\" or a Google Takeout of Fitbit that holds them)")
    }

    /// Reads `paths` in order with one parser (a minute two files hold counts once, the larger value), giving each
    /// reading to `take` and each file's digests (minutes before `cutoff` and all) to `done`; `quiet`: malformed
    /// lines are not reported (a second pass over files already read).
    static func readFiles(
        _ paths: [String], cutoff: Int64?, report: inout WholeReport, quiet: Bool = false,
        _ done: (String, MinuteDigests) -> Void, _ take: (StepReading, inout WholeReport) -> Void
    ) throws {
        var parser = FitbitStepsFormat()
        for path in paths {
            parser.pendingNs = nil
            parser.digests = cutoff.map { MinuteDigests(cutoff: $0) }
            _ = try LineReader.forEachLine(path: path) { line, number, _ in
                let problem = try parser.parse(line, number: number, options: report.options) { item in
                    if case .reading(let r) = item { take(r, &report) }
                }
                if let problem, !quiet { try report.problem(InputError(file: path, line: number, message: problem)) }
                return true
            }
            if let digests = parser.digests { done(path, digests) }
        }
    }
}

/// What a file's minutes said, as a digest that does not depend on their order: how many, and a sum of a hash of
/// each minute's time and value. Equal digests: the same minutes with the same values (but for a hash collision).
struct MinuteDigest: Codable, Equatable, Sendable {
    var count = 0
    var sum: UInt64 = 0

    mutating func add(minute ns: Int64, steps: Int) {
        // splitmix64's finaliser over the time and the value.
        var z = UInt64(bitPattern: ns) &+ UInt64(steps) &* 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        count += 1
        sum &+= z ^ (z >> 31)
    }
}

/// A file's digests as it is read: of the minutes before `cutoff` (those the last read delivered through) and of all.
struct MinuteDigests: Sendable {
    let cutoff: Int64
    var known = MinuteDigest()
    var all = MinuteDigest()

    mutating func add(minute ns: Int64, steps: Int) {
        all.add(minute: ns, steps: steps)
        if ns < cutoff { known.add(minute: ns, steps: steps) }
    }
}
