import Foundation

/// Parses and prints durations such as `30s`, `10m`, `1h30m` and `1d`.
public enum Durations {
    /// Seconds in `text` (`90s`, `15m`, `1h30m`, `1d`); nil when it is not such a duration or is zero.
    public static func parse(_ text: String) -> TimeInterval? {
        let s = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard !s.isEmpty else { return nil }
        var total = 0.0
        var number = ""
        var sawUnit = false
        for c in s {
            if c.isASCII, c.isNumber {
                number.append(c)
                continue
            }
            guard let n = Double(number) else { return nil }
            let unit: Double
            switch c {
            case "s": unit = 1
            case "m": unit = 60
            case "h": unit = 3600
            case "d": unit = 86_400
            default: return nil
            }
            total += n * unit
            number = ""
            sawUnit = true
        }
        guard number.isEmpty, sawUnit, total > 0 else { return nil }
        return total
    }

    /// `1h30m`, `10m`, `45s`, `1d`.
    public static func format(_ seconds: TimeInterval) -> String {
        var s = Int(seconds.rounded())
        if s <= 0 { return "0s" }
        var out = ""
        for (unit, name) in [(86_400, "d"), (3600, "h"), (60, "m"), (1, "s")] where s >= unit {
            out += "\(s / unit)\(name)"
            s %= unit
        }
        return out
    }
}
