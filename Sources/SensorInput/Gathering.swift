/// How an export whose records are out of time order (grouped by source, shuffled: `RecordsOutOfOrder`) is counted in
/// follow mode, a bounded step per read, so that no read of it outlasts a slice: from the file's start, each slice
/// hands out its records as they are (`InputItem.record`; the caller keeps them, the agent in its state database),
/// none delivered as readings; once the file is read to its end (`complete`), the caller settles what it kept in
/// start order, a part at a time (`SourcedReading.settledPart`), each part cut where a run of overlapping records ends,
/// so that the readings are what one read of the whole file gives. While `complete`, a read of the file reads nothing
/// (`SourceReader.readNew` returns the cursor as it was); a file replaced meanwhile starts over without it.
extension SourceCursor {
    public struct Gathering: Codable, Sendable, Equatable {
        /// Records handed out so far: the next one's number.
        public internal(set) var records = 0
        /// The file was read to its end: what was gathered is being settled.
        public internal(set) var complete = false
        /// Parts settled so far (the first one starts the file over for the caller).
        public var settledParts = 0

        public init() {}

        /// Every field is read if present, its default otherwise, so that a field added later still decodes the
        /// cursors that states saved before it (the synthesized decoder would require it). Add new fields the same way.
        public init(from decoder: any Decoder) throws {
            let fields = try decoder.container(keyedBy: CodingKeys.self)
            records = try fields.decodeIfPresent(Int.self, forKey: .records) ?? 0
            complete = try fields.decodeIfPresent(Bool.self, forKey: .complete) ?? false
            settledParts = try fields.decodeIfPresent(Int.self, forKey: .settledParts) ?? 0
        }
    }

    /// The cursor once the gathered records are all settled: reading goes on at the end of the file as usual.
    public mutating func settledAll() { gathering = nil }
}

extension SourcedReading {
    /// The readings of the first records gathered in start order (`records`, sorted by start), up to the last place
    /// where a run of overlapping records ends, combined by `policy` as one read of the whole file combines them, and
    /// the start of the first record left for the next part (nil when `all`: these are the last records). Nil when no
    /// run ends in `records` (ask for more).
    public static func settledPart(_ records: [SourcedReading], all: Bool, policy: OverlapPolicy) -> (
        readings: [StepReading], before: Int64?
    )? {
        if all { return (combine(records, policy: policy), nil) }
        var cut: Int?
        var runEnd = Int64.min
        for (i, r) in records.enumerated() {
            // Every record before `i` ends by its start, and none starts with it: no run joins them.
            if i > 0, r.reading.startNs >= runEnd, r.reading.startNs > records[i - 1].reading.startNs { cut = i }
            runEnd = max(runEnd, r.reading.endNs)
        }
        guard let cut else { return nil }
        return (combine(Array(records[..<cut]), policy: policy), records[cut].reading.startNs)
    }
}
