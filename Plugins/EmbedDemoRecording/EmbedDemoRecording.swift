import PackagePlugin

/// Builds the committed demo recording into `Agent` as a Swift string (`EmbeddedDemoRecording.text`), so that
/// `steptweet demo` runs from any folder and from an installed binary. Not a SwiftPM resource: `Bundle.module` looks for
/// its bundle beside the executable, then in the build folder, and stops the program with a fatal error when neither
/// has it, as for an installed binary once the build folder is gone, or one copied to another machine.
@main struct EmbedDemoRecording: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let recording = context.package.directoryURL.appending(path: "fixtures/demo_walk_50hz.csv")
        let source = context.pluginWorkDirectoryURL.appending(path: "EmbeddedDemoRecording.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(recording.lastPathComponent) in \(target.name)",
                executable: try context.tool(named: "EmbedText").url,
                arguments: [recording.path, source.path, "EmbeddedDemoRecording"],
                inputFiles: [recording], outputFiles: [source])
        ]
    }
}
