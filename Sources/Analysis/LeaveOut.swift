import SensorInput

/// `steptweet eval --leave-out DATASET` (issue #47): the recordings of one data set, counted with a model that was
/// trained without it. A data set is the folder holding a recording (`wisdm_watch`, `dsads_arm`, `tug_wrist`,
/// `bangle_wrist`, `wrist_watch`, `oxford_opt` in ../shared); its model is `DATASET.json` in a folder of
/// detector parameters that `scripts/train_walking.py` writes (`bench/leave_out` by default). Out of dataset is the
/// figure that predicts a new user: other people, other sensors.
public enum LeaveOut {
    /// Where `scripts/train_walking.py` writes the models trained without each data set, from the repository's root.
    public static let defaultModels = "bench/leave_out"

    /// The detector parameters (JSON) of the model trained without `dataset`.
    public static func parametersPath(dataset: String, models: String) -> String {
        (models.hasSuffix("/") ? models : models + "/") + dataset + ".json"
    }

    /// The data set an entry belongs to: the folder holding its recording.
    public static func dataset(of entry: EvaluationManifest.Entry) -> String {
        let folders = entry.file.split(separator: "/").dropLast()
        return folders.last.map(String.init) ?? "."
    }

    /// The manifest's entries of one data set; an error naming the data sets the manifest has when it has none.
    public static func restrict(_ manifest: EvaluationManifest, to dataset: String) throws -> EvaluationManifest {
        var only = manifest
        only.entries = manifest.entries.filter { Self.dataset(of: $0) == dataset }
        guard only.entries.isEmpty else { return only }
        var seen: [String] = []
        for entry in manifest.entries where !seen.contains(Self.dataset(of: entry)) {
            seen.append(Self.dataset(of: entry))
        }
        throw InputError(
            file: manifest.path,
            message:
                "--leave-out: no recording of data set '\(dataset)' (its data sets: \(seen.joined(separator: ", ")))"
        )
    }
}
