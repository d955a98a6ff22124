import ArgumentParser

/// `steptweet steps` (not implemented yet).
struct StepsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "steps",
        abstract: "Steps stored for any time range. (not implemented yet)",
        discussion: "Example: steptweet steps --from 2026-11-21T00:00:00Z --to 2026-11-22T00:00:00Z"
    )

    @Argument(parsing: .captureForPassthrough, help: .hidden) var rest: [String] = []

    func run() throws {
        throw notImplemented("steps")
    }
}
