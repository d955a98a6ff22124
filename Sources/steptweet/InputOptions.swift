import ArgumentParser
import SensorInput

/// Options every command that reads an input shares.
struct InputOptions: ParsableArguments {
    @Flag(name: .long, help: "Stop with an error at the first malformed line instead of skipping it.") var strict = false

    func readOptions() -> ReadOptions {
        ReadOptions(strict: strict)
    }
}
