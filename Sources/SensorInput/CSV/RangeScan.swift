import Foundation
import StepDetection

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One byte range's lines parsed into samples written in place (`CSVChunkParser.scan`): the loop, and what it keeps
/// beside the samples (bad lines, the line of each sample once a line gave none, the rows in a spring gap, whether
/// the times went on in order), written into the range's `ParsedChunk` at the end. The loop is inlined into its
/// caller's closure: the generic reader's hot path (bench/parse_speed.sh, bench/datetime_speed.sh).
struct RangeScan {
    let path: String
    let layout: GenericCSVReader.Layout
    let columns: (time: Int, a: Int, b: Int, c: Int)?
    let convert: SampleConversion
    let completeLinesOnly: Bool
    let strict: Bool
    let maxIssues: Int
    /// Lines the range is expected to hold, for the line list's first allocation.
    let expected: Int
    /// Samples the block holds at the most.
    let capacity: Int
    let scratch = GenericCSVReader.FieldScratch()

    /// The buffer index of the next line, the lines taken and the samples written.
    var i: Int
    var line: Int32 = 0
    var n = 0
    var lastNs = Int64.min
    var inOrder = true
    var issues: [InputError] = []
    var unreported = 0
    var stops = false
    var linesListed = false
    var sampleLines: [Int32] = []
    var gapSamples: [Int32] = []

    init(
        _ parser: CSVChunkParser, from start: Int, startsBefore limit: Int, capacity: Int
    ) {
        path = parser.path
        layout = parser.layout
        columns = parser.layout.plainColumns
        convert = SampleConversion(scale: parser.scale, startNs: parser.options.start?.nanosecondsSinceEpoch)
        completeLinesOnly = parser.completeLinesOnly
        strict = parser.options.strict
        maxIssues = max(1, parser.options.maxReportedIssues)
        expected = max(16, (limit - start) / 32)
        self.capacity = capacity
        i = start
    }

    /// Parses the lines starting before `limit` of a buffer whose byte at `length` is a newline into `out`; returns
    /// how many samples it wrote.
    @inline(__always)
    mutating func run(
        _ p: UnsafeMutablePointer<UInt8>, length: Int, limit: Int, into out: UnsafeMutablePointer<AccelerationSample>
    ) -> Int {
        lines: while i < limit && i < length {
            line += 1
            let lineStart = i
            let row: (Double, Double, Double, Double)
            var rowInGap = false
            if let columns, let plain = GenericCSVReader.plainRow(p, &i, layout.fieldCount, columns) {
                if i > length && completeLinesOnly {
                    line -= 1
                    i = lineStart
                    stops = true
                    break
                }
                row = plain
            } else {
                guard let content = generalLine(p, from: lineStart, length: length) else {
                    line -= 1
                    stops = true
                    break
                }
                switch content {
                case .blank:
                    listLines()
                    continue
                case .row(let r):
                    row = r
                    rowInGap = scratch.inGap
                case .bad(let e):
                    if issue(e.message) { continue }
                    break lines
                }
            }
            if let sample = convert.sample(row) {
                if sample.time.nanosecondsSinceEpoch < lastNs { inOrder = false }
                lastNs = sample.time.nanosecondsSinceEpoch
                precondition(n < capacity, "a range holds more samples than its lines can")
                (out + n).initialize(to: sample)
                if rowInGap { gapSamples.append(Int32(n)) }
                n += 1
                if linesListed { sampleLines.append(line) }
            } else if !issue(convert.problem(row)) {
                break
            }
        }
        return n
    }

    /// The line at `lineStart` read the general way, `i` moved after it; nil for a last line without its newline
    /// when only complete lines are read.
    @inline(__always)
    mutating func generalLine(_ p: UnsafeMutablePointer<UInt8>, from lineStart: Int, length: Int)
        -> GenericCSVReader.LineContent?
    {
        let nl = p.distance(to: memchr(p + i, 0x0A, length + 1 - i)!.assumingMemoryBound(to: UInt8.self))
        if nl == length && completeLinesOnly { return nil }
        var lineEnd = nl
        if lineEnd > i && p[lineEnd - 1] == 0x0D { lineEnd -= 1 }
        i = nl + 1
        return GenericCSVReader.parseLine(p + lineStart, lineEnd - lineStart, layout, Int(line), scratch, path: path)
    }

    /// Starts listing each sample's line: this line gives none.
    mutating func listLines() {
        guard !linesListed else { return }
        linesListed = true
        sampleLines.reserveCapacity(expected)
        for j in 0..<n { sampleLines.append(Int32(j + 1)) }
    }

    /// Records a bad line; false when reading stops there (`strict`).
    mutating func issue(_ message: String) -> Bool {
        listLines()
        if issues.count < maxIssues {
            issues.append(InputError(file: path, line: Int(line), message: message))
        } else {
            unreported += 1
        }
        stops = strict
        return !stops
    }

    /// What the scan found, into `chunk` (its samples are in the block already).
    func write(into chunk: inout ParsedChunk) {
        chunk.clockChanges = scratch.clockChanges
        chunk.gapSamples = gapSamples
        chunk.sampleLines = sampleLines
        chunk.inOrder = inOrder
        chunk.issues = issues
        chunk.unreportedIssues = unreported
        chunk.stops = stops
        chunk.lineCount = Int(line)
        chunk.end = Int64(i)
    }
}
