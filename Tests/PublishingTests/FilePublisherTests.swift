import Clocks
import Foundation
import Testing
import WallTime

@testable import Publishing

@Suite struct FilePublisherTests {
    /// The folder is removed when the test ends.
    let dir: TempDir
    init() throws { dir = try TempDir() }
    func tempPath() throws -> String { dir.path("posts.jsonl") }

    @Test func appendsJSONLinesAndSkipsAKeyItHolds() async throws {
        let path = try tempPath()
        let publisher = FilePublisher(
            path: path, clock: WallClock(ImmediateClock(), startingAt: Date(timeIntervalSince1970: 1_795_316_400)))
        #expect(await publisher.publish(samplePost, deadline: soon()) == .delivered(remoteID: "1"))
        var second = samplePost
        second.idempotencyKey = "steps-b"
        second.text = "second \"quoted\"\nline"
        #expect(await publisher.publish(second, deadline: soon()) == .delivered(remoteID: "2"))
        #expect(await publisher.publish(samplePost, deadline: soon()) == .alreadyDelivered(remoteID: "1"))
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2)
        let first = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: String])
        #expect(
            first == [
                "idempotency_key": samplePost.idempotencyKey, "text": samplePost.text,
                "window_start": "2025-11-21T01:00:00Z", "window_end": "2025-11-21T01:30:00Z",
                "written_at": "2026-11-22T03:00:00Z",
            ])
        let decoded = try #require(try JSONSerialization.jsonObject(with: Data(lines[1].utf8)) as? [String: String])
        #expect(decoded["text"] == "second \"quoted\"\nline")
    }

    @Test func aTornLastLineDoesNotSwallowTheNextPost() async throws {
        let path = try tempPath()
        try Data(#"{"idempotency_key":"x","te"#.utf8).write(to: URL(fileURLWithPath: path))
        #expect(await FilePublisher(path: path).publish(samplePost, deadline: soon()) == .delivered(remoteID: "2"))
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines[1].contains(samplePost.idempotencyKey))
    }

    @Test func anUnwritablePathIsPermanent() async {
        let outcome = await FilePublisher(path: "/nonexistent-dir-steptweet/posts.jsonl").publish(
            samplePost, deadline: soon())
        guard case .permanent(let reason) = outcome else {
            Issue.record("expected permanent, got \(outcome)")
            return
        }
        #expect(reason.contains("/nonexistent-dir-steptweet/posts.jsonl"))
    }

    @Test func theChartIsWrittenBesideTheLineThatNamesIt() async throws {
        let path = try tempPath()
        let publisher = FilePublisher(path: path, image: ImageOption(chart: true))
        #expect(await publisher.publish(sampleImagePost, deadline: soon()) == .delivered(remoteID: "1"))
        let png = dir.path(samplePost.idempotencyKey + ".png")
        #expect(publisher.imagePath(for: samplePost) == png)
        #expect(try Data(contentsOf: URL(fileURLWithPath: png)) == samplePNG)
        let line = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")[0]
        let json = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String])
        #expect(json["image_file"] == samplePost.idempotencyKey + ".png" && json["image_alt"] == sampleImage.alt)
        // Without image = "chart" the image is not written.
        var other = sampleImagePost
        other.idempotencyKey = "steps-other"
        #expect(await FilePublisher(path: path).publish(other, deadline: soon()) == .delivered(remoteID: "2"))
        #expect(!FileManager.default.fileExists(atPath: dir.path("steps-other.png")))
    }

    @Test func anUnwritableChartFailsThePostOrLeavesTheLineAloneWhenNotRequired() async throws {
        let path = try tempPath()
        // A folder where the PNG should go: it cannot be written as a file.
        try FileManager.default.createDirectory(
            atPath: dir.path(samplePost.idempotencyKey + ".png"), withIntermediateDirectories: false)
        let required = await FilePublisher(path: path, image: ImageOption(chart: true))
            .publish(sampleImagePost, deadline: soon())
        guard case .permanent(let reason) = required else {
            Issue.record("\(required)")
            return
        }
        #expect(reason.hasPrefix("cannot write"))
        #expect(!FileManager.default.fileExists(atPath: path))
        let optional = await FilePublisher(path: path, image: ImageOption(chart: true, required: false))
            .publish(sampleImagePost, deadline: soon())
        guard case .deliveredWithoutImage(let id, let note) = optional else {
            Issue.record("\(optional)")
            return
        }
        #expect(id == "1" && note.contains("cannot write"))
        #expect(!(try String(contentsOfFile: path, encoding: .utf8)).contains("image_file"))
    }
}
