import ArgumentParser

/// `steptweet check-text` (not implemented yet).
struct CheckTextCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-text",
        abstract: "Check a text against a platform's length rules. (not implemented yet)",
        discussion: "Example: steptweet check-text --platform x 'hello'"
    )

    @Argument(parsing: .captureForPassthrough, help: .hidden) var rest: [String] = []

    func run() throws {
        throw notImplemented("check-text")
    }
}
