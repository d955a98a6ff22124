import Foundation
import Messages
import Publishing
import TOMLKit

/// Credentials a `[[publish]]` table points to are missing (an unset environment variable, an unreadable file).
/// `steptweet fetch` stops with a configuration error; the agent stays up, fetches nothing and says why in `status`.
public struct MissingCredentials: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var message: String
    public var description: String { "\(path): \(message)" }
}

/// Builds the publishers of the `[[publish]]` tables: the one place where table kinds become targets.
///
/// Supported here: `kind = "stdout"`, and `kind = "webhook"` with `url`, `url_env` or `url_file` posting JSON
/// `{"text": ...}` with an `Idempotency-Key` header (a stand-in for the publishing module's full webhook target).
/// Every table may set `name` (default: its kind; made unique with its index).
public enum PublisherRegistry {
    public static func make(tables: [TOMLTable], environment: [String: String], baseDirectory: URL) throws -> [any Publisher] {
        var out: [any Publisher] = []
        var used = Set<String>()
        for (index, table) in tables.enumerated() {
            let path = "publish[\(index)]"
            guard let kind = table["kind"]?.string else {
                throw ConfigurationError(path: "\(path).kind", message: "required (e.g. \"webhook\", \"mastodon\", \"stdout\")")
            }
            var name = table["name"]?.string ?? kind
            if used.contains(name) { name += "-\(index)" }
            used.insert(name)
            switch kind {
            case "stdout":
                try allow(table, path: path, keys: ["kind", "name"])
                out.append(NamedStdoutPublisher(name: name))
            case "webhook":
                try allow(table, path: path, keys: ["kind", "name", "url", "url_env", "url_file", "timeout"])
                let url: String
                if let u = table["url"]?.string {
                    url = u
                } else if let e = table["url_env"]?.string {
                    guard let v = environment[e], !v.isEmpty else {
                        throw MissingCredentials(path: "\(path).url_env", message: "environment variable \(e) is not set")
                    }
                    url = v
                } else if let f = table["url_file"]?.string {
                    let full = f.hasPrefix("/") ? f : baseDirectory.appendingPathComponent(f).path
                    guard let v = try? String(contentsOfFile: full, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines), !v.isEmpty else {
                        throw MissingCredentials(path: "\(path).url_file", message: "cannot read a URL from \(full)")
                    }
                    url = v
                } else {
                    throw ConfigurationError(path: path, message: "a webhook needs url_env, url_file or url")
                }
                guard let parsed = URL(string: url), let scheme = parsed.scheme, ["http", "https"].contains(scheme), parsed.host != nil else {
                    throw ConfigurationError(path: "\(path).url", message: "not an http(s) URL")
                }
                out.append(JSONPostPublisher(name: name, url: parsed))
            default:
                throw ConfigurationError(path: "\(path).kind",
                                         message: "unsupported kind '\(kind)' in this build (supported: stdout, webhook)")
            }
        }
        return out
    }

    static func allow(_ table: TOMLTable, path: String, keys: Set<String>) throws {
        for key in table.keys where !keys.contains(key) {
            throw ConfigurationError(path: "\(path).\(key)", message: "unknown key (known: \(keys.sorted().joined(separator: ", ")))")
        }
    }
}

/// Stdout target with a configurable name; flushes each post (the agent's stdout is usually a pipe to a journal).
struct NamedStdoutPublisher: Publisher {
    let name: String
    func publish(_ post: Post, deadline: Date) async -> DeliveryOutcome {
        fflush(nil)  // keep the order of anything already printed
        FileHandle.standardOutput.write(Data((post.text + "\n").utf8))
        return .delivered(remoteID: nil)
    }
}

/// The idempotency key of a window: the same on every retry, different for every window.
public enum IdempotencyKeys {
    /// `steps-20261121T010000Z-20261121T013000Z`.
    public static func key(windowStart: Date, windowEnd: Date) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return "steps-\(f.string(from: windowStart))-\(f.string(from: windowEnd))"
    }
}
