#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reading one data row of a generic CSV: the one-pass path for rows of plain numbers and the general path for
/// everything else (any delimiter, spaces, quotes, exponents, a decimal comma), with the same values.
extension GenericCSVReader {
    /// One comma-separated field of the plainest kind, `-12.345` or `1763686800123456789`, starting at `start`: its
    /// value and the byte after it, or a nil end for anything else (the general path then reads the line). No bounds
    /// checks: the caller guarantees a newline after the field. The value is the one `NumberParsing.parseDouble`
    /// gives (the same exact mantissa and one correctly rounded division). Value and end come back in registers, so
    /// a row's fields do not wait on an index stored and loaded between them, inlined or not.
    @inline(__always)
    static func plainField(_ start: UnsafePointer<UInt8>) -> (value: Double, end: UnsafePointer<UInt8>?) {
        var q = start
        let negative = q.pointee == 0x2D
        if negative { q += 1 }
        var mantissa: UInt64 = 0
        var digits = accumulateDigits(&q, into: &mantissa)
        var fraction = 0
        if q.pointee == 0x2E {
            q += 1
            fraction = accumulateDigits(&q, into: &mantissa)
            digits &+= fraction
        }
        // Up to 15 digits with a fraction (Clinger's exact fast path), or an integer of up to 19 (epoch ns: one
        // correctly rounded conversion); anything longer goes to the general path.
        guard digits > 0, digits <= (fraction > 0 ? 15 : 19) else { return (0, nil) }
        // Below 2^63 (18 digits) the signed conversion is one instruction, and exact below 2^53 as the unsigned one
        // is; the mask tells the compiler so (a comparison let it merge both into the unsigned sequence).
        var value = digits <= 18 ? Double(Int64(bitPattern: mantissa & (1 << 63 - 1))) : Double(mantissa)
        if fraction > 0 { value /= NumberParsing.exactPowerOfTen(fraction) }
        return (negative ? -value : value, q)
    }

    /// Appends the ASCII digits at `q` to `mantissa` (wrapping past 19 of them), leaving `q` on the first other byte;
    /// returns how many there were. A cursor and digits widened before the test: seven instructions a digit, no
    /// overflow checks (an index form took nine).
    @inline(__always)
    static func accumulateDigits(_ q: inout UnsafePointer<UInt8>, into mantissa: inout UInt64) -> Int {
        let start = q
        while true {
            let d = UInt64(q.pointee) &- 0x30
            if d > 9 { break }
            mantissa = mantissa &* 10 &+ d
            q += 1
        }
        return start.distance(to: q)
    }

    /// A whole comma-separated row of plain fields in one pass from `i` (a line start), leaving `i` after its
    /// newline (`\n` or `\r\n`); nil when any field is not plain or the field count differs (the general path then
    /// reads the line and says what is wrong). The line must end with a newline inside the buffer (a sentinel).
    @inline(__always)
    static func plainRow(
        _ p: UnsafePointer<UInt8>, _ i: inout Int, _ fieldCount: Int,
        _ columns: (time: Int, a: Int, b: Int, c: Int)
    ) -> (Double, Double, Double, Double)? {
        var t = 0.0
        var a = 0.0
        var b = 0.0
        var c = 0.0
        var q = p + i
        if fieldCount == 4 && columns == (0, 1, 2, 3) {
            // The most common layout, `t,x,y,z`, without the column bookkeeping.
            let (vt, afterT) = plainField(q)
            guard let afterT, afterT.pointee == 0x2C else { return nil }
            let (va, afterA) = plainField(afterT + 1)
            guard let afterA, afterA.pointee == 0x2C else { return nil }
            let (vb, afterB) = plainField(afterA + 1)
            guard let afterB, afterB.pointee == 0x2C else { return nil }
            let (vc, afterC) = plainField(afterB + 1)
            guard let afterC else { return nil }
            (t, a, b, c) = (vt, va, vb, vc)
            q = afterC
        } else {
            for column in 0..<fieldCount {
                if column > 0 {
                    guard q.pointee == 0x2C else { return nil }
                    q += 1
                }
                guard column == columns.time || column == columns.a || column == columns.b || column == columns.c else {
                    while q.pointee != 0x2C && q.pointee != 0x0A { q += 1 }  // a column not read
                    continue
                }
                let (value, end) = plainField(q)
                guard let end else { return nil }
                q = end
                if column == columns.time {
                    t = value
                } else if column == columns.a {
                    a = value
                } else if column == columns.b {
                    b = value
                } else {
                    c = value
                }
            }
        }
        if q.pointee == 0x0D { q += 1 }
        guard q.pointee == 0x0A else { return nil }
        i = p.distance(to: q) + 1
        return (t, a, b, c)
    }

    static func detectDelimiter(_ line: UnsafeBufferPointer<UInt8>) -> UInt8 {
        var counts: [UInt8: Int] = [0x2C: 0, 0x3B: 0, 0x09: 0]
        for b in line where counts[b] != nil { counts[b]! += 1 }
        let best = counts.max { a, b in a.value < b.value || (a.value == b.value && a.key > b.key) }!
        return best.value > 0 ? best.key : 0
    }

    /// Splits `line` into field boundaries, writing at most `limit` (start, end) pairs; returns the field count.
    @inline(__always)
    static func split(
        _ p: UnsafePointer<UInt8>, _ count: Int, _ delimiter: UInt8,
        _ starts: UnsafeMutablePointer<Int>, _ ends: UnsafeMutablePointer<Int>, _ limit: Int
    ) -> Int {
        var n = 0
        var i = 0
        if delimiter == 0 {
            while i < count {
                while i < count && (p[i] == 0x20 || p[i] == 0x09) { i += 1 }
                if i >= count { break }
                let s = i
                while i < count && p[i] != 0x20 && p[i] != 0x09 { i += 1 }
                if n < limit {
                    starts[n] = s
                    ends[n] = i
                }
                n += 1
            }
            return n
        }
        var s = 0
        while i < count {
            if p[i] == delimiter {
                if n < limit {
                    starts[n] = s
                    ends[n] = i
                }
                n += 1
                s = i + 1
            }
            i += 1
        }
        if n < limit {
            starts[n] = s
            ends[n] = count
        }
        return n + 1
    }

