/// A small JSON document parser that keeps numbers as their text, so integers above 2^53 (Google Fit's
/// nanosecond times) stay exact. Nesting is limited (no stack overflow on hostile input).
package enum JSONTree: Equatable {
    case object([(String, JSONTree)])
    case array([JSONTree])
    case string(String)
    case number(String)
    case bool(Bool)
    case null

    package static func == (a: JSONTree, b: JSONTree) -> Bool {
        switch (a, b) {
        case (.object(let x), .object(let y)): return x.map(\.0) == y.map(\.0) && x.map(\.1) == y.map(\.1)
        case (.array(let x), .array(let y)): return x == y
        case (.string(let x), .string(let y)), (.number(let x), .number(let y)): return x == y
        case (.bool(let x), .bool(let y)): return x == y
        case (.null, .null): return true
        default: return false
        }
    }

    package subscript(key: String) -> JSONTree? {
        if case .object(let members) = self { return members.first { $0.0 == key }?.1 }
        return nil
    }
    package subscript(index: Int) -> JSONTree? {
        if case .array(let items) = self, index >= 0, index < items.count { return items[index] }
        return nil
    }
    package var items: [JSONTree] {
        if case .array(let a) = self { return a }
        return []
    }
    package var string: String? {
        if case .string(let s) = self { return s }
        return nil
    }
    /// The text of a string, or of a number as it was written.
    var text: String? {
        switch self {
        case .string(let s), .number(let s): return s
        default: return nil
        }
    }
    /// An integer written without fraction or exponent, exactly.
    var int64: Int64? {
        switch self {
        case .number(let s), .string(let s): return Int64(s)
        default: return nil
        }
    }
    var double: Double? {
        if case .number(let s) = self { return Double(s) }
        return nil
    }

    package struct ParseError: Error {
        package var offset: Int
        package var reason: String
        /// The bytes ended before the document did (a file cut short), rather than holding something wrong.
        var cutShort = false
    }

    static let maxDepth = 64

    /// Parses a whole document; throws where it stops making sense.
    static func parse(_ bytes: [UInt8]) throws -> JSONTree { try parse(bytes, deferring: []).tree }

    /// Parses a document that may end early (a file cut short) into what was complete before the end, and the
    /// `cutShort` error saying where it ends (nil when it is whole). The arrays and objects open at the end are closed
    /// there: an array keeps its complete elements only (the element cut is dropped, whatever it is), an object its
    /// complete members and a member array or object as far as it goes; a number running to the end counts as cut
    /// (`12` of `123`). Anything wrong other than the end throws as `parse` does, and so does a bare value cut short.
    static func parseCutShort(_ bytes: [UInt8]) throws -> (tree: JSONTree, cut: ParseError?) {
        var p = Parser(b: bytes)
        p.salvaging = true
        let v = try p.document()
        return (v, p.cut)
    }

    /// An array the parse checked but did not build: where it lies in the bytes, and how deep.
    package struct DeferredArray {
        var range: Range<Int>
        var depth: Int
        package var count: Int
    }

    /// Parses a whole document, leaving unbuilt the arrays at the `deferring` paths (keys, with `*` for any key or
    /// index): each is checked, stands as an empty array in the tree, and is returned by its path
    /// (`data.metrics[0].data`) for `forEachElement`, which builds one element at a time. A month of Health Auto
    /// Export points is 43,200 objects: built whole, they would outweigh the body several times.
    package static func parse(_ bytes: [UInt8], deferring patterns: [[String]]) throws -> (
        tree: JSONTree, deferred: [String: DeferredArray]
    ) {
        var p = Parser(b: bytes, patterns: patterns)
        let v = try p.document()
        return (v, p.deferred)
    }

    /// Calls `body` with each element of a deferred array of `bytes`, in order, building one at a time.
    package static func forEachElement(
        in bytes: [UInt8], _ array: DeferredArray, _ body: (Int, JSONTree) throws -> Void
    ) throws {
        var p = Parser(b: bytes, i: array.range.lowerBound)
        var n = 0
        try p.elements { p in
            try body(n, try p.value(depth: array.depth + 1))
            n += 1
        }
    }

    struct Parser {
        let b: [UInt8]
        var i = 0
        /// The paths of arrays to defer, the path followed to the value being read (while it can still lead to one
        /// of them), and the arrays deferred so far.
        var patterns: [[String]] = []
        var trail: [String] = []
        var deferred: [String: DeferredArray] = [:]
        /// `parseCutShort`: the end of the bytes closes what is open, and `cut` says where that was.
        var salvaging = false
        var cut: ParseError?

        /// The whole document: a BOM, the value, nothing but space after it.
        mutating func document() throws -> JSONTree {
            skipSpace()
            i += ByteOrderMark.length(b[i...])
            let v = try value(depth: 0, following: !patterns.isEmpty)
            skipSpace()
            guard i == b.count else { throw ParseError(offset: i, reason: "text after the JSON document") }
            return v
        }

        mutating func skipSpace() {
            while i < b.count, b[i] == 0x20 || b[i] == 0x0A || b[i] == 0x0D || b[i] == 0x09 { i += 1 }
        }

        func fail(_ reason: String) -> ParseError { ParseError(offset: i, reason: reason, cutShort: i >= b.count) }

        /// The bytes end where a container goes on: noted when salvaging (the caller closes it), else thrown.
        mutating func endOfInput() throws {
            let e = fail("document cut short")
            guard salvaging else { throw e }
            cut = e
        }

        /// A value. `following`: the trail so far leads to a deferred path. `build`: false only checks the value.
        mutating func value(depth: Int, following: Bool = false, build: Bool = true) throws -> JSONTree {
            guard depth < JSONTree.maxDepth else { throw fail("nested too deeply") }
            skipSpace()
            guard i < b.count else { throw fail("document cut short") }
            switch b[i] {
            case 0x7B: return try object(depth: depth, following: following, build: build)
            case 0x5B: return try array(depth: depth, following: following, build: build)
            case 0x22: return .string(try string(build: build))
            case 0x74:
                try literal("true")
                return .bool(true)
            case 0x66:
                try literal("false")
                return .bool(false)
            case 0x6E:
                try literal("null")
                return .null
            case 0x2D, 0x30...0x39: return try number()
            default:
                throw fail("unexpected character")
            }
        }

        /// The value at `component` of the trail: deferred when the trail then names a deferred array.
        mutating func child(_ component: @autoclosure () -> String, depth: Int, following: Bool, build: Bool)
            throws -> JSONTree
        {
            guard following, build else { return try value(depth: depth, build: build) }
            trail.append(component())
            defer { trail.removeLast() }
            let matching = patterns.filter { p in
                p.count >= trail.count && zip(p, trail).allSatisfy { $0 == "*" || $0 == $1 }
            }
            skipSpace()
            guard matching.contains(where: { $0.count == trail.count }), i < b.count, b[i] == 0x5B else {
                return try value(depth: depth, following: !matching.isEmpty)
            }
            guard depth < JSONTree.maxDepth else { throw fail("nested too deeply") }
            let start = i
            var count = 0
            try elements { p in
                _ = try p.value(depth: depth + 1, build: false)
                count += 1
            }
            let path = trail.reduce("") { $1.hasPrefix("[") || $0.isEmpty ? $0 + $1 : $0 + "." + $1 }
            deferred[path] = DeferredArray(range: start..<i, depth: depth, count: count)
            return .array([])
        }

        /// An object, from its `{`.
        mutating func object(depth: Int, following: Bool, build: Bool) throws -> JSONTree {
            var fields: [(String, JSONTree)] = []
            try members { p, key in
                let v = try p.child(key, depth: depth + 1, following: following, build: build)
                if build { fields.append((key, v)) }
            }
            return build ? .object(fields) : .null
        }

        /// An array, from its `[`.
        mutating func array(depth: Int, following: Bool, build: Bool) throws -> JSONTree {
            var items: [JSONTree] = []
            var n = 0
            try elements { p in
                let v = try p.child("[\(n)]", depth: depth + 1, following: following, build: build)
                n += 1
                // An element the end of the bytes closed early is not a complete one.
                if build, p.cut == nil { items.append(v) }
            }
            return build ? .array(items) : .null
        }

        /// Reads an object from its `{`, handing each member's value to `each` with its key.
        mutating func members(_ each: (inout Parser, String) throws -> Void) throws {
            try items(closedBy: 0x7D, "',' or '}' expected") { p in
                p.skipSpace()
                let key = try p.string()
                p.skipSpace()
                guard p.i < p.b.count, p.b[p.i] == 0x3A else { throw p.fail("':' expected") }
                p.i += 1
                try each(&p, key)
            }
        }

        /// Reads an array from its `[`, handing each element to `each`.
        mutating func elements(_ each: (inout Parser) throws -> Void) throws {
            try items(closedBy: 0x5D, "',' or ']' expected", each)
        }

        /// A container's items, from its opening byte to `close`, separated by commas. Salvaging, a document cut short
        /// inside an item ends the container there.
        private mutating func items(
            closedBy close: UInt8, _ expected: String, _ item: (inout Parser) throws -> Void
        ) throws {
            i += 1
            skipSpace()
            if i < b.count, b[i] == close {
                i += 1
                return
            }
            while true {
                do { try item(&self) } catch let e as ParseError where salvaging && e.cutShort {
                    cut = e
                    return
                }
                if cut != nil { return }
                skipSpace()
                guard i < b.count else { return try endOfInput() }
                if b[i] == 0x2C {
                    i += 1
                    continue
                }
                if b[i] == close {
                    i += 1
                    return
                }
                throw fail(expected)
            }
        }

        /// A number, kept as its text once `Double` accepts it.
        mutating func number() throws -> JSONTree {
            let s = i
            i += 1
            while i < b.count,
                (0x30...0x39).contains(b[i]) || b[i] == 0x2E || b[i] == 0x65 || b[i] == 0x45
                    || b[i] == 0x2B || b[i] == 0x2D
            { i += 1 }
            let text = String(decoding: b[s..<i], as: UTF8.self)
            // Salvaging, digits running to the end may have gone on: `12` of `123`.
            if salvaging, i == b.count { throw fail("document cut short") }
            guard Double(text) != nil else {
                if i == b.count { throw fail("document cut short") }  // `-`, `1e`: the end came first
                i = s
                throw fail("malformed number")
            }
            return .number(text)
        }

        mutating func literal(_ word: StaticString) throws {
            let w = word.withUTF8Buffer { Array($0) }
            if i + w.count > b.count, b[i...].elementsEqual(w.prefix(b.count - i)) {
                i = b.count
                throw fail("document cut short")
            }
            guard i + w.count <= b.count, Array(b[i..<i + w.count]) == w else { throw fail("unexpected word") }
            i += w.count
        }

        /// A string, from its `"`. Without escapes it is taken from the bytes at once; `build: false` only checks it.
        mutating func string(build: Bool = true) throws -> String {
            guard i < b.count, b[i] == 0x22 else { throw fail("string expected") }
            i += 1
            let start = i
            while i < b.count, b[i] != 0x22, b[i] != 0x5C { i += 1 }
            if i < b.count, b[i] == 0x22 {
                i += 1
                return build ? String(decoding: b[start..<i - 1], as: UTF8.self) : ""
            }
            var out = Array(b[start..<i])
            while i < b.count {
                let c = b[i]
                if c == 0x22 {
                    i += 1
                    return String(decoding: out, as: UTF8.self)
                }
                if c == 0x5C {
                    guard i + 1 < b.count else { break }
                    i += 1
                    switch b[i] {
                    case 0x6E: out.append(0x0A)
                    case 0x74: out.append(0x09)
                    case 0x72: out.append(0x0D)
                    case 0x62: out.append(0x08)
                    case 0x66: out.append(0x0C)
                    case 0x75:
                        if i + 4 >= b.count {
                            i = b.count
                            throw fail("string cut short")
                        }
                        guard let v = UInt32(String(decoding: b[(i + 1)...(i + 4)], as: UTF8.self), radix: 16)
                        else {
                            throw fail("malformed \\u escape")
                        }
                        i += 4
                        out += Array(String(Unicode.Scalar(v).map(Character.init) ?? "\u{FFFD}").utf8)
                    default: out.append(b[i])
                    }
                    i += 1
                    continue
                }
                out.append(c)
                i += 1
            }
            throw fail("string cut short")
        }
    }
}
