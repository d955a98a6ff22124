import StepDetection

/// What a CSV says about itself besides its header: Excel's `sep=` line naming the delimiter, a units row under the
/// header (Shimmer's Consensys: `ms`, `m/(s^2)`), and the check of a stated acceleration unit against the data.
enum SeparatorLine {
    /// The delimiters a `sep=` line may name: comma, semicolon, tab, bar.
    static let delimiters: Set<UInt8> = [0x2C, 0x3B, 0x09, 0x7C]

    /// The delimiter `line` declares when it is Excel's `sep=X` (quoted or not, any case, a BOM before it, X repeated
    /// after it), nil when it is anything else.
    static func delimiter(_ line: UnsafeBufferPointer<UInt8>) -> UInt8? {
        var bytes = Array(line)
        bytes.removeFirst(ByteOrderMark.length(bytes))
        while let last = bytes.last, last == 0x0D || last == 0x20 || last == 0x22 { bytes.removeLast() }
        if bytes.first == 0x22 { bytes.removeFirst() }
        guard bytes.count >= 5, bytes[..<4].map({ $0 | 0x20 }) == Array("sep=".utf8) else { return nil }
        let delimiter = bytes[4]
        guard delimiters.contains(delimiter), bytes[4...].allSatisfy({ $0 == delimiter }) else { return nil }
        return delimiter
    }

    static func delimiter(_ line: String) -> UInt8? {
        Array(line.utf8).withUnsafeBufferPointer { delimiter($0) }
    }
}

extension GenericCSVReader {
    /// The units row under a header (Shimmer's Consensys writes one): every field text, not a number, and the time
    /// or acceleration column's field a unit. Returns the layout with the units it states, nil when `fields` is not
    /// such a row (then it is read as data).
    static func applyingUnitsRow(_ fields: [String], to layout: Layout) -> Layout? {
        guard
            fields.allSatisfy({ $0.isEmpty || NumberParsing.parseDouble(Array($0.utf8), 0, $0.utf8.count) == nil })
        else { return nil }
        let field = { (i: Int) in i < fields.count ? unitText(fields[i]) : "" }
        let time = timeUnits[field(layout.time)]
        let accelerationColumn = layout.axes?.0 ?? layout.magnitude ?? -1
        let acceleration = accelerationUnit(field(accelerationColumn))
        guard time != nil || acceleration != nil else { return nil }
        var out = layout
        if let time { out.timeUnitNs = time }
        if let acceleration {
            out.accelerationUnit = acceleration
            out.unitStatedInText = true
        }
        return out
    }

    /// Time units as units rows write them.
    static let timeUnits: [String: Double] = [
        "ns": 1, "us": 1e3, "µs": 1e3, "ms": 1e6, "msecs": 1e6, "msec": 1e6, "milliseconds": 1e6, "s": 1e9, "sec": 1e9,
        "secs": 1e9, "seconds": 1e9,
    ]

    /// `m/(s^2)` → `m/s^2`: lower case, no quotes, spaces or brackets.
    static func unitText(_ raw: String) -> String {
        raw.lowercased().filter { !" \"'()[]".contains($0) }
    }

    /// The acceleration unit a unit text names (`g`, `mg`, `m/s^2`, `m/s²`, `ms^-2`), nil for anything else.
    static func accelerationUnit(_ text: String) -> AccelerationUnit? {
        if text == "g" { return .g }
        if text == "mg" { return .milliG }
        return text.hasPrefix("m/s") || text.hasPrefix("ms^-2") || text.hasPrefix("ms-2")
            ? .metersPerSecondSquared : nil
    }
}

extension GenericCSVReader {
    /// Holds the first rows of a file until the time and acceleration units can be told from them.
    struct UnitProbe {
        var rows: [Row] = []
        var scale: Scale?
        /// The unit the file stated when the data contradicted it, and the data's median |a|.
        var contradicted: (stated: AccelerationUnit, median: Double)?
        var isFull: Bool { rows.count >= 256 }

        mutating func add(_ row: Row) { rows.append(row) }