    /// Scratch space for splitting lines into fields, one per thread.
    final class FieldScratch {
        static let limit = 64
        let starts = UnsafeMutablePointer<Int>.allocate(capacity: limit)
        let ends = UnsafeMutablePointer<Int>.allocate(capacity: limit)
        /// Rows at clock times the zone skips, read forward by the gap (for the read's notes).
        var clockChanges = ClockChangeNotes()
        /// Whether the last line parsed has a time the zone skips (`HeldClock`).
        var inGap = false
        deinit {
            starts.deallocate()
            ends.deallocate()
        }
    }

    /// What one data line holds.
    enum LineContent {
        case blank
        case row((Double, Double, Double, Double))
        case bad(InputError)
    }

    /// Reads one data line the general way: any delimiter, spaces, quotes, exponents, a decimal comma.
    static func parseLine(
        _ p: UnsafePointer<UInt8>, _ count: Int, _ l: Layout, _ number: Int, _ scratch: FieldScratch,
        path: String
    ) -> LineContent {
        var allBlank = true
        for k in 0..<count where p[k] != 0x20 && p[k] != 0x09 {
            allBlank = false
            break
        }
        if allBlank { return .blank }
        scratch.inGap = false
        let starts = scratch.starts
        let ends = scratch.ends
        let n = split(p, count, l.delimiter, starts, ends, FieldScratch.limit)
        if n < l.fieldCount && !(n == l.fieldCount - 1 && l.delimiter != 0 && p[count - 1] == l.delimiter) {
            return .bad(InputError(file: path, line: number, message: "expected \(l.fieldCount) fields, found \(n)"))
        }
        // A row one field short that ends in the delimiter: the missing fields are empty (never stale bounds).
        var missing = n
        while missing < min(l.fieldCount, FieldScratch.limit) {
            starts[missing] = 0
            ends[missing] = 0
            missing += 1
        }
        let comma = l.delimiter != 0x2C
        let t =
            NumberParsing.parseDouble(p, starts[l.time], ends[l.time], decimalComma: comma)
            ?? dateTimeMilliseconds(p, starts[l.time], ends[l.time], zone: l.zone, scratch: scratch)
        if let (xi, yi, zi) = l.axes {
            let x = NumberParsing.parseDouble(p, starts[xi], ends[xi], decimalComma: comma)
            let y = NumberParsing.parseDouble(p, starts[yi], ends[yi], decimalComma: comma)
            let z = NumberParsing.parseDouble(p, starts[zi], ends[zi], decimalComma: comma)
            guard let t, let x, let y, let z else {
                let bad =
                    [(t, l.time, "time"), (x, xi, "x"), (y, yi, "y"), (z, zi, "z")].first { $0.0 == nil } ?? (
                        t, l.time, "time"
                    )
                return .bad(badField(p, starts[bad.1], ends[bad.1], bad.2, path, number))
            }
            return .row((t, x, y, z))
        }
        guard let mi = l.magnitude else { return .blank }
        let m = NumberParsing.parseDouble(p, starts[mi], ends[mi], decimalComma: comma)
        guard let t, let m else {
            let (i, name) = t == nil ? (l.time, "time") : (mi, "magnitude")
            return .bad(badField(p, starts[i], ends[i], name, path, number))
        }
        return .row((t, m, 0, 0))
    }

    /// A time field written as a date and time (ISO 8601, or MATLAB's `dd-MMM-yyyy HH:mm:ss.SSS` that a
    /// `writetable` of MATLAB Mobile's timetables gives) in ms since the epoch (exact for whole milliseconds, and
    /// told as epoch ms from its size); without an offset, read in `zone` (`--time-zone`), as UTC when nil: a time the
    /// clocks skip forward by the gap, counted in `scratch`. Parsed from the row's bytes in place, with spaces, tabs
    /// and double quotes trimmed from both ends (as `trimmingPrefixSpaces`).
    @inline(never)
    static func dateTimeMilliseconds(
        _ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int, zone: ZoneOffsets? = nil, scratch: FieldScratch? = nil
    ) -> Double? {
        guard end - start >= 10, end - start <= 64 else { return nil }
        let field = TimeParsing.trimmed(UnsafeBufferPointer(start: p + start, count: end - start))
        var local: Int64
        if let parsed = TimeParsing.parseDateTime(bytes: field) {
            if parsed.hadZone { return Double(parsed.ns) / 1e6 }
            local = parsed.ns
        } else if let ns = TimeParsing.parseMonthNameDateTime(bytes: field) {
            local = ns
        } else {
            return nil
        }
        if let zone {
            let resolved = zone.resolveNs(localNs: local)
            if resolved.skipped {
                scratch?.clockChanges.noteSkipped(localNs: local)
                scratch?.inGap = true
            }
            local = resolved.instant
        }
        return Double(local) / 1e6
    }

    /// The error for a field that is not a number.
    @inline(never)
    static func badField(
        _ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int, _ name: String, _ path: String,
        _ line: Int
    ) -> InputError {
        let text = String(decoding: UnsafeBufferPointer(start: p + start, count: end - start), as: UTF8.self)
        return InputError(file: path, line: line, message: "\(name) is not a number: '\(text.prefix(40))'")
    }
}
