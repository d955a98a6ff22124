import SensorInput

/// libFuzzer's driver, linked in by `-sanitize=fuzzer`; called from an `@main` because SwiftPM's own `main` would
/// otherwise shadow libFuzzer's.
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
        var samples = 0, readings = 0, steps = 0
        guard let summary = try? AnyInput.read(bytes: bytes, name: "fuzz-input", options: options, { item in
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
        }) else { continue }
        precondition(summary.samples == samples && summary.readings == readings && summary.steps == steps,
                     "summary disagrees with the items delivered")
        precondition(summary.skippedLines >= summary.issues.count, "more issues than skipped lines")
    }
}
