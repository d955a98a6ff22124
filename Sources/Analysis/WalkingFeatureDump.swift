import Foundation
import Publishing
import SensorInput
import StepDetection

/// The walking recognizer's view of every recording of a manifest, for training and inspecting it
/// (`steptweet eval --features DIR`, read by `scripts/train_walking.py`):
/// - `windows.csv`: `file,start_s,end_s,probability,has_axes,<WindowFeatures.names>`, one row per scored window;
/// - `steps.csv`: `file,t_s,counted`, every step the rhythm found, counted (1) or refused by the recognizer (0).
/// Times are the recording's own, in seconds.
public enum WalkingFeatureDump {
    public static func write(
        _ manifest: EvaluationManifest, options: ReadOptions = ReadOptions(), parameters: DetectorParameters, jobs: Int,
        magnitudeOnly: Bool = false, to folder: String
    ) throws {
        var on = parameters
        on.recognizer.enabled = true  // the windows exist only with the recognizer on
        let recognizing = on
        let entries = manifest.entries
        let rows = Parallelism.map(entries.count, jobs: jobs) { i in
            Result { try rowsOf(entries[i], options: options, parameters: recognizing, magnitudeOnly: magnitudeOnly) }
        }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var windows = "file,start_s,end_s,probability,has_axes," + WindowFeatures.names.joined(separator: ",") + "\n"
        var steps = "file,t_s,counted\n"
        for r in rows {
            let (w, s) = try r.get()
            windows += w
            steps += s
        }
        for (name, text) in [("windows.csv", windows), ("steps.csv", steps)] {
            if let reason = WholeFile.write(Data(text.utf8), to: folder + "/" + name) {
                throw WholeFile.Failure(path: folder + "/" + name, reason: reason)
            }
        }
    }

    private static func rowsOf(
        _ entry: EvaluationManifest.Entry, options: ReadOptions,
        parameters: DetectorParameters, magnitudeOnly: Bool
    ) throws -> (windows: String, steps: String) {
        var windows = ""
        var steps = ""
        let file = entry.file.contains(",") ? "\"\(entry.file)\"" : entry.file
        func seconds(_ ns: Int64) -> String { String(format: "%.3f", Double(ns) / 1e9) }
        _ = try RecordingCounter.count(
            path: entry.path, options: options, parameters: parameters, axisFeatures: true,
            magnitudeOnly: magnitudeOnly,
            onEvent: { event in
                switch event {
                case .decision(let d, let f):
                    let values = f.values.map { String(format: "%.5g", $0) }.joined(separator: ",")
                    windows +=
                        "\(file),\(seconds(d.start.nanosecondsSinceEpoch)),\(seconds(d.end.nanosecondsSinceEpoch)),\(String(format: "%.4f", d.probability)),\(f.hasAxes ? 1 : 0),\(values)\n"
                case .step(let t): steps += "\(file),\(seconds(t.nanosecondsSinceEpoch)),1\n"
                case .refused(let t): steps += "\(file),\(seconds(t.nanosecondsSinceEpoch)),0\n"
                case .boutStarted, .boutEnded: break
                }
            })
        return (windows, steps)
    }
}
