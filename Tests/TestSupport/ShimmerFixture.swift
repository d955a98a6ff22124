import Foundation

/// The committed Shimmer Consensys export (`fixtures/formats/shimmer`), and the same walk in g still labelled m/s²:
/// the mislabelled file a reader must read as g (issue 44).
public enum ShimmerFixture {
    public static let path = SharedData.packageRoot.appendingPathComponent(
        "fixtures/formats/shimmer/Shimmer_8665_Calibrated_PC.csv"
    ).path

    /// The export's text with x, y and z divided by standard gravity; its names and units rows unchanged.
    public static func inGLabelledMetresPerSecondSquared() throws -> String {
        var lines = try String(contentsOfFile: path, encoding: .utf8).components(separatedBy: "\r\n")
        for k in 3..<lines.count where !lines[k].isEmpty {
            var fields = lines[k].components(separatedBy: "\t")
            for axis in 1...3 { fields[axis] = String(format: "%.6f", Double(fields[axis])! / 9.80665) }
            lines[k] = fields.joined(separator: "\t")
        }
        return lines.joined(separator: "\r\n")
    }
}
