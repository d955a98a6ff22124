import ArgumentParser

/// The `steptweet` command: a Linux background agent that counts steps and posts them on each background fetch.
@main
struct Steptweet: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "steptweet",
        abstract: "Count steps from accelerometer recordings, pedometer logs or a live sensor, and post them on each background fetch.",
        discussion: """
            Quick look:  steptweet demo
            Count steps: steptweet count walk.csv
            Preview:     steptweet preview --source walk.csv --start 2026-11-21T10:00:00+09:00 --time-zone Asia/Tokyo
            """,
        subcommands: [
            CountCommand.self, EvalCommand.self, InspectCommand.self, CheckTextCommand.self, PreviewCommand.self,
            FetchCommand.self, AgentCommand.self, StatusCommand.self, HistoryCommand.self, StepsCommand.self,
            DemoCommand.self, InitCommand.self, DevicesCommand.self,
        ]
    )
}
