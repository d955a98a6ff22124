import Agent
import ArgumentParser
import Foundation
import TestSupport
import Testing

@testable import steptweet

/// What `--help` and the manual pages say, as a person reads them: paragraphs wrapped once, examples one per line, and
/// the configuration page listing every key of the sample configuration.
@Suite(.temporaryFolder) struct HelpTextTests {
    /// Every command, subcommands included, with its name path (`outbox retry`).
    static func commands(
        _ command: ParsableCommand.Type = steptweet.Steptweet.self, path: [String] = []
    ) -> [(path: String, type: ParsableCommand.Type)] {
        let name = command.configuration.commandName ?? "steptweet"
        let here = path + [name]
        return [(here.joined(separator: " "), command)]
            + command.configuration.subcommands.flatMap { commands($0, path: here) }
    }

    /// A line of rendered help that a word of the next line would have fitted on, when the next line goes on with the
    /// same paragraph: the parser wrapped a line that the source had already broken. A line goes on with a paragraph
    /// when it starts as a sentence goes on, at the paragraph's margin: the left edge for a discussion (an indented
    /// line there is an item of its own, an example), the help column for an option or a subcommand.
    static func raggedLines(_ help: String, columns: Int) -> [String] {
        let lines = help.components(separatedBy: "\n")
        let helpColumn = 20
        return zip(lines, lines.dropFirst()).compactMap { line, next in
            let continued = next.drop { $0 == " " }
            let margin = next.count - continued.count
            let lineMargin = line.prefix { $0 == " " }.count
            guard !line.trimmingCharacters(in: .whitespaces).isEmpty, let first = continued.first,
                first.isLowercase || first.isNumber || "(`'\"".contains(first),
                (margin == 0 && lineMargin == 0) || margin >= helpColumn
            else { return nil }
            let word = continued.prefix { $0 != " " }
            return line.count + 1 + word.count < columns - 1 ? "\(line)⏎\(next)" : nil
        }
    }

    @Test func helpParagraphsAreWrappedOnlyByTheParser() {
        for (path, command) in Self.commands() {
            let help = steptweet.Steptweet.helpMessage(for: command, columns: 80)
            #expect(Self.raggedLines(help, columns: 80).isEmpty, "steptweet \(path) --help: ragged")
        }
    }

    /// An example (an indented line of a discussion) is shown on one line in 80 columns: one the parser had to wrap
    /// would print half a command at the left margin, where it cannot be copied.
    @Test func examplesFitOnALineOfTheHelp() {
        for (path, command) in Self.commands() {
            let help = steptweet.Steptweet.helpMessage(for: command, columns: 80).components(separatedBy: "\n")
            let examples = command.configuration.discussion.components(separatedBy: "\n").filter { $0.hasPrefix(" ") }
            for example in examples {
                #expect(help.contains(example), "steptweet \(path) --help wraps «\(example)»")
            }
        }
    }

    /// The check itself finds the double wrapping of a paragraph written over several source lines.
    @Test func theRaggedCheckFindsAParagraphBrokenInTheSource() {
        struct HardWrapped: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "hard-wrapped",
                discussion: """
                    Prints one line per file; with --json one JSON document: an object with file, steps, samples,
                    duration_s, format and bouts for one file, an array of them for several.
                    """)
        }
        #expect(Self.raggedLines(HardWrapped.helpMessage(columns: 80), columns: 80).count == 1)
    }

    /// In a manual page a text line joins the one before unless it starts with a blank: every line of a discussion
    /// after the first of its block starts with one, so examples stay one per line there as in `--help`.
    @Test func discussionLinesAfterTheFirstOfABlockAreIndented() {
        for (path, command) in Self.commands() {
            let lines = command.configuration.discussion.components(separatedBy: "\n")
            for (line, next) in zip(lines, lines.dropFirst()) where !line.isEmpty && !next.isEmpty {
                #expect(next.hasPrefix(" "), "steptweet \(path): «\(next)» would join «\(line)» in the manual")
            }
        }
    }

    /// steptweet.toml(5) has every key of the sample configuration, in its table, and `init --man-page` prints it.
    @Test func theConfigurationPageListsEveryKeyOfTheSample() async throws {
        var expected: [(table: String, key: String)] = []
        var table = ""
        for line in SampleConfiguration.text.components(separatedBy: "\n") {
            let body = line.trimmingPrefix("#").trimmingCharacters(in: .whitespaces)
            if let header = body.wholeMatch(of: /\[\[?([a-z_]+)\]?\]/) {
                table = body.hasPrefix("[[") ? "[[\(header.1)]]" : "[\(header.1)]"
            } else if let key = body.firstMatch(of: /^([a-z_]+) *=/) {
                expected.append((table, String(key.1)))
            }
        }
        #expect(expected.count > 20)
        let r = try await Steptweet.run(["init", "--man-page"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.hasPrefix(".Dd "))
        #expect(r.stdout.contains(".Dt STEPTWEET.TOML 5\n"))
        let sections = r.stdout.components(separatedBy: ".Ss ").dropFirst()
        for (table, key) in expected {
            let section = sections.first { $0.hasPrefix("\"\(table)\"\n") }
            #expect(section?.contains(".It Ic \"\(key)\" No = Li ") == true, "\(table) \(key) is not on the page")
        }
    }
}
