import Foundation

/// A line-oriented parser of one format. `Codable` so that follow mode can keep its state between reads.
protocol LineParser: Codable, Sendable {
    init(path: String, options: ReadOptions) throws
    /// Parses one non-blank line. Returns why the line is malformed (it is then skipped), nil when it was fine.
    /// Throws an `InputError` when the file cannot be read as this format at all.
    mutating func parse(
        _ line: UnsafeBufferPointer<UInt8>, number: Int, options: ReadOptions,
        _ emit: (InputItem) -> Void
    ) throws -> String?
    /// Delivers anything held back, at the end of a read.
    mutating func finish(options: ReadOptions, _ emit: (InputItem) -> Void)
    /// At a read stopped by `ReadOptions.byteLimit` with more lines after it (a slice): delivers what those lines
    /// cannot change and keeps the rest in the parser's state for the next read.
    mutating func pause(options: ReadOptions, _ emit: (InputItem) -> Void)
    /// Fills in the unit and axes of the summary.
    func describe(_ summary: inout ReadSummary)
}

extension LineParser {
    mutating func finish(options: ReadOptions, _ emit: (InputItem) -> Void) {}
    mutating func pause(options: ReadOptions, _ emit: (InputItem) -> Void) { finish(options: options, emit) }
    func describe(_ summary: inout ReadSummary) {}
}

/// A line parser that starts empty, whatever the file and the options: its state begins as its properties' defaults.
protocol FreshLineParser: LineParser {
    init()
}

extension FreshLineParser {
    init(path: String, options: ReadOptions) throws { self.init() }
}

/// One input format: its name, what it yields, how it is recognised and read.
public struct InputFormat: Sendable {
    public let name: String
    public let kind: InputKind
    /// One line for `--help` and the docs.
    public let about: String
    /// Score for how surely `Sniff` is this format (0: not it).
    let sniff: @Sendable (Sniff) -> Int
    let parser: (any LineParser.Type)?  // nil: the fast generic CSV reader (unless `whole` is set)
    /// Set for formats read as a whole (binary files, databases, folders) instead of line by line.
    let whole: (any WholeReader.Type)?

    init(
        name: String, kind: InputKind, about: String, sniff: @escaping @Sendable (Sniff) -> Int,
        parser: (any LineParser.Type)? = nil, whole: (any WholeReader.Type)? = nil
    ) {
        self.name = name
        self.kind = kind
        self.about = about
        self.sniff = sniff
        self.parser = parser
        self.whole = whole
    }
}
