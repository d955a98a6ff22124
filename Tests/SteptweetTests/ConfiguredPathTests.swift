import Foundation
import TestSupport
import Testing

/// A path the configuration names that is not there is reported as a configuration error is: with its key and the
/// line it is written on, and exit 78.
@Suite(.temporaryFolder) struct ConfiguredPathTests {
    @Test func aMissingSourcePathNamesSourcePathAndItsLine() async throws {
        let config = try Steptweet.configFile(
            """
            [text]
            time_zone = "Asia/Tokyo"
            [source]
            path = "walk.csv"
            [state]
            path = "state.sqlite"

            """)
        let walk = (config as NSString).deletingLastPathComponent + "/walk.csv"
        let failed = "Failed: ingestion: line 4: source.path: \(walk): no such file\n"
        let fetch = try await Steptweet.run(["fetch", "--config", config, "--now", "2026-11-21T10:10:00+09:00"])
        #expect(fetch.status == 78, "\(fetch)")
        #expect(fetch.stdout.hasSuffix(failed), "\(fetch.stdout)")
        let dry = try await Steptweet.run(["fetch", "--config", config, "--dry-run"])
        #expect(dry.status == 78 && dry.stdout.hasSuffix(failed), "\(dry)")
        let history = try await Steptweet.run(["history", "--config", config])
        #expect(history.stdout.contains("Failed: ingestion: line 4: source.path: \(walk): no such file"), "\(history)")
    }

    @Test func aFileTargetInAFolderThatIsNotThereNamesItsPathAndLine() async throws {
        let config = try Steptweet.walkConfig(
            """
            [state]
            path = "state.sqlite"
            [[publish]]
            kind = "stdout"
            [[publish]]
            kind = "file"
            path = "posts/out.jsonl"

            """)
        let folder = (config as NSString).deletingLastPathComponent
        for command in [["fetch", "--dry-run"], ["status"]] {
            let run = try await Steptweet.run(command + ["--config", config])
            #expect(run.status == 78, "\(run)")
            #expect(
                run.stderr.contains(
                    "line 10: publish[1].path: the folder \(folder)/posts does not exist (a file target does not create it)"
                ),
                "\(run.stderr)")
        }
        // A file where the folder should be is not one; once the folder is there, the target writes into it.
        try Data().write(to: URL(fileURLWithPath: folder + "/posts"))
        let notFolder = try await Steptweet.run(["status", "--config", config])
        #expect(
            notFolder.stderr.contains("publish[1].path: the folder \(folder)/posts is not a folder"), "\(notFolder)")
        try FileManager.default.removeItem(atPath: folder + "/posts")
        try FileManager.default.createDirectory(atPath: folder + "/posts", withIntermediateDirectories: false)
        let fetch = try await Steptweet.run(["fetch", "--config", config, "--now", "2026-11-21T10:10:00+09:00"])
        #expect(fetch.status == 0, "\(fetch)")
        #expect(FileManager.default.fileExists(atPath: folder + "/posts/out.jsonl"))
    }
}
