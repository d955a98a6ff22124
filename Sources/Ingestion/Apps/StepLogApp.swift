import Foundation
import SensorInput
import WallTime

/// Our own step log (`steplog`, see the README) pushed as a body of JSON lines, for scripts and other tools; each
/// line is read by the file format's own line reader (`StepLogFormat.Line`). The device is `src` (else `steplog`),
/// the stream `boot_id`. A line with `steps` is a delta spanning from the stream's previous line in the body (the
/// first is a point in time): with a `seq` it replaces any earlier line of its device with the same `ts`, whatever
/// its stream and `seq` (`seqKey`: a resent body is not added twice, nor a history a reinstalled writer sends again
/// with a new `boot_id` and new `seq`; a writer reinstalled on the same boot, whose `seq` starts again, loses
/// nothing, as its new lines have new times), without one it adds (the receiver knows a resend by its `ts` and
/// `steps`, not its start). A line with only `total` is a running total of its stream, differenced by the caller
/// across bodies (resets and baselines as in the file format). A line that cannot be read is left out and refused,
/// the others kept.
struct StepLogApp: PushApp {
    static let name = "steplog"
    var name: String { Self.name }

    let about =
        "steptweet step log, JSON lines: {\"ts\", \"steps\" and/or \"total\", \"src\", \"boot_id\", \"seq\"}"

    func recognises(_ body: PayloadBody) -> Bool {
        var first: ArraySlice<UInt8>?
        Self.forEachLine(body.bytes) { line, _ in
            first = line
            return false
        }
        guard let first else { return false }
        return first.withUnsafeBufferPointer { StepLogFormat.flatObject($0)?["ts"] != nil }
    }

    func parse(_ body: PayloadBody) throws -> Payload { try Self.parse(body) }

    /// JSON lines, not one document.
    let isOneJSONDocument = false

    /// Its senders are scripts that read the 422: the plain JSON answers (`AppConvention.plain`).
    let convention = AppConvention.plain

    static func parse(_ body: PayloadBody) throws -> Payload {
        var payload = Payload(format: name)
        var totals: [PayloadItem] = []
        var lastNs: [String: Int64] = [:]
        forEachLine(body.bytes) { bytes, number in
            let decoded = bytes.withUnsafeBufferPointer { StepLogFormat.Line.decode($0) }
            guard case .success(let line) = decoded else {
                // Left out; the next line of its stream spans from the line before it.
                if case .failure(let m) = decoded {
                    payload.refuse(PayloadError(path: "line \(number)", message: m.reason))
                }
                return true
            }
            let device = line.source ?? name
            let stream = line.bootID ?? ""
            let key = device + "\u{1F}" + stream
            if let steps = line.steps {
                let reading = StepReading(
                    start: Instant(nanosecondsSinceEpoch: min(lastNs[key] ?? line.ts, line.ts)),
                    end: Instant(nanosecondsSinceEpoch: line.ts), steps: Int(steps))
                if line.seq != nil {
                    payload.items.append(
                        .replacing(
                            device: device, key: Self.seqKey(ts: line.ts), reading: reading,
                            microsteps: steps * 1_000_000
                        ))
                } else {
                    payload.items.append(.adding(device: device, reading: reading))
                }
            } else if let total = line.total {
                totals.append(.runningTotal(device: device, stream: stream, timeNs: line.ts, total: Int(total)))
            }
            lastNs[key] = max(lastNs[key] ?? line.ts, line.ts)
            return true
        }
        payload.items += totals.enumerated().sorted { a, b in
            guard case .runningTotal(_, _, let ta, _) = a.element, case .runningTotal(_, _, let tb, _) = b.element
            else { return false }
            return (ta, a.offset) < (tb, b.offset)
        }.map(\.element)
        return payload
    }

    /// The key of a line with a `seq`: its device's line at `ts` (ns), so that a corrected line replaces it and a
    /// line sent again under another stream or `seq` is the same line. Lines stored before migration
    /// `v25-step-log-seq-device-ts` were keyed `STREAM seq N at TS`.
    static func seqKey(ts: Int64) -> String { "seq at \(ts)" }

    /// Calls `body` with each non-blank line (CR and a BOM removed) and its number, until it returns false.
    static func forEachLine(_ bytes: [UInt8], _ body: (ArraySlice<UInt8>, Int) -> Bool) {
        var start = ByteOrderMark.length(bytes)
        var number = 1
        while start < bytes.count {
            let end = bytes[start...].firstIndex(of: 0x0A) ?? bytes.count
            var line = bytes[start..<end]
            if line.last == 0x0D { line = line.dropLast() }
            if line.contains(where: { $0 != 0x20 && $0 != 0x09 }), !body(line, number) { return }
            start = end + 1
            number += 1
        }
    }
}
