// swift-tools-version: 6.1
// libFuzzer harnesses for the SensorInput parsers: one executable per parser, built apart from the root package
// (the sources are symlinked from ../Sources so the root build and `swift test` are unaffected). See README.md.
import Foundation
import PackageDescription

/// Parser name (as `--format` takes it, `detect` for auto-detection, `payload-<name>` for a pushed-payload format)
/// -> executable `fuzz-<name>`: one per folder `Sources/fuzz-<name>`, so a harness is added by adding its folder.
/// `InputFormatRegistryTests` (the root package's) fails while a format of `InputFormats.all` or `PayloadFormats.all`
/// has no folder here, or no seed in `corpus/<name>`.
let parsers: [String] = {
    let folder = Context.packageDirectory + "/Sources"
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else {
        fatalError("cannot list the harness folders in \(folder)")
    }
    return names.filter { $0.hasPrefix("fuzz-") }.map { String($0.dropFirst("fuzz-".count)) }.sorted()
}()

let package = Package(
    name: "SensorInputFuzz",
    targets: [
        .target(name: "StepDetection", path: "Shared/StepDetection"),
        .target(name: "WallTime", path: "Shared/WallTime", exclude: ["README.md"]),
        .systemLibrary(name: "CZlib", path: "Shared/CZlib"),
        .systemLibrary(name: "GRDBSQLite", path: "Shared/GRDBSQLite"),  // the system SQLite, as GRDB's module names it
        .target(
            name: "SensorInput", dependencies: ["StepDetection", "WallTime", "CZlib", "GRDBSQLite"],
            path: "Shared/SensorInput",
            exclude: ["README.md"]),
        .target(name: "FuzzSupport", dependencies: ["SensorInput"]),
    ]
        + parsers.map { name in
            .executableTarget(name: "fuzz-\(name)", dependencies: ["FuzzSupport"], path: "Sources/fuzz-\(name)")
        }
)
