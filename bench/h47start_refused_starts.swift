// The refused starts the gate look-back could recover, for bench/h47start_refused_starts.py (issue #47, h47start).
// Built with `swiftc -O` together with Sources/StepDetection/*.swift, in one module, so it can read each step's own
// energies from the detector's state without a trace flag in the detector:
//
//   refused_starts PARAMETERS.json FILE...      one JSON line per file on standard output
//
// Each file is counted twice with PARAMETERS: the gate look-back off, and on with any share (the reach its
// `startLookBackSeconds`, `startLookBackAlongShare` 0). The steps the second counts and the first does not are the
// refused steps of a run's start within the reach; each with its own energies along gravity and in all (the step
// ± 0.3 s, as the look-back reads them). Times in seconds of the file's time column. Samples are read as `count`
// reads a `t_ms,x,y,z` CSV and pushed one by one.
import Foundation

struct Recovered: Encodable {
    var file: String
    /// time, along, total
    var steps: [[Double]] = []
    var counted = 0
    /// The share along gravity over the own seconds of every step counted without the look-back too (walking's own).
    var countedShares: [Double] = []
    /// Every step counted with the look-back, and every scored window (start, end, probability), to measure the run
    /// each start precedes.
    var stepsOn: [Double] = []
    var windows: [[Double]] = []
}

/// The steps counted with `parameters`, each with its own energies as the detector remembered them when it counted it.
func counted(_ times: [Int64], _ values: [[Double]], _ parameters: DetectorParameters, windows: inout [[Double]])
    -> [Int64: (Double, Double)]
{
    var detector = StepDetector(parameters: parameters)
    var steps: [Int64: (Double, Double)] = [:]
    var fresh: [Int64] = []
    var scored: [[Double]] = []
    let emit: (DetectorEvent) -> Void = {
        switch $0 {
        case .step(let at): fresh.append(at.nanosecondsSinceEpoch)
        case .decision(let d, _):
            scored.append([
                Double(d.start.nanosecondsSinceEpoch) * 1e-9, Double(d.end.nanosecondsSinceEpoch) * 1e-9, d.probability,
            ])
        default: break
        }
    }
    for (t, v) in zip(times, values) {
        pushSample(&detector, t, v, emit)
        for s in fresh {
            let e = detector.gate.stepEnergies.energy(at: s)
            steps[s] = (e?.along ?? 0, e?.total ?? 0)
        }
        fresh.removeAll()
    }
    detector.finish(emit)
    for s in fresh { steps[s] = (0, 0) }
    windows = scored
    return steps
}

@main struct RefusedStarts {
    static func main() throws {
        let args = CommandLine.arguments
        var on = try JSONDecoder().decode(
            DetectorParameters.self, from: Data(contentsOf: URL(fileURLWithPath: args[1])))
        on.startLookBackAlongShare = 0
        var off = on
        off.startLookBackSeconds = 0
        let encoder = JSONEncoder()
        for path in args.dropFirst(2) {
            let (times, values) = readSamples(path)
            var windows: [[Double]] = []
            let withLookBack = counted(times, values, on, windows: &windows)
            let without = counted(times, values, off, windows: &windows)
            var out = Recovered(file: path, counted: without.count)
            out.windows = windows
            out.stepsOn = withLookBack.keys.sorted().map { Double($0) * 1e-9 }
            out.countedShares = withLookBack.compactMap {
                without[$0.key] != nil && $0.value.1 > 0 ? $0.value.0 / $0.value.1 : nil
            }
            for (t, e) in withLookBack.sorted(by: { $0.key < $1.key }) where without[t] == nil {
                out.steps.append([Double(t) * 1e-9, e.0, e.1])
            }
            print(String(decoding: try encoder.encode(out), as: UTF8.self))
        }
    }
}
