import Foundation

/// Why a fetch runs. The order of the cases is the order in which coalesced triggers are named.
public enum FetchTrigger: String, Sendable, Hashable, CaseIterable, Codable {
    /// SIGUSR1, iOS's "Simulate Background Fetch".
    case signal
    /// A walk ended (`schedule.on_walk_end`).
    case walk
    /// A silent push (`[push]`).
    case push
    /// The interval or cron schedule.
    case schedule
    /// `steptweet fetch`.
    case manual
    /// `steptweet demo`.
    case demo
}

/// The triggers one fetch answers: one, or several that were waiting together (a signal and a push), named in a fixed
/// order. Written as their names joined by commas (`signal,push`) in reports, logs and history.
public struct FetchTriggers: Sendable, Hashable, Codable, CustomStringConvertible, ExpressibleByArrayLiteral {
    public let triggers: [FetchTrigger]

    public init(_ triggers: some Sequence<FetchTrigger>) {
        let set = Set(triggers)
        self.triggers = FetchTrigger.allCases.filter(set.contains)
    }

    public init(arrayLiteral triggers: FetchTrigger...) { self.init(triggers) }

    public var description: String { triggers.map(\.rawValue).joined(separator: ",") }

    /// The triggers named as `description` writes them (`signal,push`); nil when a name is unknown.
    public init?(names: String) {
        var triggers: [FetchTrigger] = []
        for name in names.split(separator: ",") {
            guard let trigger = FetchTrigger(rawValue: String(name)) else { return nil }
            triggers.append(trigger)
        }
        self.init(triggers)
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let triggers = FetchTriggers(names: text) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "unknown fetch trigger in \(text)"))
        }
        self = triggers
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// The result of a fetch, as iOS's `UIBackgroundFetchResult`: exactly one per fetch.
public enum FetchResult: String, Codable, Sendable {
    case newData = "NewData"
    case noData = "NoData"
    case failed = "Failed"
}
