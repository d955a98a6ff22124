import Foundation
import Messages

/// Appends each post as one JSON line `{"idempotency_key", "text", "window_start", "window_end", "written_at"}` to
/// a file (for local use and tests). A key already in the file is reported as `.alreadyDelivered` and not written
/// again; the remote id is the line number.
public struct FilePublisher: Publisher {
    public let name: String
    public let path: String
    let now: @Sendable () -> Date

    public init(name: String = "file", path: String, now: @escaping @Sendable () -> Date = { Date() }) {
        self.name = name
        self.path = path
        self.now = now
    }

    public var redactedDescription: String { "\(name): file \(path)" }

    struct Line: Codable {
        var idempotencyKey: String
        var text: String
        var windowStart: String
        var windowEnd: String
        var writtenAt: String
    }

    public func publish(_ post: Post, deadline: Deadline) async -> DeliveryOutcome {
        guard !post.text.isEmpty else { return .permanent(reason: "empty text") }
        let existing = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        let lines = existing.split(separator: "\n", omittingEmptySubsequences: true)
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        for (index, line) in lines.enumerated() {
            if let decoded = try? decoder.decode(Line.self, from: Data(line.utf8)),
                decoded.idempotencyKey == post.idempotencyKey
            {
                return .alreadyDelivered(remoteID: String(index + 1))
            }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let line = Line(
            idempotencyKey: post.idempotencyKey, text: post.text,
            windowStart: Timestamps.format(post.windowStart), windowEnd: Timestamps.format(post.windowEnd),
            writtenAt: Timestamps.format(now()))
        guard var data = try? encoder.encode(line) else { return .permanent(reason: "cannot encode the post") }
        data.append(0x0A)
        if !existing.isEmpty && !existing.hasSuffix("\n") { data.insert(0x0A, at: 0) }  // after a torn last line
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0o644)
        guard fd >= 0 else {
            let err = String(cString: strerror(errno))
            return .permanent(reason: "cannot open \(path): \(err)")
        }
        defer { close(fd) }
        let written = data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == data.count else {
            return .retryable(reason: "short write to \(path): \(String(cString: strerror(errno)))", retryAfter: nil)
        }
        return .delivered(remoteID: String(lines.count + 1))
    }
}

extension FilePublisher {
    /// `kind = "file"`: `path` (required; relative to the configuration file's folder).
    public static let target = TargetKind("file", usesHTTP: false) { config in
        FilePublisher(name: config.name, path: try config.requiredPath("path"))
    }
}
