import ArgumentParser

/// `steptweet status` (not implemented yet).
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the next fetch, the last results and the pending outbox. (not implemented yet)",
        discussion: "Example: steptweet status"
    )

    @Argument(parsing: .captureForPassthrough, help: .hidden) var rest: [String] = []

    func run() throws {
        throw notImplemented("status")
    }
}
