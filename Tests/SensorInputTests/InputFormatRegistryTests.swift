import Foundation
import SensorInput
import Store
import TestSupport
import Testing
import WallTime

/// The format registries check themselves (issue #46): every format in `InputFormats.all` is detected from a sample
/// committed under `fixtures/formats/`, and every input and pushed-payload format has a libFuzzer harness in `fuzz/`
/// with a seed. A format added without either fails here, naming what to add.
@Suite struct InputFormatRegistryTests {
    static let root = SharedData.packageRoot

    /// Harnesses that fuzz something other than one format: detection, the parallel CSV splitter, the device
    /// decoders and export zips.
    static let harnessesBeyondFormats: Set<String> = ["detect", "generic-csv-parallel", "devices", "zip"]

    /// The samples under `fixtures/formats/` (any depth) by the format detection finds in each, as paths relative to
    /// the package. Files that are no recording (ORIGIN.md, the scripts that wrote the fixtures) have no format.
    static func samplesByFormat() throws -> [String: [String]] {
        let folder = root.appendingPathComponent("fixtures/formats")
        let files = try #require(FileManager.default.subpaths(atPath: folder.path)).sorted()
        var found: [String: [String]] = [:]
        for file in files {
            let path = folder.appendingPathComponent(file).path
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue,
                let format = try? InputFormats.resolve(path: path, options: ReadOptions())
            else { continue }
            found[format.name, default: []].append("fixtures/formats/" + file)
        }
        return found
    }

    @Test func everyFormatIsDetectedFromACommittedSampleThatReads() throws {
        let samples = try Self.samplesByFormat()
        let missing = InputFormats.names.filter { samples[$0] == nil }
        let hint = "add a small sample, with its origin and licence in fixtures/README.md"
        #expect(missing.isEmpty, "no file under fixtures/formats/ is detected as \(missing): \(hint)")
        for name in InputFormats.names {
            guard let sample = samples[name]?.first else { continue }
            // A time and a rate for the formats whose files do not say (UCI's rows, relative times); export databases
            // opened by Store, as the commands and the agent have them opened.
            var options = ReadOptions(start: Instant(nanosecondsSinceEpoch: 1_763_719_200_000_000_000), rateHz: 50)
            options.exportDatabases = SQLiteExports()
            let path = Self.root.appendingPathComponent(sample).path
            let summary = try AnyInput.read(path: path, options: options) { _ in }
            #expect(summary.format == name, "\(sample)")
            #expect(summary.samples + summary.readings > 0, "\(sample) is detected as \(name) and yields nothing")
        }
    }

    @Test func everyFormatHasAFuzzHarnessWithASeed() throws {
        // The pushed payloads' harnesses (`payload-NAME`) are Ingestion's: PushAppConformanceTests checks them.
        let inputs = InputFormats.names.map { (harness: $0, format: $0, call: "fuzzOne") }
        for (harness, format, call) in inputs {
            let main = Self.root.appendingPathComponent("fuzz/Sources/fuzz-\(harness)/main.swift")
            let source = try? String(contentsOf: main, encoding: .utf8)
            #expect(
                source?.contains("\(call)(data, size, format: \"\(format)\"") == true,
                "fuzz/Sources/fuzz-\(harness)/main.swift should call \(call)(data, size, format: \"\(format)\")")
            let seeds =
                (try? FileManager.default.contentsOfDirectory(atPath: Self.root.path + "/fuzz/corpus/\(harness)"))
            #expect(seeds?.isEmpty == false, "fuzz/corpus/\(harness)/ should hold at least one seed")
        }
    }

    @Test func everyFuzzHarnessNamesARegisteredFormat() throws {
        let folders = try FileManager.default.contentsOfDirectory(atPath: Self.root.path + "/fuzz/Sources")
        let harnesses = folders.filter { $0.hasPrefix("fuzz-") }.map { String($0.dropFirst("fuzz-".count)) }
            .filter { !$0.hasPrefix("payload-") }  // Ingestion's (PushAppConformanceTests)
        let known = Set(InputFormats.names)
            .union(Self.harnessesBeyondFormats)
        let stale = harnesses.filter { !known.contains($0) }.sorted()
        #expect(stale.isEmpty, "harnesses of no registered format (renamed or removed?): \(stale)")
    }
}
