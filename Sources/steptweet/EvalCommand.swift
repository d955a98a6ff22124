import Analysis
import ArgumentParser
import Foundation
import Messages
import SensorInput
import StepDetection
import Store

/// `steptweet eval`: scores the step counter against recordings with known step counts.
struct EvalCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "eval",
        abstract: "Score the step counter against a manifest of recordings with true step counts.",
        discussion: """
            The manifest is a CSV whose header names the columns `file` (a recording, relative to the manifest's \
            folder) and `truth_steps` (empty when the count is not known); other columns (activity, placement, …) \
            can group the summary (--by).

            Prints one line per recording (counted, true, error), then: walking MAPE over the recordings with at \
            least 100 true steps (a percentage error on a handful of steps says nothing); false steps (counted above \
            the truth) over the recordings under 100 true steps, in total and per hour of recording: hand activity, \
            desk work, driving; steps per minute of the recordings without a count, apart. With --by COLUMN the same \
            summary per value of that column; with --json one object with all of it. A recording's malformed \
            lines are skipped and named on standard error, as by `count`; a recording with no valid line is scored \
            as 0 steps and, after the report, makes the exit status 65.

            Examples:
              steptweet eval ../shared/data/steps/manifest.csv
              steptweet eval --by activity ../shared/data/activities/manifest.csv
              steptweet eval --leave-out wisdm_watch ../shared/data/activities/manifest.csv
            """
    )

    @Flag(name: .long, help: "Print one JSON object instead of text.") var json = false
    @Option(help: ArgumentHelp("Also summarise per value of this manifest column.", valueName: "COLUMN"))
    var by: GroupColumn?
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Recordings counted at once (default: the cores this process may use).",
            valueName: "N")) var jobs: Int?
    @Option(
        help: ArgumentHelp(
            "Walking probability a run of steps needs to count (default \(DetectorParameters.standard.recognizer.enter)): higher refuses more hand activity and more weak walking.",
            valueName: "P")) var enter: Double?
    @Flag(
        name: .long, help: "Count with the rhythm gate alone, without the walking recognizer (the detector before it).")
    var rhythmOnly = false
    @Flag(
        name: .long,
        help:
            "Count from |a| alone, as a watch or log that records no axes would (the recognizer's axis features missing)."
    )
    var magnitudeOnly = false
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Detector parameters to score instead of the built-in ones (JSON, as in --features).",
            valueName: "FILE")) var parameters: String?
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Also write the walking recognizer's windows and the rhythm's steps of every recording to DIR (windows.csv, steps.csv) for scripts/train_walking.py.",
            valueName: "DIR")) var features: String?
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Count only this data set's recordings (the folder holding them), with the model trained without it: DATASET.json in --models (written by scripts/train_walking.py).",
            valueName: "DATASET")) var leaveOut: String?
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Folder of the models trained without each data set, for --leave-out (default \(LeaveOut.defaultModels)).",
            valueName: "DIR")) var models: String?
    @OptionGroup var detection: SensitivityOption
    @Argument(help: "The manifest CSV.") var manifest: String

    /// The manifest columns the shared manifests have; any other header name is accepted too.
    struct GroupColumn: ExpressibleByArgument {
        var name: String
        init?(argument: String) {
            guard !argument.isEmpty else { return nil }
            name = argument.lowercased()
        }
        static var allValueStrings: [String] { ["activity", "placement", "device", "subject", "rate_hz"] }
        static var defaultCompletionKind: CompletionKind { .list(allValueStrings) }
    }

    func validate() throws {
        if let jobs, jobs < 1 { throw ValidationError("--jobs: must be at least 1") }
        if let enter, !(0...1).contains(enter) { throw ValidationError("--enter: must be between 0 and 1") }
        if models != nil && leaveOut == nil { throw ValidationError("--models: only with --leave-out") }
        if parameters != nil && leaveOut != nil {
            throw ValidationError("--parameters and --leave-out: --leave-out reads its model from --models")
        }
        if (parameters != nil || leaveOut != nil) && detection.sensitivity != nil {
            throw ValidationError(
                "--sensitivity and --parameters (or --leave-out) both set the detector's parameters; give one")
        }
    }

    /// The built-in parameters (of `--sensitivity`), or `--parameters` (or the `--leave-out` data set's model), with
    /// `--enter` and `--rhythm-only` applied.
    func detectorParameters() throws -> DetectorParameters {
        var p = detection.parameters
        let parameters =
            self.parameters
            ?? leaveOut.map { LeaveOut.parametersPath(dataset: $0, models: models ?? LeaveOut.defaultModels) }
        if let parameters {
            guard let data = FileManager.default.contents(atPath: parameters) else {
                let hint = leaveOut == nil ? "" : " (write the models with python3 scripts/train_walking.py)"
                throw fail("\(parameters): cannot read\(hint)", status: ExitStatus.noInput)
            }
            do {
                p = try JSONDecoder().decode(DetectorParameters.self, from: data)
            } catch {
                throw fail(
                    "\(parameters): not detector parameters: \(describeDecodingError(error))",
                    status: ExitStatus.dataError)
            }
        }
        if let enter { p.recognizer.enter = enter }
        if rhythmOnly { p.recognizer.enabled = false }
        return p
    }

    func run() throws {
        var loaded: EvaluationManifest
        do {
            loaded = try EvaluationManifest.load(path: manifest)
            if let leaveOut { loaded = try LeaveOut.restrict(loaded, to: leaveOut) }
        } catch let error as InputError {
            throw fail("\(error)", status: ExitStatus.of(error))
        }
        if let by, loaded.entries.first?.columns[by.name] == nil {
            throw fail("--by: the manifest has no '\(by.name)' column", status: ExitStatus.usage)
        }
        let width = loaded.entries.map(\.file.count).max() ?? 0
        let report: Evaluation.Report
        var status: Int32 = 0
        do {
            let parameters = try detectorParameters()
            let options = ReadOptions.withSQLiteExports()
            if let features {
                try WalkingFeatureDump.write(
                    loaded, options: options, parameters: parameters, jobs: jobs ?? Parallelism.availableCores(),
                    magnitudeOnly: magnitudeOnly, to: features)
            }
            report = try Evaluation.run(
                loaded, options: options, parameters: parameters, by: by?.name,
                jobs: jobs ?? Parallelism.availableCores(), magnitudeOnly: magnitudeOnly
            ) { result in
                guard !json else { return }
                let pct =
                    result.absolutePercentageError.map { String(format: "%6.2f%%", $0) }
                    ?? result.falseSteps.map { "\($0) false" } ?? result.stepsPerMinute.map {
                        String(format: "%.0f/min", $0)
                    } ?? "-"
                let name = result.file.padding(toLength: max(width, result.file.count), withPad: " ", startingAt: 0)
                let truth = result.truthSteps.map { pad($0) } ?? "    -"
                let error = result.error.map { pad($0, sign: true) } ?? "    -"
                printLine("\(name)  counted \(pad(result.countedSteps))  true \(truth)  error \(error)  \(pct)")
            } read: { entry, summary in
                status = max(status, reportReading(summary, file: entry.path))
            }
        } catch let error as InputError {
            throw fail("\(error)", status: ExitStatus.of(error))
        }
        if json {
            printLine(jsonLine(EvalJSON(manifest: manifest, report: report, by: by?.name)))
        } else {
            for (name, summary) in report.groups { printLine(summaryLine("\(by?.name ?? "") \(name)", summary)) }
            printLine(summaryLine("all", report.summary))
        }
        // A recording with no valid line was scored as 0 steps: the report stands, and says so in its exit status.
        if status != 0 { throw ExitCode(status) }
    }

    /// `all: walking MAPE 2.53% (52 walks); false steps 12 in 8 recordings (1.3 h, 9.2/h), 40 of their 66 true steps
    /// missed; no count: 36 (min 86/min)`.
    func summaryLine(_ label: String, _ s: Evaluation.Summary) -> String {
        var parts: [String] = []
        parts.append(
            s.mape.map { String(format: "walking MAPE %.2f%% (%d walks)", $0, s.walks) } ?? "walking MAPE - (no walks)")
        if s.lowTruthFiles > 0 {
            parts.append(
                String(
                    format: "false steps %d in %d recordings (%.1f h, %.1f/h)", s.falseSteps, s.lowTruthFiles,
                    s.lowTruthHours, s.falseStepsPerHour ?? 0)
                    + (s.lowTruthSteps > 0 ? ", \(s.missedSteps) of their \(s.lowTruthSteps) true steps missed" : ""))
        }
        if s.noCountFiles > 0 {
            parts.append(
                "no count: \(s.noCountFiles)"
                    + (s.noCountMinStepsPerMinute.map { String(format: " (min %.0f steps/min)", $0) } ?? ""))
        }
        return "\(label): " + parts.joined(separator: "; ")
    }

    private func pad(_ value: Int, sign: Bool = false) -> String {
        let text = sign && value > 0 ? "+\(value)" : "\(value)"
        return String(repeating: " ", count: max(0, 5 - text.count)) + text
    }
}

