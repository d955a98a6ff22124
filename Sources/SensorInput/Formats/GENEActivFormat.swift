/// GENEActiv CSV (the PC software's export): about 100 header lines of `key,value` (`Device Type,GENEActiv`,
/// `Measurement Frequency,85.7 Hz`, ...), then `YYYY-MM-DD hh:mm:ss:fff,x,y,z,lux,button,°C` in g, with a colon
/// before the milliseconds. The header is passed over up to the first such row; the rows are read as Axivity's (the
/// device's local wall time, read as UTC).
struct GENEActivFormat: LineParser {
    static let format = InputFormat(
        name: "geneactiv", kind: .acceleration,
        about: "GENEActiv CSV: key,value header lines, then YYYY-MM-DD hh:mm:ss:fff,x,y,z,... in g (local time as UTC)",
        sniff: { s in
            let first = s.first.lowercased()
            guard first.hasPrefix("device identity") || first.hasPrefix("device type") else { return 0 }
            return s.head.lowercased().contains("geneactiv") ? 95 : 0
        },
        parser: GENEActivFormat.self)

    var rows: AxivityFormat
    var inData = false

    init(path: String, options: ReadOptions) throws { rows = try AxivityFormat(path: path, options: options) }

    mutating func parse(
        _ line: UnsafeBufferPointer<UInt8>, number: Int, options: ReadOptions,
        _ emit: (InputItem) -> Void
    ) throws -> String? {
        if !inData {
            let f = Fields.split(line, ",")
            guard f.count >= 4, TimeParsing.parseDateTime(f[0]) != nil,
                f[1...3].allSatisfy({ Sniff.isNumber($0) })
            else { return nil }  // a header line
            inData = true
        }
        return try rows.parse(line, number: number, options: options, emit)
    }

    func describe(_ summary: inout ReadSummary) { rows.describe(&summary) }
}
