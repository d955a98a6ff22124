import Foundation

/// Field splitting for the line parsers that are not on the hot path.
enum Fields {
    /// Splits `line` at `delimiter` into substrings of a `String` made from the line.
    static func split(_ line: UnsafeBufferPointer<UInt8>, _ delimiter: Character) -> [Substring] {
        String(decoding: line, as: UTF8.self).split(separator: delimiter, omittingEmptySubsequences: false)
    }

    /// The column names of a CSV header line: split at commas, quotes, spaces, tabs and a BOM trimmed, lower case; a
    /// trailing comma's empty name dropped. For the header-named step exports (Samsung Health, Zepp Life).
    static func headerNames(_ line: Substring) -> [String] {
        var names = line.split(separator: ",", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: CharacterSet(charactersIn: " \t\"\u{FEFF}")).lowercased()
        }
        if names.count > 1, names.last?.isEmpty == true { names.removeLast() }
        return names
    }

    static func double(_ s: Substring) -> Double? {
        let t = Array(s.utf8)
        return t.withUnsafeBufferPointer { b in b.baseAddress.flatMap { NumberParsing.parseDouble($0, 0, t.count) } }
    }

    static func int(_ s: Substring) -> Int64? {
        let t = Array(s.trimmingPrefixSpaces().utf8)
        return t.withUnsafeBufferPointer { b in b.baseAddress.flatMap { NumberParsing.parseInt($0, 0, t.count) } }
    }

    /// Converts a time in s, ms, µs or ns (told from its magnitude) to ns; `absolute` when it is after ~1973.
    static func nsFromMagnitude(_ v: Double) -> (ns: Int64, absolute: Bool)? {
        let a = abs(v)
        let scale: Double = a > 1e17 ? 1 : a > 1e14 ? 1e3 : a > 1e11 ? 1e6 : 1e9
        guard let ns = Int64(exactly: (v * scale).rounded()) else { return nil }
        return (ns, a > 1e8 && abs(Double(ns)) > 1e17)
    }
}

extension Fields {
    /// `base + index × periodNs` in integer ns, nil when it leaves the Int64 range.
    static func tick(_ base: Int64, _ index: Int64, periodNs: Double) -> Int64? {
        guard let offset = Int64(exactly: (Double(index) * periodNs).rounded()) else { return nil }
        let (t, overflow) = base.addingReportingOverflow(offset)
        return overflow ? nil : t
    }
}

/// Why a row of a line parser is skipped (the runner adds the file and line).
struct RowProblem: Error, Equatable {
    var message: String
    init(_ message: String) { self.message = message }
}

extension Fields {
    /// A step count cell, `column` naming it in the message: a whole number from 0 to below `StepReading.countLimit`
    /// (`12.0` is 12).
    static func stepCount(_ cell: Substring, column: String) -> Result<Int, RowProblem> {
        let text = cell.trimmingPrefixSpaces()
        if text.isEmpty { return .failure(RowProblem("no \(column)")) }
        // A number past Int64 is read as a double, to be told apart from text.
        guard let value = int(text).map(Double.init) ?? double(text), value.isFinite, value == value.rounded() else {
            return .failure(RowProblem("\(column) '\(text.prefix(20))' is not a whole number"))
        }
        if value < 0 { return .failure(RowProblem("\(column) \(text.prefix(20)) is negative")) }
        if value >= Double(StepReading.countLimit) {
            return .failure(RowProblem("\(column) \(text.prefix(20)) is beyond the limit of a step count (2^40)"))
        }
        return .success(Int(value))
    }
}

/// A line's fields as byte ranges, for the parsers of large exports (a year of minutes): numbers and times are read
/// from the bytes, with no String made of each line. Split at a delimiter outside double quotes (a quoted field may
/// hold one); the quotes and spaces around a field are trimmed when it is read. A trailing delimiter (one more, empty,
/// field than the header) is dropped by `dropTrailingEmpty`.
struct FieldRow {
    let line: UnsafeBufferPointer<UInt8>
    private(set) var ranges: [Range<Int>] = []

    init(_ line: UnsafeBufferPointer<UInt8>, _ delimiter: UInt8) {
        self.line = line
        ranges.reserveCapacity(16)
        var start = 0
        var quoted = false
        for i in 0..<line.count {
            if line[i] == 0x22 {
                quoted.toggle()
            } else if line[i] == delimiter && !quoted {
                ranges.append(start..<i)
                start = i + 1
            }
        }
        ranges.append(start..<line.count)
    }

    var count: Int { ranges.count }

    /// The whole line as text.
    var text: String { String(decoding: line, as: UTF8.self) }

    /// Field `i` as text, spaces and quotes around it trimmed (for names, messages, device ids).
    subscript(i: Int) -> Substring {
        Substring(String(decoding: UnsafeBufferPointer(rebasing: line[ranges[i]]), as: UTF8.self))
            .trimmingPrefixSpaces()
    }

    /// Drops a last field that is empty when the row has one more than `width`.
    mutating func dropTrailingEmpty(width: Int) {
        if ranges.count == width + 1, let last = ranges.last, line[last].allSatisfy({ $0 == 0x20 || $0 == 0x09 }) {
            ranges.removeLast()
        }
    }

    func int(_ i: Int) -> Int64? {
        line.baseAddress.flatMap { NumberParsing.parseInt($0, ranges[i].lowerBound, ranges[i].upperBound) }
            ?? Fields.int(self[i])
    }

    /// `Fields.stepCount` of field `i`: a plain count read from the bytes, anything else as text.
    func stepCount(_ i: Int, column: String) -> Result<Int, RowProblem> {
        if let v = line.baseAddress.flatMap({ NumberParsing.parseInt($0, ranges[i].lowerBound, ranges[i].upperBound) }),
            v >= 0, v < StepReading.countLimit
        {
            return .success(Int(v))
        }
        return Fields.stepCount(self[i], column: column)
    }

    /// `TimeParsing.parseDateTime` of field `i` (followed by a space and field `then`, when given: a date and a time),
    /// each trimmed of quotes and spaces.
    func dateTime(_ i: Int, then: Int? = nil) -> (ns: Int64, hadZone: Bool)? {
        let a = TimeParsing.trimmed(UnsafeBufferPointer(rebasing: line[ranges[i]]))
        guard let then else { return TimeParsing.parseDateTime(bytes: a) }
        // The two fields joined by a space, on the stack: no allocation per row.
        let b = TimeParsing.trimmed(UnsafeBufferPointer(rebasing: line[ranges[then]]))
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: a.count + 1 + b.count) { joined in
            _ = joined.initialize(from: a)
            joined[a.count] = 0x20
            _ = UnsafeMutableBufferPointer(rebasing: joined[(a.count + 1)...]).initialize(from: b)
            return TimeParsing.parseDateTime(bytes: UnsafeBufferPointer(joined))
        }
    }
}
