import ArgumentParser

/// `steptweet fetch` (not implemented yet).
struct FetchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Run one background fetch (not implemented yet)",
        discussion: "Example:  ingest, count, compose, post.:steptweet fetch --config config.toml"
    )

    @Argument(parsing: .captureForPassthrough, help: .hidden) var rest: [String] = []

    func run() throws {
        throw notImplemented("fetch")
    }
}
