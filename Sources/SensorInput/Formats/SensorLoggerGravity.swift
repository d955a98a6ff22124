import StepDetection

/// A Sensor Logger recording exported as a zip or folder whose acceleration is `Accelerometer.csv`: acceleration
/// without gravity (iOS, and Android beside `TotalAcceleration.csv`), which counts no step alone. The recording holds
/// gravity in `Gravity.csv` beside it; each accelerometer row plus the gravity row at the same time is the total
/// acceleration, paired as pushed batches are (`SensorLoggerAcceleration.pairs`: within 1 µs, each gravity row once).
/// Without `Gravity.csv`, `AccelerometerUncalibrated.csv` (with gravity) is read instead, as the receiver does; with
/// neither, the recording is refused rather than counted from acceleration without gravity.
///
/// Both files are read whole into memory (32 bytes a row) to be paired, as the receiver pairs a pushed batch.
enum SensorLoggerGravity {
    typealias Timed = SensorLoggerAcceleration.Timed

    /// The file that completes `r`, a Sensor Logger `Accelerometer.csv` in an export: `Gravity.csv` beside it, else
    /// `AccelerometerUncalibrated.csv`; nil for any other recording. Throws when there is neither.
    static func companion(of r: ResolvedInput) throws -> String? {
        guard r.format.name == HeaderCSVFormats.sensorLogger.name, let export = r.export, let file = r.file else {
            return nil
        }
        // Only Accelerometer.csv has companions.
        guard !Export.companions(format: r.format.name, file: file).isEmpty else { return nil }
        if let found = export.completing(file, format: r.format.name) { return found }
        throw InputError(
            file: r.path,
            message: "Sensor Logger's Accelerometer.csv is acceleration without gravity, which counts no step alone, "
                + "and there is no Gravity.csv (or AccelerometerUncalibrated.csv) beside it in this \(export.what): "
                + "record with Gravity turned on as well (on Android, TotalAcceleration)")
    }

    /// Reads `r` (`Accelerometer.csv`) completed by `companion` (`Gravity.csv`, or `AccelerometerUncalibrated.csv`
    /// read instead of it), a file of its export.
    static func read(
        _ r: ResolvedInput, in export: Export, companion: String, options: ReadOptions, batch: SampleBatchSink?,
        _ sink: (InputItem) -> Void
    ) throws -> ReadSummary {
        let gravity = export.member(companion)
        guard Export.baseName(companion).lowercased() == "gravity.csv" else {
            return try InputFormats.read(
                path: gravity.path, format: r.format, options: options, source: gravity.source, batch: batch, sink)
        }
        let (linear, linearSummary) = try vectors(r.path, r.source, options)
        let (down, gravitySummary) = try vectors(gravity.path, gravity.source, options)
        var summary = linearSummary
        summary.skippedLines += gravitySummary.skippedLines
        summary.issues = Array((linearSummary.issues + gravitySummary.issues).prefix(options.maxReportedIssues))
        summary.samples = 0
        summary.firstNs = nil
        summary.lastNs = nil
        let (paired, unpaired) = SensorLoggerAcceleration.pairs(linear, down)
        if paired.isEmpty, !linear.isEmpty {
            throw InputError(
                file: r.path,
                message: "none of its \(linear.count) rows has a row of \(gravity.path) at the same time (within "
                    + "1 µs), so there is no acceleration with gravity to count steps in")
        }
        if unpaired > 0 {
            let have = unpaired == 1 ? "has" : "have"
            try summary.skip(
                InputError(
                    file: r.path,
                    message: "\(unpaired) of its \(linear.count) rows \(have) no row of \(gravity.path) at the same "
                        + "time (within 1 µs): left out"),
                options: options)
        }
        var kept: [AccelerationSample] = []
        kept.reserveCapacity(paired.count)
        for s in paired {
            if let problem = SampleCheck.valueProblem(s) {
                try summary.skip(InputError(file: r.path, message: "with gravity added: \(problem)"), options: options)
            } else {
                kept.append(s)
            }
        }
        if let first = kept.first, let last = kept.last {
            summary.note(samples: kept.count, from: first.timeNs, to: last.timeNs)
        }
        if let batch {
            kept.withUnsafeBufferPointer { batch($0) }
        } else {
            for s in kept { sink(.sample(s)) }
        }
        return summary
    }

    /// The rows of a Sensor Logger CSV (`time,seconds_elapsed,z,y,x`, m/s²), checked and in time order.
    static func vectors(_ path: String, _ source: LineSource, _ options: ReadOptions) throws -> ([Timed], ReadSummary) {
        var out: [Timed] = []
        let (summary, _) = try GenericCSVReader.read(
            path: path, options: options, resume: nil, completeLinesOnly: false,
            formatName: HeaderCSVFormats.sensorLogger.name, source: source
        ) { s in out.append(Timed(timeNs: s.timeNs, v: .init(x: s.x, y: s.y, z: s.z))) }
        return (out, summary)
    }
}