        /// The scale for `layout`'s stated units, its stated acceleration unit checked against the data when the file
        /// wrote it as text.
        mutating func decide(layout: Layout) -> Scale {
            decide(timeUnitNs: layout.timeUnitNs, unit: layout.accelerationUnit, check: layout.unitStatedInText)
        }

        mutating func decide(timeUnitNs: Double?, unit stated: AccelerationUnit? = nil, check: Bool = false) -> Scale {
            let mags = rows.map { ($0.1 * $0.1 + $0.2 * $0.2 + $0.3 * $0.3).squareRoot() }.filter(\.isFinite).sorted()
            let median = mags.isEmpty ? standardGravity : mags[mags.count / 2]
            // Told from the data only when the header does not say: with gravity |a| ≈ 1 g or ≈ 9.8 m/s².
            var unit = stated ?? AccelerationUnit.told(byMedianMagnitude: median)
            if check, let stated, let shown = Self.contradiction(stated: stated, magnitudes: mags) {
                unit = shown
                contradicted = (stated, median)
            }
            let first = rows.first?.0 ?? 0
            var unitNs = timeUnitNs
            if unitNs == nil {
                // Epoch magnitudes first, then the typical step between samples for relative times.
                var deltas = zip(rows.dropFirst(), rows).map { $0.0 - $1.0 }.filter { $0 > 0 }
                deltas.sort()
                let medianStep = deltas.isEmpty ? nil : deltas[deltas.count / 2]
                let a = abs(first)
                if a > 1e17 {
                    unitNs = 1
                } else if a > 1e14 {
                    unitNs = 1e3
                } else if a > 1e11 {
                    unitNs = 1e6
                } else if a > 1e8 {
                    unitNs = 1e9
                } else {
                    let d = medianStep ?? 0.01
                    unitNs = d >= 1e4 ? 1 : d >= 10 ? 1e3 : d >= 0.2 ? 1e6 : 1e9
                }
                // Android's SensorEvent time is ns since boot: 1e11-1e16 looks like epoch ms or µs by size, but then
                // samples 5 ms apart would be seconds apart. A unit whose step is not 0.1 ms-2 s gives way to the
                // first that puts it at 1 ms-1 s.
                if let d = medianStep, let u = unitNs, !(1e5...2e9).contains(d * u),
                    let fits = [1.0, 1e3, 1e6, 1e9].first(where: { (1e6...1e9).contains(d * $0) })
                {
                    unitNs = fits
                }
            }
            let absolute = abs(first) * (unitNs ?? 1e9) > 1e17  // after ~1973: a wall-clock time
            let decided = Scale(timeNs: unitNs ?? 1e9, absolute: absolute, unit: unit)
            scale = decided
            return decided
        }
    }
}

extension GenericCSVReader.UnitProbe {
    /// `g` (`mg`) when the file states m/s² but the data is in g (mg), nil otherwise. With gravity in it, |a| rests
    /// at 1 in g: a median within 20 % of 1 with few small values (a tenth of them above 0.5, which acceleration
    /// without gravity in m/s² never has) is g; the same a thousand times over is mg, which as m/s² is over 50 g. The
    /// other way round a stated g stands: |a| ≈ 9 g is not a resting device, but a stated unit is trusted unless the
    /// data cannot be in it and counts 0 steps as it is (issue 44).
    static func contradiction(stated: AccelerationUnit, magnitudes sorted: [Double]) -> AccelerationUnit? {
        guard stated == .metersPerSecondSquared, sorted.count >= 16 else { return nil }
        let median = sorted[sorted.count / 2]
        let low = sorted[sorted.count / 10]
        if abs(median - 1000) <= 200 && low >= 500 { return .milliG }
        return abs(median - 1) <= 0.2 && low >= 0.5 ? .g : nil
    }

    /// The words for a stated unit the data contradicts (the reader's caller names the file).
    static func contradictionNote(stated: AccelerationUnit, used: AccelerationUnit, median: Double) -> String {
        "the file says its acceleration is in \(stated.rawValue), but |a| rests at "
            + "\(String(format: "%.2f", median)), gravity in \(used.rawValue): read as \(used.rawValue)"
    }
}
