// swift-tools-version: 6.1
// libFuzzer harnesses for the SensorInput parsers and Ingestion's payload parsers: one executable per parser, built
// apart from the root package (the sources are symlinked from ../Sources so the root build and `swift test` are
// unaffected; of Ingestion only its push apps and payload parsers, not its server). See README.md.
import Foundation
import PackageDescription

/// Parser name (as `--format` takes it, `detect` for auto-detection, `payload-<name>` for a pushed-payload format)
/// -> executable `fuzz-<name>`: one per folder `Sources/fuzz-<name>`, so a harness is added by adding its folder.
/// `InputFormatRegistryTests` (the root package's) fails while a format of `InputFormats.all` has no folder here, or
/// no seed in `corpus/<name>`; `PushAppConformanceTests` while an app of Ingestion's `PushApps.all` has none.
let parsers: [String] = {
    let folder = Context.packageDirectory + "/Sources"
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else {
        fatalError("cannot list the harness folders in \(folder)")
    }
    return names.filter { $0.hasPrefix("fuzz-") }.map { String($0.dropFirst("fuzz-".count)) }.sorted()
}()

let package = Package(
    name: "SensorInputFuzz",
    dependencies: [.package(url: "https://github.com/apple/swift-http-types", from: "1.8.0")],
    targets: [
        .target(name: "StepDetection", dependencies: ["WallTimeCore"], path: "Shared/StepDetection"),
        .target(name: "WallTimeCore", path: "Shared/WallTimeCore", exclude: ["README.md"]),
        .target(name: "WallTime", dependencies: ["WallTimeCore"], path: "Shared/WallTime", exclude: ["README.md"]),
        .systemLibrary(name: "CZlib", path: "Shared/CZlib"),
        .systemLibrary(name: "GRDBSQLite", path: "Shared/GRDBSQLite"),  // the system SQLite, as GRDB's module names it
        .target(
            name: "SensorInput", dependencies: ["StepDetection", "WallTime", "CZlib"], path: "Shared/SensorInput",
            exclude: ["README.md"]),
        // Of Store only what opens export databases (Gadgetbridge's) for the readers: no GRDB, the system SQLite.
        .target(
            name: "Store", dependencies: ["SensorInput", "GRDBSQLite"], path: "Shared/Store"),
        .target(
            name: "Ingestion",
            dependencies: ["SensorInput", "StepDetection", .product(name: "HTTPTypes", package: "swift-http-types")],
            path: "Shared/Ingestion", sources: ["Apps", "Payloads", "Receiver/HTTPAnswer.swift"]),
        .target(name: "FuzzSupport", dependencies: ["SensorInput", "Store", "Ingestion"]),
    ]
        + parsers.map { name in
            .executableTarget(name: "fuzz-\(name)", dependencies: ["FuzzSupport"], path: "Sources/fuzz-\(name)")
        }
)
