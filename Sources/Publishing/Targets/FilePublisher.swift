import Foundation
import Messages
import WallTime

/// Appends each post as one JSON line `{"idempotency_key", "text", "window_start", "window_end", "written_at"}` to
/// a file (for local use and tests). A key already in the file is reported as `.alreadyDelivered` and not written
/// again; the remote id is the line number. With `image = "chart"` the chart is written first as
/// `<idempotency key>.png` in the same folder, and the line names it (`image_file`) with its alt text (`image_alt`).
public struct FilePublisher: Publisher {
    public let name: String
    public let path: String
    /// `image`, `image_required`: the chart as a PNG file beside the lines.
    public var image: ImageOption
    let clock: WallClock

    public init(name: String = "file", path: String, image: ImageOption = .off, clock: WallClock = .system) {
        self.name = name
        self.path = path
        self.image = image
        self.clock = clock
    }

    public var redactedDescription: String { "\(name): file \(path)" }

    struct Line: Codable {
        var idempotencyKey: String
        var text: String
        var windowStart: String
        var windowEnd: String
        var writtenAt: String
        /// The chart's file name, in the folder of the lines' file.
        var imageFile: String?
        var imageAlt: String?
    }

    /// Where the chart of `post` is written: beside the lines' file, named by the post's key (one file per post,
    /// the same on every attempt).
    public func imagePath(for post: Post) -> String {
        URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent(PostImage.fileName(for: post))
            .path
    }

    public func publish(_ post: Post, deadline: Deadline) async -> DeliveryOutcome {
        guard !post.text.isEmpty else { return .permanent(reason: "empty text") }
        return await ImageAttachment.inOneRequest(post, option: image, target: name) { image in
            await append(post, image: image)
        }
    }

    /// Writes the image (when given), then the line naming it.
    func append(_ post: Post, image: PostImage?) async -> DeliveryOutcome {
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
        if let image {
            if let reason = WholeFile.write(image.png, to: imagePath(for: post)) {
                return .permanent(reason: "cannot write \(imagePath(for: post)): \(reason)")
            }
        }
        let line = Line(
            idempotencyKey: post.idempotencyKey, text: post.text,
            windowStart: Timestamps.format(post.window.start.date), windowEnd: Timestamps.format(post.window.end.date),
            writtenAt: Timestamps.format(clock.now()), imageFile: image.map { _ in PostImage.fileName(for: post) },
            imageAlt: image?.alt)
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
    /// `kind = "file"`: `path` (required; relative to the configuration file's folder), `image`, `image_required`.
    /// Its folder must exist (it is not created): a mistyped one is a configuration error naming `path`, found
    /// before a fetch rather than at the first delivery.
    public static let target = TargetKind("file", usesHTTP: false) { config in
        let path = try config.requiredPath("path")
        let folder = (path as NSString).deletingLastPathComponent
        var isFolder: ObjCBool = false
        if !folder.isEmpty
            && !(FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) && isFolder.boolValue)
        {
            let what = FileManager.default.fileExists(atPath: folder) ? "is not a folder" : "does not exist"
            throw config.error("path", "the folder \(folder) \(what) (a file target does not create it)")
        }
        return FilePublisher(name: config.name, path: path, image: try config.image)
    }
}
