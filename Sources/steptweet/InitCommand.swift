import Agent
import ArgumentParser
import Foundation

/// `steptweet init`: writes a commented sample configuration.
struct InitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Write a commented sample configuration file.",
        discussion: """
            Refuses to overwrite an existing file unless --force. Every key is described in steptweet.toml(5).

            Example:
              steptweet init --config ./config.toml
            """
    )

    @OptionGroup var configOptions: ConfigOptions
    @Flag(help: "Overwrite an existing file.") var force = false
    /// `make man` writes steptweet.toml(5) with it: the page is made from the same sample as the file.
    @Flag(help: .hidden) var manPage = false

    func run() throws {
        if manPage {
            return Console.current.output(ConfigurationManual.page(version: Steptweet.version))
        }
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
