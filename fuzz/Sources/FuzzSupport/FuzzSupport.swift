import Foundation
import Ingestion
import SensorInput
import Store

/// libFuzzer's driver, linked in by `-sanitize=fuzzer`; called from an `@main` because SwiftPM's own `main` would
/// otherwise shadow libFuzzer's.
// swift-format-ignore: AlwaysUseLowerCamelCase
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

/// Runs libFuzzer with the process arguments and `callback` as the test function.
public func runFuzzer(_ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Never {
    var argc = CommandLine.argc
    var argv = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, callback))
}

@_silgen_name("exit") func exit(_ code: Int32) -> Never

/// Feeds `data` to the reader of `format` (nil: detect it) leniently and strictly, checking what it reports.
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int, format: String?, rateHz: Double? = nil) {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    for strict in [false, true] {
        var options = ReadOptions(strict: strict, format: format, rateHz: rateHz)
        options.startNs = strict ? 1_500_000_000_000_000_000 : nil
        options.exportDatabases = SQLiteExports()  // Gadgetbridge databases, as the commands open them
        var samples = 0
        var readings = 0
        var steps = 0
        guard
            let summary = try? AnyInput.read(
                bytes: bytes, name: "fuzz-input", options: options,
                { item in
                    switch item {
                    case .sample(let s):
                        samples += 1
                        precondition(s.x.isFinite && s.y.isFinite && s.z.isFinite, "non-finite sample delivered")
                    case .reading(let r):
                        readings += 1
                        steps += r.steps
                        precondition(r.steps >= 0, "negative step reading")
                        precondition(r.endNs >= r.startNs, "reading ends before it starts")
                    }
                })
        else { continue }
        precondition(
            summary.samples == samples && summary.readings == readings && summary.steps == steps,
            "summary disagrees with the items delivered")
        precondition(summary.skippedLines >= summary.issues.count, "more issues than skipped lines")
    }
}

/// A header and 256 plain rows: what the generic reader reads line by line before it splits the rest into ranges.
let parallelPrefix: [UInt8] = Array(("t_ms,x,y,z\n" + (0..<256).map { "\($0 * 10),0.1,9.8,0.2\n" }.joined()).utf8)

/// Feeds the unit-probe prefix followed by `data` to the generic reader in one range on one thread, and in ranges of
/// 1 to 97 bytes (from the first byte) on 2 and 3 threads: samples (bit for bit), skipped lines and error lines
/// must be the same, leniently and strictly.
public func fuzzParallel(_ data: UnsafePointer<UInt8>?, _ size: Int) {
    let tail = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    let bytes = parallelPrefix + tail
    struct Outcome: Equatable {
        var samples: [[UInt64]] = []
        var skipped = 0
        var issues: [String] = []
        var error: String?
    }
    func read(jobs: Int, chunkBytes: Int, strict: Bool) -> Outcome {
        var options = ReadOptions(strict: strict, format: "generic-csv")
        options.jobs = jobs
        options.chunkBytes = chunkBytes
        var out = Outcome()
        do {
            let summary = try AnyInput.read(bytes: bytes, name: "fuzz-input", options: options) { item in
                if case .sample(let s) = item {
                    out.samples.append([UInt64(bitPattern: s.timeNs), s.x.bitPattern, s.y.bitPattern, s.z.bitPattern])
                }
            }
            out.skipped = summary.skippedLines
            out.issues = summary.issues.map(\.description)
        } catch {
            out.error = "\(error)"
        }
        return out
    }
    /// The same bytes as the one entry of a stored zip, its ranges cut as it is read (`InflatedRanges`); names as
    /// the file's.
    func readZipped(jobs: Int, chunkBytes: Int, strict: Bool) -> Outcome {
        var options = ReadOptions(strict: strict)
        options.jobs = jobs
        options.chunkBytes = chunkBytes
        var out = Outcome()
        let name = "fuzz-input.zip"
        func plain(_ s: String) -> String { s.replacingOccurrences(of: name + ":input.csv", with: "fuzz-input") }
        do {
            let summary = try AnyInput.read(bytes: storedZip("input.csv", bytes), name: name, options: options) {
                item in
                if case .sample(let s) = item {
                    out.samples.append([UInt64(bitPattern: s.timeNs), s.x.bitPattern, s.y.bitPattern, s.z.bitPattern])
                }
            }
            out.skipped = summary.skippedLines
            out.issues = summary.issues.map { plain($0.description) }
        } catch {
            out.error = plain("\(error)")
        }
        return out
    }
    let ranges = 1 + Int(tail.first ?? 0) % 97
    for strict in [false, true] {
        let reference = read(jobs: 1, chunkBytes: 1 << 30, strict: strict)
        for jobs in [2, 3] {
            precondition(
                read(jobs: jobs, chunkBytes: ranges, strict: strict) == reference,
                "ranges of \(ranges) bytes on \(jobs) threads differ from one pass")
        }
        for jobs in [1, 2] {
            precondition(
                readZipped(jobs: jobs, chunkBytes: ranges, strict: strict) == reference,
                "a zip entry in ranges of \(ranges) bytes on \(jobs) threads differs from the file in one pass")
        }
    }
}

