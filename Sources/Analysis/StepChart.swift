import Foundation

/// Terminal bar charts of steps per period.
public enum StepChart {
    /// One line per period: label, a bar scaled to `width`, and the count.
    public static func lines(_ buckets: [(start: Int64, steps: Int)], label: (Date) -> String, width: Int = 40)
        -> [String]
    {
        let top = buckets.map(\.steps).max() ?? 0
        return buckets.map { b in
            let n = top > 0 ? Int((Double(b.steps) / Double(top) * Double(width)).rounded()) : 0
            let bar = String(repeating: "█", count: n) + (n == 0 && b.steps > 0 ? "▏" : "")
            return
                "\(label(Date(timeIntervalSince1970: Double(b.start)))) \(bar.padding(toLength: width, withPad: " ", startingAt: 0)) \(b.steps)"
        }
    }
}