/// `eval --json`.
struct EvalJSON: Encodable {
    struct File: Encodable {
        var file: String
        var counted: Int
        var truth: Int?
        var error: Int?
        var absPctError: Double?
        var falseSteps: Int?
        var missedSteps: Int?
        var durationS: Double
        var stepsPerMin: Double?
        var group: String?
    }
    struct Summary: Encodable {
        var mapePercent: Double?
        var walks: Int
        var lowTruthFiles: Int
        var falseSteps: Int
        var lowTruthHours: Double
        var falseStepsPerHour: Double?
        var lowTruthSteps: Int
        var missedSteps: Int
        var noCountFiles: Int
        var noCountMinStepsPerMin: Double?

        init(_ s: Evaluation.Summary) {
            let r2 = { (v: Double) in (v * 100).rounded() / 100 }
            mapePercent = s.mape.map(r2)
            walks = s.walks
            lowTruthFiles = s.lowTruthFiles
            falseSteps = s.falseSteps
            lowTruthHours = (s.lowTruthHours * 1000).rounded() / 1000
            falseStepsPerHour = s.falseStepsPerHour.map(r2)
            lowTruthSteps = s.lowTruthSteps
            missedSteps = s.missedSteps
            noCountFiles = s.noCountFiles
            noCountMinStepsPerMin = s.noCountMinStepsPerMinute.map(r2)
        }
    }
    struct Group: Encodable {
        var value: String
        var summary: Summary
    }
    var manifest: String
    var by: String?
    var files: [File]
    var summary: Summary
    var groups: [Group]?

    init(manifest: String, report: Evaluation.Report, by: String?) {
        self.manifest = manifest
        self.by = by
        files = report.results.map {
            File(
                file: $0.file, counted: $0.countedSteps, truth: $0.truthSteps, error: $0.error,
                absPctError: $0.absolutePercentageError.map { ($0 * 100).rounded() / 100 },
                falseSteps: $0.falseSteps,
                missedSteps: $0.missedSteps, durationS: ($0.durationSeconds * 1000).rounded() / 1000,
                stepsPerMin: $0.stepsPerMinute.map { ($0 * 10).rounded() / 10 }, group: $0.group)
        }
        summary = Summary(report.summary)
        groups = by == nil ? nil : report.groups.map { Group(value: $0.name, summary: Summary($0.summary)) }
    }
}