/// A zip holding `data` stored (not deflated) as its one entry `name`.
func storedZip(_ name: String, _ data: [UInt8]) -> [UInt8] {
    func u16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
    func u32(_ v: Int) -> [UInt8] { u16(v & 0xFFFF) + u16(v >> 16 & 0xFFFF) }
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in data {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    var fields: [UInt8] = u16(0) + u16(0) + u16(0) + u16(0)  // flags, method (stored), time, date
    fields += u32(Int(~crc)) + u32(data.count) + u32(data.count)
    fields += u16(name.utf8.count)
    var local: [UInt8] = [0x50, 0x4B, 3, 4] + u16(20) + fields
    local += u16(0) + Array(name.utf8) + data
    var central: [UInt8] = [0x50, 0x4B, 1, 2] + u16(20) + u16(20) + fields
    central += u16(0) + u16(0) + u16(0) + u16(0)  // extra, comment, disk, internal attributes
    central += u32(0) + u32(0) + Array(name.utf8)  // external attributes, the local header's offset
    var end: [UInt8] = [0x50, 0x4B, 5, 6] + u16(0) + u16(0) + u16(1) + u16(1)
    end += u32(central.count) + u32(local.count) + u16(0)
    return local + central + end
}

/// Feeds `data` to the payload parser of `format` and to recognition: either a `PayloadError` naming the format it
/// was read as, or items that hold together (steps never negative, readings not ending before they start, exact
/// counts matching the rounded ones, finite samples strictly in time order and running totals in time order per
/// stream).
public func fuzzPayload(_ data: UnsafePointer<UInt8>?, _ size: Int, format: String) {
    let body = data.map { Data(bytes: $0, count: size) } ?? Data()
    for forced in [format, nil] {
        let payload: Payload
        do {
            payload = try PushApps.parse(body: body, format: forced)
        } catch let e as PayloadError {
            precondition(!e.description.isEmpty, "an error without a message")
            precondition(forced == nil || e.format == forced, "an error that does not name the format forced")
            continue
        } catch {
            preconditionFailure("not a PayloadError: \(error)")
        }
        precondition(forced == nil || payload.format == forced, "read as another format than the one forced")
        precondition(!payload.isTest || payload.items.isEmpty, "a test message with items")
        check(payload.items)
    }
}

private func check(_ items: [PayloadItem]) {
    var lastSample: [String: Int64] = [:]
    var lastTotal: [String: Int64] = [:]
    for item in items {
        switch item {
        case .replacing(_, _, let r, let micro):
            precondition(micro >= 0 && r.steps >= 0 && r.endNs >= r.startNs, "a bad replacing reading")
            precondition(r.steps == Int((micro + 500_000) / 1_000_000), "microsteps and steps disagree")
        case .adding(_, let r):
            precondition(r.steps >= 0 && r.endNs >= r.startNs, "a bad adding reading")
        case .sample(let device, let stream, let s):
            precondition(s.x.isFinite && s.y.isFinite && s.z.isFinite, "a non-finite sample")
            let key = device + "\u{1F}" + stream
            precondition(lastSample[key].map { s.timeNs > $0 } ?? true, "samples out of time order")
            lastSample[key] = s.timeNs
        case .runningTotal(let device, let stream, let t, let total):
            precondition(total >= 0, "a negative running total")
            let key = device + "\u{1F}" + stream
            precondition(lastTotal[key].map { t >= $0 } ?? true, "running totals out of time order")
            lastTotal[key] = t
        }
    }
}
