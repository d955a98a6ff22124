import Foundation
import TestSupport
import Testing

/// A source's skipped lines and an empty source, as `fetch` and `history` show them: in `count`'s words.
@Suite(.temporaryFolder) struct FetchWarningsCommandTests {
    /// The demo walk with seven malformed lines (101-107) and a configuration reading it.
    func configure() throws -> (config: String, source: String) {
        let lines = try String(contentsOfFile: Steptweet.fixture("demo_walk_50hz.csv"), encoding: .utf8)
            .split(separator: "\n").map(String.init)
        let bad = [
            "2000.1,nan,1,2", "2000.2,inf,1,2", "2000.3,1e308,1,2", "1e30,1,2,3", "2000.4,-inf,0,0", "2000.5,1,NaN,2",
            "2000.6,1,2,x",
        ]
        let source = try Steptweet.tempFile(
            (lines.prefix(100) + bad + lines.dropFirst(100)).joined(separator: "\n") + "\n", name: "nan.csv")
        let config = try Steptweet.configFile(
            "[source]\npath = \"\(source)\"\nstart = \"2026-11-21T10:02:00+09:00\"\n[text]\ntime_zone = \"Asia/Tokyo\"\n"
                + "[state]\npath = \"state.sqlite\"\n")
        return (config, source)
    }

    @Test func fetchAndHistoryListTheSkippedLinesAsCountDoes() async throws {
        let (config, source) = try configure()
        let count = try await Steptweet.run(["count", source])
        let notes = count.stderr.split(separator: "\n").compactMap { line in
            line.range(of: "warning: ").map { String(line[$0.upperBound...]) }
        }
        #expect(notes.first == "skipped \(source):101: acceleration is NaN", "\(count.stderr)")
        #expect(notes.count == 6)

        let fetch = try await Steptweet.run([
            "fetch", "--config", config, "--now", "2026-11-21T10:10:00+09:00", "--json",
        ])
        #expect(fetch.status == 0, "\(fetch.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(fetch.stdout.utf8)) as? [String: Any])
        #expect(object["result"] as? String == "NewData")
        #expect(object["warnings"] as? [String] == notes)

        let history = try await Steptweet.run(["history", "--config", config])
        for note in notes { #expect(history.stdout.contains("\n    warning: \(note)\n"), "\(history.stdout)") }
        let json = try await Steptweet.run(["history", "--config", config, "--json"])
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(rows.map { $0["warnings"] as? [String] } == [notes])
    }

    @Test func fetchSaysTheSourceIsEmpty() async throws {
        let (config, source) = try configure()
        try Data().write(to: URL(fileURLWithPath: source))
        let text = try await Steptweet.run(["fetch", "--config", config, "--now", "2026-11-21T10:10:00+09:00"])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.hasSuffix("NoData\n"))
        #expect(text.stderr.contains("warning: \(source): file is empty"), "\(text.stderr)")
    }
}
