import Foundation
import SensorInput

/// A payload's bytes and, parsed once on first use, its JSON document (`JSONTree`: numbers kept as text, so
/// nanosecond times stay exact). Shared by recognition and parsing so the body is parsed once. The arrays at
/// `deferring` paths (a format's long arrays, `PayloadFormat.longArrays`) are checked but left in the bytes, and read
/// one element at a time by `forEachElement`.
final class PayloadBody {
    let bytes: [UInt8]
    private let patterns: [[String]]
    private var parsed: Result<JSONTree, PayloadError>?
    private var deferred: [String: JSONTree.DeferredArray] = [:]

    init(_ bytes: [UInt8], deferring patterns: [[String]] = []) {
        self.bytes = bytes
        self.patterns = patterns
    }

    /// Calls `body` with each element of the array `value`, found at `path`: from the bytes when the parse left it
    /// there, so that only one element is built at a time.
    func forEachElement(of value: JSONTree, at path: String, _ body: (Int, JSONTree) throws -> Void) throws {
        if let array = deferred[path] {
            try JSONTree.forEachElement(in: bytes, array, body)
        } else {
            for (n, element) in try value.array(at: path).enumerated() { try body(n, element) }
        }
    }

    /// How many elements the array `value` at `path` has; 0 when it is not an array.
    func count(of value: JSONTree?, at path: String) -> Int {
        deferred[path]?.count ?? value?.items.count ?? 0
    }

    /// The body as one JSON document, or why it is not one (with the byte, line and column where it stops).
    var document: Result<JSONTree, PayloadError> {
        if let parsed { return parsed }
        let result: Result<JSONTree, PayloadError>
        do {
            let (tree, arrays) = try JSONTree.parse(bytes, deferring: patterns)
            deferred = arrays
            result = .success(tree)
        } catch let e as JSONTree.ParseError {
            result = .failure(PayloadError(path: "", message: "not JSON: \(e.reason) \(location(ofByte: e.offset))"))
        } catch {
            result = .failure(PayloadError(path: "", message: "not JSON: \(error)"))
        }
        parsed = result
        return result
    }

    /// "at byte 812 (line 3, column 14)".
    func location(ofByte offset: Int) -> String {
        var line = 1
        var column = 1
        for b in bytes.prefix(offset) {
            if b == 0x0A {
                line += 1
                column = 1
            } else if b & 0xC0 != 0x80 {
                column += 1
            }
        }
        return "at byte \(offset) (line \(line), column \(column))"
    }

    /// The document's top-level object members, nil when the body is not one JSON object.
    var topLevelObject: JSONTree? {
        if case .success(let tree) = document, case .object = tree { return tree }
        return nil
    }
}

/// Typed access to a payload's fields. Each takes the field's path as an autoclosure, built only for the error.
extension JSONTree {
    func object(at path: @autoclosure () -> String) throws -> JSONTree {
        if case .object = self { return self }
        throw PayloadError.expected("an object", at: path(), found: self)
    }

    func array(at path: @autoclosure () -> String) throws -> [JSONTree] {
        if case .array(let items) = self { return items }
        throw PayloadError.expected("an array", at: path(), found: self)
    }

    func text(at path: @autoclosure () -> String) throws -> String {
        if case .string(let s) = self { return s }
        throw PayloadError.expected("a string", at: path(), found: self)
    }

    /// A finite number (JSON numbers beyond Double's range read as infinite and are refused).
    func number(at path: @autoclosure () -> String) throws -> Double {
        if case .number(let s) = self, let v = Double(s), v.isFinite { return v }
        throw PayloadError.expected("a finite number", at: path(), found: self)
    }

    /// A whole number within Int64: written as an integer, or as a float whose value is whole (`1.6985e18`).
    func integer(at path: @autoclosure () -> String) throws -> Int64 {
        if case .number(let s) = self {
            if let v = Int64(s) { return v }
            if let d = Double(s), d == d.rounded(), let v = Int64(exactly: d) { return v }
        }
        throw PayloadError.expected("a whole number", at: path(), found: self)
    }

    /// The member `key` of an object that must have it.
    func member(_ key: String, at path: @autoclosure () -> String) throws -> JSONTree {
        if let v = self[key] { return v }
        throw PayloadError(path: path(), message: "missing")
    }
}
