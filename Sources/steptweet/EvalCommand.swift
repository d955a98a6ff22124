import Agent
import Analysis
import ArgumentParser
import Foundation
import SensorInput

/// `steptweet eval`: scores the step counter against recordings with known step counts.
struct EvalCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "eval",
        abstract: "Score the step counter against a manifest of recordings with true step counts.",
        discussion: """
            The manifest is a CSV whose header names the columns `file` (a recording, relative to the manifest's
            folder) and `truth_steps`; other columns are ignored. Prints one line per recording (counted, true,
            error) and last `MAPE: X.XX% (N files)`, the mean absolute percentage error over the recordings with at
            least one true step. Recordings with no true steps are summed as false steps instead. With --json, one
            object with the same content.

            Example: steptweet eval ../shared/data/steps/manifest.csv
            """
    )

    @Flag(name: .long, help: "Print one JSON object instead of text.") var json = false
    @Argument(help: "The manifest CSV.") var manifest: String

    struct Output: Encodable {
        struct File: Encodable {
            var file: String
            var counted: Int
            var truth: Int
            var error: Int
            var abs_pct_error: Double?
        }
        var manifest: String
        var files: [File]
        var mape_percent: Double?
        var scored_files: Int
        var zero_truth_files: Int
        var false_steps: Int
    }

    func run() throws {
        let loaded: EvaluationManifest
        do {
            loaded = try EvaluationManifest.load(path: manifest)
        } catch let error as InputError {
            let missing = error.kind == .unreadable
            throw fail("\(error)", status: missing ? ExitStatus.noInput : ExitStatus.dataError)
        }
        let width = loaded.entries.map(\.file.count).max() ?? 0
        let report: Evaluation.Report
        do {
            report = try Evaluation.run(loaded) { result in
                guard !json else { return }
                let pct = result.absolutePercentageError.map { String(format: "%6.2f%%", $0) } ?? "      -"
                let name = result.file.padding(toLength: max(width, result.file.count), withPad: " ", startingAt: 0)
                print("\(name)  counted \(pad(result.countedSteps))  true \(pad(result.truthSteps))  error \(pad(result.error, sign: true))  \(pct)")
            }
        } catch let error as InputError {
            throw fail("\(error)", status: ExitStatus.dataError)
        }
        if json {
            let files = report.results.map {
                Output.File(file: $0.file, counted: $0.countedSteps, truth: $0.truthSteps, error: $0.error,
                            abs_pct_error: $0.absolutePercentageError.map { ($0 * 100).rounded() / 100 })
            }
            print(jsonLine(Output(manifest: manifest, files: files,
                                  mape_percent: report.mape.map { ($0 * 100).rounded() / 100 },
                                  scored_files: report.scoredFiles, zero_truth_files: report.zeroTruthFiles,
                                  false_steps: report.falseSteps)))
            return
        }
        if report.zeroTruthFiles > 0 {
            let perFile = Double(report.falseSteps) / Double(report.zeroTruthFiles)
            print("False steps: \(report.falseSteps) in \(report.zeroTruthFiles) files with no true steps (\(String(format: "%.2f", perFile)) per file)")
        }
        if let mape = report.mape {
            print("MAPE: \(String(format: "%.2f", mape))% (\(report.scoredFiles) files)")
        } else {
            print("MAPE: - (0 files with true steps)")
        }
    }

    private func pad(_ value: Int, sign: Bool = false) -> String {
        let text = sign && value > 0 ? "+\(value)" : "\(value)"
        return String(repeating: " ", count: max(0, 5 - text.count)) + text
    }
}
