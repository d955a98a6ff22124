import ArgumentParser

/// `steptweet inspect` (not implemented yet).
struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Describe an input (not implemented yet)",
        discussion: "Example:  format, kind, samples, rate, start, end, units.:steptweet inspect walk.csv"
    )

    @Argument(parsing: .captureForPassthrough, help: .hidden) var rest: [String] = []

    func run() throws {
        throw notImplemented("inspect")
    }
}
