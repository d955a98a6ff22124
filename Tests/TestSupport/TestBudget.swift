import Foundation

/// The fetch budget (`schedule.deadline`) of the tests' agent configurations.
///
/// The budget runs on the real clock wherever a test does not inject one: in every in-process `steptweet fetch`, the
/// agent processes, and the fetchers built on the default clock. On CI's two cores beside other builds such a fetch
/// can outlast the default 30 s ("deadline passed before delivery", exit 75), failing tests that are not about the
/// budget. Their configurations get 10 minutes, which a starved run does not use up. Tests about the deadline set
/// their own (on a test clock where they have one), which is kept; the default stays 30 s.
public enum TestBudget {
    public static let deadline = "10m"

    /// `toml` with `deadline = "10m"` in its [schedule] table: after the table's header, or in a [schedule] table
    /// added at the end when it has none. Unchanged when it sets a deadline itself.
    public static func applied(to toml: String) -> String {
        var lines = toml.components(separatedBy: "\n")
        let setting = "deadline = \"\(deadline)\""
        if lines.contains(where: { $0.drop { $0 == " " }.hasPrefix("deadline") }) { return toml }
        if let header = lines.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == "[schedule]" }) {
            lines.insert(setting, at: header + 1)
            return lines.joined(separator: "\n")
        }
        return toml + (toml.isEmpty || toml.hasSuffix("\n") ? "" : "\n") + "[schedule]\n" + setting + "\n"
    }
}
