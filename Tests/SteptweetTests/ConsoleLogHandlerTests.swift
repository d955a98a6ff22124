import Foundation
import Logging
import TestSupport
import Testing

@testable import steptweet

@Suite(.temporaryFolder) struct ConsoleLogHandlerTests {
    let tokyo = TimeZone(identifier: "Asia/Tokyo")!
    let at = Date(timeIntervalSince1970: 1_763_686_800)  // 2025-11-21T01:00:00Z

    @Test func aTerminalGetsTheTimeInTheConfiguredZoneWithItsOffset() {
        let handler = ConsoleLogHandler(level: .info, zone: tokyo, environment: [:])
        let line = handler.format(level: .warning, message: "fetch schedule: Failed: network", metadata: nil, at: at)
        #expect(line == "2025-11-21T10:00:00+09:00 warning: fetch schedule: Failed: network")
    }

    @Test func theJournalGetsThePriorityPrefixAndNoTimestamp() {
        let handler = ConsoleLogHandler(level: .info, zone: tokyo, environment: ["JOURNAL_STREAM": "8:12345"])
        #expect(handler.format(level: .warning, message: "Failed", metadata: nil, at: at) == "<4>Failed")
        #expect(
            handler.format(level: .error, message: "disk full", metadata: ["target": "mastodon"], at: at)
                == "<3>disk full target=mastodon")
        #expect(handler.format(level: .info, message: "ok \u{1B}[2J", metadata: nil, at: at) == "<6>ok \\x1b[2J")
    }

    /// A Logger's error and its metadata provider's values reach the line: the handler implements `log(event:)`,
    /// which carries both, instead of swift-log's deprecated flat method, which carries neither.
    @Test func aLoggedErrorAndProvidedMetadataAreInTheLine() {
        struct Refused: Error, CustomStringConvertible { var description: String { "HTTP 404: no such hook" } }
        let lines = LockedLines()
        let console = Console(output: { _ in }, error: { lines.append($0) }, input: { Data() })
        let provider = Logger.MetadataProvider { ["trigger": "signal"] }
        let logger = Logger(label: "test") { _ in
            var handler = ConsoleLogHandler(level: .info, zone: tokyo, environment: ["JOURNAL_STREAM": "8:1"])
            handler.metadataProvider = provider
            return handler
        }
        Console.$current.withValue(console) {
            logger.warning("fetch: Failed", error: Refused(), metadata: ["target": "webhook"])
        }
        #expect(lines.all == ["<4>fetch: Failed error=HTTP 404: no such hook target=webhook trigger=signal\n"])
    }
}

/// Lines written to a test console, safe from any thread.
private final class LockedLines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func append(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}
