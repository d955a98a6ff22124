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
/// `--format fitbit-steps` on a folder reads it so. Follow mode: the folder is read again when it gains files or
/// is replaced, and only minutes after the last one delivered are delivered.
enum FitbitTakeoutFolder: WholeReader {
    static let format = InputFormat(
        name: "fitbit-takeout", kind: .steps,
        about: "Fitbit Takeout folder (Physical Activity/): every steps-YYYY-MM-DD.json, in date order",
        sniff: { _ in 0 }, whole: FitbitTakeoutFolder.self)

    struct State: Codable {
        /// The end (ns) of the last minute delivered.
        var deliveredThroughNs: Int64 = Int64.min
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
        let all = WholeInput.files(under: input.path)
        let paths = stepFiles(all)
        guard !paths.isEmpty else {
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
        var parser = FitbitStepsFormat()
        var newest = state.deliveredThroughNs
        let threshold = state.deliveredThroughNs
        for path in paths {
            parser.pendingNs = nil
            _ = try LineReader.forEachLine(path: path) { line, number, _ in
                let problem = try parser.parse(line, number: number, options: report.options) { item in
                    guard case .reading(let r) = item, r.startNs >= threshold else { return }
                    newest = max(newest, r.endNs)
                    report.emit(r)
                }
                if let problem { try report.problem(InputError(file: path, line: number, message: problem)) }
                return true
            }
        }
        state.deliveredThroughNs = newest
        return try JSONEncoder().encode(state)
    }
}
