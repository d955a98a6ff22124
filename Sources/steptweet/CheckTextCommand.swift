import ArgumentParser
import Foundation
import Messages

/// The platforms `check-text --platform` knows; `twitter` and `bsky` are accepted as aliases.
enum CheckTextPlatform: String, CaseIterable, ExpressibleByArgument {
    case x, mastodon, bluesky

    init?(argument: String) {
        switch argument.lowercased() {
        case "x", "twitter": self = .x
        case "mastodon": self = .mastodon
        case "bluesky", "bsky": self = .bluesky
        default: return nil
        }
    }

    func rule(maxCharacters: Int?) -> LengthRule {
        switch self {
        case .x: return .x
        case .mastodon: return maxCharacters.map { .mastodonInstance($0) } ?? .mastodon
        case .bluesky: return .bluesky
        }
    }
}

/// `steptweet check-text`: measures a text with a platform's length rules.
struct CheckTextCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-text",
        abstract: "Check a text against a platform's length rules.",
        discussion: """
            X: twitter-text v3 weighted length (CJK and emoji count 2, every URL 23), limit 280. Mastodon: 500 \
            characters (or --max-characters), URLs 23. Bluesky: 300 graphemes and 3000 UTF-8 bytes.

            Prints every limit that applies. With --json prints one object: platform, weighted_length, limit, valid \
            and limits (each measure, length, max, within). Exit status 65 when the text does not fit. Reads the \
            text from standard input when it is '-' or missing (one trailing newline is dropped).

            Examples:
              steptweet check-text --platform x --json '11/21 10:00 〜 10:30 の期間に 1234 歩'
              steptweet check-text --platform bluesky - < text.txt
            """
    )

    @Option(help: "The platform whose rules apply.") var platform: CheckTextPlatform
    @Option(help: "Mastodon only: the instance's max_characters instead of 500.") var maxCharacters: Int?
    @Flag(help: "Print one JSON object.") var json = false
    @Argument(help: "The text, or '-' to read standard input.") var text: String?

    func validate() throws {
        if let n = maxCharacters {
            guard platform == .mastodon else {
                throw ValidationError("--max-characters applies to --platform mastodon only")
            }
            guard n > 0 else { throw ValidationError("--max-characters must be positive, not \(n)") }
        }
    }

    func run() throws {
        var input = text ?? "-"
        if input == "-" {
            input = String(decoding: Console.current.input(), as: UTF8.self)
            if input.hasSuffix("\r\n") { input.removeLast(2) } else if input.hasSuffix("\n") { input.removeLast() }
        }
        let report = LengthReport(rule: platform.rule(maxCharacters: maxCharacters), text: input)
        printLine(json ? jsonLine(report) : report.line)
        if !report.check.valid { throw ExitCode(ExitStatus.dataError) }
    }
}
