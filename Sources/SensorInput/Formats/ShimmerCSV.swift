/// Shimmer3 sensors' exports from Consensys (and ShimmerCapture): Excel's `sep=` line (a tab, or the delimiter
/// chosen), a names row `<device>_<signal>_CAL` (`Shimmer_8665_Timestamp_Unix_CAL`, `…_Accel_LN_X_CAL`, gyroscope,
/// magnetometer, battery, GSR…), a units row (`ms`, `m/(s^2)`, `deg/s`), a trailing delimiter on every row. Read by
/// the generic CSV reader: `ShimmerCSV.columns` finds the time and one accelerometer's three axes by name, the units
/// row gives the units, which the data is checked against (a file in g labelled m/s² is read as g, with a note).
enum ShimmerCSV {
    static let format = InputFormat(
        name: "shimmer", kind: .acceleration,
        about:
            "Shimmer Consensys export: sep= line, <device>_Timestamp_Unix_CAL and <device>_Accel_LN_X_CAL… names, units row",
        sniff: { s in columns(HeaderCSVFormats.header(s)) != nil ? 95 : 0 },
        parser: nil)

    /// The time column (its unit, ms, when known from the name) and one accelerometer's x, y, z.
    struct Columns {
        var time: Int
        var timeUnitNs: Double?
        var axes: (Int, Int, Int)
    }

    /// Time columns by preference: epoch ms, epoch ms synchronised between sensors, the sensor's own clock.
    static let timeSuffixes: [(suffix: String, unitNs: Double?)] = [
        ("_timestamp_unix_cal", 1e6), ("_timestampsync_unix_cal", 1e6), ("_timestamp_cal", nil),
        ("_timestampsync_cal", nil),
    ]

    /// Accelerometers by preference: low-noise (on by default), wide-range, then any other `Accel_…_X_CAL`.
    static let accelerometers = ["_accel_ln_", "_accel_wr_", "_accel_"]

    /// The Shimmer columns among `names` (normalised header names, lower case), nil when they are not a Shimmer
    /// export's: no `…_Timestamp…_CAL` column or no accelerometer with all three axes.
    static func columns(_ names: [String]) -> Columns? {
        guard
            let (time, unit) = timeSuffixes.lazy.compactMap({ candidate in
                names.firstIndex { $0.hasSuffix(candidate.suffix) }.map { ($0, candidate.unitNs) }
            }).first
        else { return nil }
        for sensor in accelerometers {
            for (i, name) in names.enumerated() where name.hasSuffix("_x_cal") && name.contains(sensor) {
                let stem = name.dropLast("x_cal".count)
                guard let y = names.firstIndex(of: stem + "y_cal"), let z = names.firstIndex(of: stem + "z_cal") else {
                    continue
                }
                return Columns(time: time, timeUnitNs: unit, axes: (i, y, z))
            }
        }
        return nil
    }

    /// The generic reader's layout of a Shimmer header (`names` normalised), nil when it is not one; a Shimmer
    /// export without an accelerometer is an error that says what to do.
    static func layout(_ names: [String], delimiter: UInt8, file: String, line: Int) throws -> GenericCSVReader.Layout?
    {
        if let shimmer = columns(names) {
            var layout = GenericCSVReader.Layout(
                delimiter: delimiter, fieldCount: names.count, time: shimmer.time, timeUnitNs: shimmer.timeUnitNs)
            layout.axes = shimmer.axes
            return layout
        }
        guard names.contains(where: { name in timeSuffixes.contains { name.hasSuffix($0.suffix) } }) else {
            return nil
        }
        throw InputError(
            file: file, line: line,
            message: "a Shimmer export without an accelerometer's three axes (<device>_Accel_LN_X_CAL, _Y_CAL, "
                + "_Z_CAL or Accel_WR_…): enable the accelerometer in Consensys and export the session again")
    }
}
