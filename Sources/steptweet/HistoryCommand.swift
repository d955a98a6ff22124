import ArgumentParser

/// `steptweet history` (not implemented yet).
struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "List past fetches and their results. (not implemented yet)",
        discussion: "Example: steptweet history --json"
    )

    @Argument(parsing: .captureForPassthrough, help: .hidden) var rest: [String] = []

    func run() throws {
        throw notImplemented("history")
    }
}
