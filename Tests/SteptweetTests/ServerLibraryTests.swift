import Foundation
import TestSupport
import Testing

/// One HTTP server library in production (issue #46): the agent's servers run on Hummingbird, and FlyingFox serves
/// only the tests (Tests/HTTPTestSupport). A file in Sources that imports FlyingFox, or a target under Sources that
/// depends on it, fails here.
@Suite struct ServerLibraryTests {
    @Test func noFileInSourcesImportsFlyingFox() throws {
        let sources = SharedData.packageRoot.appendingPathComponent("Sources")
        let files = FileManager.default.enumerator(atPath: sources.path)?.compactMap { $0 as? String } ?? []
        var found: [String] = []
        for file in files where file.hasSuffix(".swift") {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where line.hasPrefix("import FlyingFox") || line.hasPrefix("import FlyingSocks") {
                found.append("Sources/\(file):\(n + 1): \(line)")
            }
        }
        #expect(files.contains("Ingestion/Receiver/HTTPServing.swift"), "the scan reads Sources")
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
    }

    /// Package.swift's targets under Sources (declared before TestSupport, the first under Tests/) name FlyingFox
    /// nowhere.
    @Test func noTargetUnderSourcesDependsOnFlyingFox() throws {
        let manifest = try String(
            contentsOf: SharedData.packageRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
        let targets = try #require(manifest.range(of: "targets: ["))
        let tests = try #require(manifest.range(of: "name: \"TestSupport\""))
        let production = manifest[targets.upperBound..<tests.lowerBound]
        #expect(production.contains("name: \"Agent\""), "the scan reads the targets")
        #expect(!production.contains("package: \"FlyingFox\""))
    }
}
