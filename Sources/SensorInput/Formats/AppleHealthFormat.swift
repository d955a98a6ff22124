import Foundation

/// Apple Health `export.xml`, streamed line by line (exports run to gigabytes; the phone's `export.zip` is streamed
/// through its `apple_health_export/export.xml` entry, `Export`): only
/// `<Record type="HKQuantityTypeIdentifierStepCount" ... startDate endDate value>` elements are read, each a delta
/// over its interval. iPhone and Apple Watch record overlapping intervals; by default, within each run of
/// overlapping records only one source is kept (`OverlapPolicy`), so steps are not counted twice. Records are held
/// (a few dozen bytes each, not the document) and delivered in time order at the end of the read.
struct AppleHealthFormat: FreshLineParser, HoldsSourcedRecords {
    static let format = InputFormat(
        name: "apple-health", kind: .steps,
        about: "Apple Health export.xml: StepCount records (overlapping sources such as phone and watch counted once)",
        sniff: { s in
            // The export's DTD runs to ~80 lines before `<HealthData`: its DOCTYPE line says it first.
            if s.head.contains("<HealthData") || s.head.contains("<!DOCTYPE HealthData") { return 100 }
            return s.first.hasPrefix("<?xml") && s.fileName.lowercased().hasPrefix("export") ? 50 : 0
        },
        parser: AppleHealthFormat.self)

    var held: [SourcedReading] = []
    var latestStart: Int64?
    var deliveredThrough: Int64?

    /// Value of attribute `name` in a start tag, with the five XML entities and numeric references decoded.
    static func attribute(_ name: String, in tag: Substring) -> String? {
        var search = tag[...]
        while let r = search.range(of: name + "=\"") {
            let before = r.lowerBound == tag.startIndex ? " " : tag[tag.index(before: r.lowerBound)]
            guard let end = search[r.upperBound...].firstIndex(of: "\"") else { return nil }
            if before == " " || before == "\t" { return decodeEntities(search[r.upperBound..<end]) }
            search = search[end...]
        }
        return nil
    }

    static func decodeEntities(_ s: Substring) -> String {
        guard s.contains("&") else { return String(s) }
        var out = ""
        var rest = s
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            guard let semi = rest[amp...].firstIndex(of: ";"), rest.distance(from: amp, to: semi) <= 10 else {
                out += rest[amp...]
                return out
            }
            let entity = rest[rest.index(after: amp)..<semi]
            switch entity {
            case "lt": out += "<"
            case "gt": out += ">"
            case "amp": out += "&"
            case "quot": out += "\""
            case "apos": out += "'"
            default:
                let code =
                    entity.hasPrefix("#x")
                    ? UInt32(entity.dropFirst(2), radix: 16)
                    : entity.hasPrefix("#") ? UInt32(entity.dropFirst()) : nil
                if let code, let scalar = Unicode.Scalar(code) {
                    out.unicodeScalars.append(scalar)
                } else {
                    out += "&\(entity);"
                }
            }
            rest = rest[rest.index(after: semi)...]
        }
        return out + rest
    }

    mutating func parse(
        _ line: UnsafeBufferPointer<UInt8>, number: Int, options: ReadOptions,
        _ emit: (InputItem) -> Void
    ) throws -> String? {
        // Cheap byte test first: most lines of a real export are other record types.
        guard line.count > 40, Self.contains(line, "HKQuantityTypeIdentifierStepCount") else { return nil }
        let text = Substring(String(decoding: line, as: UTF8.self))
        var problem: String?
        var rest = text
        while let open = rest.range(of: "<Record ") {
            let close = rest[open.upperBound...].firstIndex(of: ">") ?? rest.endIndex
            let tag = rest[open.upperBound..<close]
            rest = close == rest.endIndex ? rest[close...] : rest[rest.index(after: close)...]
            guard Self.attribute("type", in: tag) == "HKQuantityTypeIdentifierStepCount" else { continue }
            guard
                let s = Self.attribute("startDate", in: tag).flatMap({ TimeParsing.parseDateTime(Substring($0))?.ns }),
                let e = Self.attribute("endDate", in: tag).flatMap({ TimeParsing.parseDateTime(Substring($0))?.ns })
            else {
                problem = "StepCount record without a valid startDate/endDate"
                continue
            }
            guard let valueText = Self.attribute("value", in: tag), let value = Double(valueText), value >= 0,
                value < 10_000_000
            else {
                problem = "StepCount record without a valid value"
                continue
            }
            guard e >= s else {
                problem = "StepCount record ends before it starts"
                continue
            }
            let source = Self.attribute("sourceName", in: tag) ?? ""
            try hold(
                SourcedReading(source: source, reading: StepReading(startNs: s, endNs: e, steps: Int(value.rounded()))),
                options: options, emit)
        }
        return problem
    }

    static func contains(_ line: UnsafeBufferPointer<UInt8>, _ needle: StaticString) -> Bool {
        return needle.withUTF8Buffer { nb in
            let n = nb.count
            guard n > 0, line.count >= n else { return false }
            var i = 0
            while i + n <= line.count {
                if line[i] == nb[0] {
                    var k = 1
                    while k < n && line[i + k] == nb[k] { k += 1 }
                    if k == n { return true }
                }
                i += 1
            }
            return false
        }
    }

    /// A slice ends: runs that records in the next slices can still join stay held (`HoldsSourcedRecords`): a phone's and a
    /// watch's record either side of the boundary count once.
    mutating func pause(options: ReadOptions, _ emit: (InputItem) -> Void) {
        deliverSettled(policy: options.overlap, emit)
    }

    mutating func finish(options: ReadOptions, _ emit: (InputItem) -> Void) {
        deliverHeld(policy: options.overlap, emit)
    }
}
