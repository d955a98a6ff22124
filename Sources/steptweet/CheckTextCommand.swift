import ArgumentParser
import Foundation
import Messages

/// `steptweet check-text`: measures a text with a platform's length rules.
struct CheckTextCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-text",
        abstract: "Check a text against a platform's length rules.",
        discussion: """
            X: twitter-text v3 weighted length (CJK and emoji count 2, every URL 23), limit 280.
            Mastodon: 500 characters, URLs 23. Bluesky: 300 graphemes and 3000 UTF-8 bytes.
            With --json prints {"limit":…,"valid":…,"weightedLength":…}. Exit status 65 when the text does not fit.
            Reads the text from standard input when it is '-' or missing (one trailing newline is dropped).

            Example: steptweet check-text --platform x --json '11/21 10:00:00 〜 11/21 10:30:00 の期間に 1234 歩'
            """
    )

    @Option(help: "x, mastodon or bluesky.") var platform: String
    @Flag(help: "Print one JSON object.") var json = false
    @Argument(help: "The text, or '-' to read standard input.") var text: String?

    func run() throws {
        guard let rule = LengthRule.platform(platform) else {
            throw ValidationError("--platform: '\(platform)' is not one of x, mastodon, bluesky")
        }
        var input = text ?? "-"
        if input == "-" {
            input = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
            if input.hasSuffix("\r\n") { input.removeLast(2) } else if input.hasSuffix("\n") { input.removeLast() }
        }
        let check = rule.check(input)
        if json {
            print(jsonLine(check))
        } else {
            print("\(check.weightedLength)/\(check.limit) \(check.valid ? "valid" : "not valid") for \(rule)")
        }
        if !check.valid { throw ExitCode(ExitStatus.dataError) }
    }
}
