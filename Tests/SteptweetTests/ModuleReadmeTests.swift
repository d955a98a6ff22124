import Foundation
import TestSupport
import Testing

/// Every module says how to add what it holds (issue #46): each README under Sources has an "Adding a …" section, so
/// that a newcomer adding a format, a target, a command or a table finds the one file and the one line to write.
@Suite struct ModuleReadmeTests {
    @Test func everyModuleReadmeHasAnAddingSection() throws {
        let sources = SharedData.packageRoot.appendingPathComponent("Sources")
        let modules = try FileManager.default.contentsOfDirectory(atPath: sources.path).sorted()
        var readmes = 0
        for module in modules {
            let readme = sources.appendingPathComponent(module).appendingPathComponent("README.md")
            guard let text = try? String(contentsOf: readme, encoding: .utf8) else { continue }
            readmes += 1
            let adding = text.split(separator: "\n").contains { $0.hasPrefix("## Adding a") }
            #expect(adding, "Sources/\(module)/README.md has no \"## Adding a …\" section")
        }
        #expect(readmes >= 10, "the scan reads the modules' READMEs")
    }
}
