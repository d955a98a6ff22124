// swift-tools-version: 6.1
// StepCountTweeter: accelerometer recordings and pedometer logs in, step counts out, posted on each background fetch.
// Modules follow the data flow (inputs -> detection -> store -> text -> publish, agent on top); each imports only
// modules before it in this list: WallTimeCore, StepDetection, WallTime, SensorInput, Store, Ingestion, Messages,
// Publishing, Analysis, Agent, steptweet. Store is the only one that imports GRDB; Hummingbird is the one HTTP server
// library (FlyingFox serves only the tests, in Tests/HTTPTestSupport). EmbedText and the EmbedDemoRecording plugin
// are build tools (the demo recording compiled into Agent).
import PackageDescription

let package = Package(
    name: "StepCountTweeter",
    // Linux-only: SensorInput/Devices reads IIO and evdev devices through Glibc, the agent watches sources with
    // inotify and trims memory with malloc_trim. The macOS line is the minimum the dependencies (Clock, service
    // lifecycle) need, not a claim that the package builds there; CI builds and tests on Linux.
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "steptweet", targets: ["steptweet"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // The tests' in-process HTTP servers only (Tests/HTTPTestSupport): no target under Sources depends on it.
        .package(url: "https://github.com/swhitty/FlyingFox", from: "0.27.1"),
        // The agent's HTTP servers (receiver, push listener, the demo's endpoint): SwiftNIO's HTTP/1.1 parser with
        // header limits, idle and read timeouts, a connection cap. No traits: neither swift-configuration nor full
        // Foundation is needed.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/pointfreeco/swift-clocks", from: "1.1.1"),
    ],
    targets: [
        // The time values every module passes (`Instant`, `TimeWindow`): pure Swift, no Foundation.
        .target(name: "WallTimeCore", exclude: ["README.md"]),
        // Pure Swift, no I/O: samples -> step events and walking bouts.
        .target(name: "StepDetection", dependencies: ["WallTimeCore"], exclude: ["README.md"]),
        // The one source of time: wall time and an injected `Clock` to sleep on (tests never sleep for real); re-exports
        // WallTimeCore and converts its instants to and from `Date`.
        .target(name: "WallTime", dependencies: ["WallTimeCore"], exclude: ["README.md"]),
        // Files and devices -> acceleration samples or step readings.
        .target(
            name: "SensorInput",
            dependencies: [
                "StepDetection", "WallTime", "CZlib",
            ], exclude: ["README.md"]),
        // The system zlib (inflate for zip backups), as a module.
        .systemLibrary(name: "CZlib", path: "Sources/CZlib"),
        // The agent's state in SQLite: every table through a record type, one migrator, a typed API (no SQL above it);
        // and app exports' SQLite databases opened read-only for SensorInput's readers (`SQLiteExports`).
        .target(
            name: "Store",
            dependencies: [
                "StepDetection", "WallTime", "SensorInput", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ], exclude: ["README.md"]),
        // Step data coming in while the agent runs: what phones push -> the state (the receiver's HTTP routes and
        // limits, one file per push app declaring its payload format and answers, in a registry; the commit through
        // Store), and the live accelerometer sampled into the file the fetch reads.
        .target(
            name: "Ingestion",
            dependencies: [
                "StepDetection", "WallTime", "SensorInput", "Store",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ], exclude: ["README.md"]),
        // Windows -> text: templates, dates, time zones, per-platform length rules.
        .target(name: "Messages", dependencies: ["WallTime"], exclude: ["README.md"]),
        // Text -> HTTP targets: one file per target, classified errors, redacted secrets.
        .target(
            name: "Publishing", dependencies: ["Messages", "WallTime", .product(name: "TOMLKit", package: "TOMLKit")],
            exclude: ["README.md"]),
        // The ABI of the system librsvg and cairo (SVG -> pixels), opened at the first chart (ChartLibrary.swift).
        .systemLibrary(name: "CRsvg", path: "Sources/CRsvg"),
        // Pictures of steps: the count pipeline, the evaluation report, the SVG plot, the terminal chart, and the
        // window's chart as a PNG with its alt text (the agent attaches it to posts).
        .target(
            name: "Analysis",
            dependencies: ["StepDetection", "WallTime", "SensorInput", "Messages", "Publishing", "CRsvg", "CZlib"],
            exclude: ["README.md"]),
        // The background fetch: configuration, schedule, deadline, triggers, delivery from the outbox, daemon. The demo
        // recording is built into it (the EmbedDemoRecording plugin), so `steptweet demo` needs no checkout.
        .target(
            name: "Agent",
            dependencies: [
                "StepDetection", "WallTime", "SensorInput", "Store", "Ingestion", "Messages", "Publishing", "Analysis",
                .product(name: "TOMLKit", package: "TOMLKit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ], exclude: ["README.md"], plugins: ["EmbedDemoRecording"]),
        // Build tools: a text file as a Swift string, run by the plugin that embeds the demo recording in Agent.
        .executableTarget(name: "EmbedText", exclude: ["README.md"]),
        .plugin(name: "EmbedDemoRecording", capability: .buildTool(), dependencies: ["EmbedText"]),
        // Argument parsing and wiring only.
        .executableTarget(
            name: "steptweet",
            dependencies: [
                "StepDetection", "WallTime", "SensorInput", "Store", "Messages", "Publishing", "Analysis", "Agent",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ], exclude: ["README.md"]),
        // What every test target shares: temporary folders that clean up, seeded randomness, ../shared paths, SVGs as
        // pixels (zlib). No HTTP, no agent: the detector's and the readers' tests build neither FlyingFox nor GRDB.
        .target(
            name: "TestSupport",
            dependencies: ["SensorInput", "WallTime", "CZlib", .product(name: "Clocks", package: "swift-clocks")],
            path: "Tests/TestSupport",
            exclude: ["README.md"]),
        // The tests' HTTP servers: in memory (FakeHTTPServer) and on 127.0.0.1 (LoopbackServer, RecordingEndpoint).
        .target(
            name: "HTTPTestSupport",
            dependencies: [
                "Publishing", "WallTime", .product(name: "FlyingFox", package: "FlyingFox"),
                .product(name: "FlyingSocks", package: "FlyingFox"),
            ], path: "Tests/HTTPTestSupport", exclude: ["README.md"]),
        .testTarget(name: "StepDetectionTests", dependencies: ["StepDetection", "WallTimeCore", "TestSupport"]),
        .testTarget(
            name: "WallTimeTests", dependencies: ["WallTime", .product(name: "Clocks", package: "swift-clocks")]),
        .testTarget(
            name: "SensorInputTests",
            dependencies: [
                "SensorInput", "StepDetection", "WallTime", "TestSupport", "CZlib", "Store",
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]),
        .testTarget(name: "MessagesTests", dependencies: ["Messages", "WallTime"]),
        .testTarget(
            name: "PublishingTests",
            dependencies: [
                "Publishing", "Messages", "WallTime", "TestSupport", "HTTPTestSupport",
                .product(name: "FlyingFox", package: "FlyingFox"),
                .product(name: "TOMLKit", package: "TOMLKit"),
                .product(name: "Clocks", package: "swift-clocks"),
            ]),
        .testTarget(
            name: "AnalysisTests",
            dependencies: [
                "Analysis", "SensorInput", "StepDetection", "WallTime", "Messages", "Publishing", "TestSupport",
            ]),
        .testTarget(
            name: "IngestionTests",
            dependencies: [
                "Ingestion", "Store", "SensorInput", "StepDetection", "WallTime", "TestSupport",
                .product(name: "Clocks", package: "swift-clocks"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "GRDB", package: "GRDB.swift"), .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "AgentTests",
            dependencies: [
                "Agent", "Store", "Ingestion", "Analysis", "StepDetection", "WallTime", "SensorInput", "Messages",
                "Publishing",
                "TestSupport", "HTTPTestSupport",
                .product(name: "FlyingFox", package: "FlyingFox"), .product(name: "Clocks", package: "swift-clocks"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "GRDB", package: "GRDB.swift"), .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        .testTarget(
            name: "StoreTests",
            dependencies: ["Store", "WallTime", "TestSupport", .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(
            name: "SteptweetTests",
            dependencies: [
                "steptweet", "Agent", "Store", "Ingestion", "TestSupport", "HTTPTestSupport",
                .product(name: "FlyingFox", package: "FlyingFox"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // Real servers on loopback; run only by Tests/integration/run.sh (`make integration-test`), which starts them.
        .testTarget(
            name: "IntegrationTests", dependencies: ["Publishing", "Messages", "WallTime", "TestSupport"],
            path: "Tests/integration/IntegrationTests"),
    ]
)
