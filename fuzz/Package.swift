// swift-tools-version: 6.1
// libFuzzer harnesses for the SensorInput parsers: one executable per parser, built apart from the root package
// (the sources are symlinked from ../Sources so the root build and `swift test` are unaffected). See README.md.
import PackageDescription

/// Parser name (as `--format` takes it, `detect` for auto-detection, `payload-<name>` for a pushed-payload format)
/// -> executable `fuzz-<name>`.
let parsers = [
    "detect", "generic-csv", "generic-csv-parallel", "actigraph-raw", "actigraph-epoch", "axivity", "geneactiv",
    "wisdm", "oxford", "uci-raw",
    "steplog", "apple-health", "fitbit-steps", "sensor-logger-pedometer", "devices", "garmin-fit", "google-fit", "zip",
    "samsung-health", "samsung-health-daily", "zepp-life", "zepp-life-daily", "shimmer",
    "payload-health-auto-export", "payload-sensor-logger", "payload-health-connect", "payload-owntracks",
    "payload-steplog",
]

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
