import ArgumentParser

/// `steptweet agent` (not implemented yet).
struct AgentCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "agent",
        abstract: "Run the background agent (not implemented yet)",
        discussion: "Example:  fetches on schedule, signals and pushes.:steptweet agent --config config.toml"
    )

    @Argument(parsing: .captureForPassthrough, help: .hidden) var rest: [String] = []

    func run() throws {
        throw notImplemented("agent")
    }
}
