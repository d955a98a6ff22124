import Agent
import ArgumentParser
import Foundation

/// `steptweet init`: writes a commented sample configuration.
struct InitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Write a commented sample configuration file.",
        discussion:
            "Refuses to overwrite an existing file unless --force. Example: steptweet init --config ./config.toml"
    )

    @OptionGroup var configOptions: ConfigOptions
    @Flag(help: "Overwrite an existing file.") var force = false

    func run() throws {
        let path = configOptions.path
        if FileManager.default.fileExists(atPath: path) && !force {
            throw fail("\(path) exists; not overwritten (pass --force to replace it)", status: ExitStatus.cantCreate)
        }
        do {
            try FileManager.default.createDirectory(
                atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path,
                withIntermediateDirectories: true)
            try Data(SampleConfiguration.text.utf8).write(to: URL(fileURLWithPath: path))
        } catch {
            throw fail("cannot write \(path): \(error.localizedDescription)", status: ExitStatus.cantCreate)
        }
        printLine("wrote \(path)")
    }
}
