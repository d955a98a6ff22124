import ArgumentParser

/// `steptweet eval` (not implemented yet).
struct EvalCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "eval",
        abstract: "Score the step counter against a manifest of recordings with true step counts. (not implemented yet)",
        discussion: "Example: steptweet eval ../shared/data/steps/manifest.csv"
    )

    @Argument(parsing: .captureForPassthrough, help: .hidden) var rest: [String] = []

    func run() throws {
        throw notImplemented("eval")
    }
}
