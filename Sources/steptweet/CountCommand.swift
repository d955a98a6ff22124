import Agent
import Analysis
import ArgumentParser
import Foundation
import SensorInput
import StepDetection

/// `steptweet count`: steps per recording.
struct CountCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "count",
        abstract: "Count the steps in accelerometer recordings.",
        discussion: """
            Prints one line per file; with --json one JSON document: an object with file, steps, samples, rate_hz, \
            duration_s, format, bouts, skipped_lines and dropped_samples for one file, an array of them for several; \
            a file that cannot be counted has file and error instead. \
            Malformed lines are skipped and reported with file and line, and the rest is counted (exit status 0); \
            --strict stops at the first one instead (exit status 65); a file with no valid line (only a header, or \
            every line malformed) is 65 too.

            --plot out.svg writes a picture of one recording: the acceleration magnitude over time, every counted \
            step marked, walking bouts shaded, and along the bottom what the walking recognizer decided about each \
            second (long recordings are decimated for the picture, not for the count).

            Examples:
              steptweet count --json walk.csv
              steptweet count --plot walk.svg walk.csv
              steptweet count --jobs 2 --step-times steps.txt month.csv
              steptweet count --sensitivity slow walk-with-a-walker.csv
            """
    )

    @Flag(name: .long, help: "One JSON object per file.") var json = false
    @Option(
        name: .long, help: ArgumentHelp("Write an SVG plot of the recording (one file only).", valueName: "out.svg"))
    var plot: String?
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Write the time of every counted step (ns, one per line) to this file (one file only).",
            valueName: "out.txt"))
    var stepTimes: String?
    @OptionGroup var input: InputOptions
    @OptionGroup var detection: SensitivityOption
    @Argument(help: "Recordings to count.") var files: [String]

    /// One file's count, or (`error` alone beside `file`) why it could not be counted: every file given has its
    /// entry, in the order given.
    struct Output: Encodable {
        var file: String
        var steps: Int?
        var samples: Int?
        var rateHz: Double?
        var durationS: Double?
        var format: String?
        var bouts: Int?
        var skippedLines: Int?
        var droppedSamples: Int?
        var error: String?
    }

    func validate() throws {
        if plot != nil && files.count != 1 {
            throw ValidationError("--plot draws one recording; give exactly one file")
        }
        if stepTimes != nil && files.count != 1 {
            throw ValidationError("--step-times writes one recording's steps; give exactly one file")
        }
    }

    func run() throws {
        var status: Int32 = 0
        var outputs: [Output] = []
        defer {
            if json { printLine(files.count == 1 ? outputs.first.map { jsonLine($0) } ?? "{}" : jsonLine(outputs)) }
        }
        // Several files go to the cores file by file; output stays in the order given.
        let jobs = plot == nil ? input.effectiveJobs : 1
        var options = input.readOptions()
        if jobs > 1 && files.count > 1 { options.progress = false }  // one progress line cannot show several files
        options.jobs = max(1, input.effectiveJobs / min(files.count, jobs))  // cores left over parse within a file
        let parameters = detection.parameters
        let counted = Parallelism.map(files.count, jobs: jobs) { [files, plot, stepTimes, options] i in
            Result { () throws -> RecordingCount in
                if let plot {
                    return try StepPlot.write(recording: files[i], to: plot, options: options, parameters: parameters)
                }
                let times = try stepTimes.map(StepTimesFile.init)
                let result = try RecordingCounter.count(
                    path: files[i], options: options, parameters: parameters,
                    onEvent: times.map { times in
                        { if case .step(let t) = $0 { times.append(t.nanosecondsSinceEpoch) } }
                    })
                try times?.finish()
                return result
            }
        }
        for (file, outcome) in zip(files, counted) {
            do {
                status = max(status, report(try outcome.get(), file: file, into: &outputs))
            } catch let error as PlotWriteError {
                // The recording was counted: its count is printed; the picture that could not be written is 73.
                status = max(status, report(error.count, file: file, into: &outputs), ExitStatus.cantCreate)
                printError("error: \(error)")
            } catch let error as InputError {
                printError("error: \(error)")
                if json { outputs.append(Output(file: file, error: error.description)) }
                status = max(status, ExitStatus.of(error))
            } catch let error as StepTimesFile.WriteError {
                printError("error: \(error)")
                if json { outputs.append(Output(file: file, error: "\(error)")) }
                status = max(status, ExitStatus.cantCreate)
            }
        }
        if status != 0 { throw ExitCode(status) }
    }

    /// Prints one file's warnings and count (or adds it to the JSON outputs); the file's exit status.
    func report(_ result: RecordingCount, file: String, into outputs: inout [Output]) -> Int32 {
        let s = result.summary
        let status = reportReading(s, file: file)
        let rate = s.rateHz.map { ($0 * 10).rounded() / 10 }
        let duration = (s.durationSeconds * 1000).rounded() / 1000
        if json {
            outputs.append(
                Output(
                    file: file, steps: result.steps, samples: s.samples, rateHz: rate,
                    durationS: duration, format: s.format, bouts: result.bouts.count,
                    skippedLines: s.skippedLines, droppedSamples: result.outOfOrder + result.invalid))
        } else {
            let seconds = String(format: "%.1f", duration)
            if s.kind == .steps {
                let readings = s.readings == 1 ? "1 reading" : "\(s.readings) readings"
                printLine("\(file): \(result.steps) steps (\(readings) summed, \(seconds) s, \(s.format))")
            } else {
                let rateText = rate.map { String(format: "%.1f Hz", $0) } ?? "rate unknown"
                printLine(
                    "\(file): \(result.steps) steps (\(s.samples) samples, \(rateText), \(seconds) s, \(s.format))"
                )
            }
        }
        return status
    }
}
