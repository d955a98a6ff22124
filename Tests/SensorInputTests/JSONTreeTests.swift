import Foundation
import Testing

@testable import SensorInput

/// The JSON parser's deferred arrays: what a long array's reader gets must be what the whole parse builds, and a
/// document wrong anywhere, inside a deferred array too, must be refused where it is wrong.
@Suite struct JSONTreeTests {
    let pattern = [["data", "metrics", "*", "data"]]
    let text = """
        {"data": {"metrics": [
          {"name": "step_count", "data": [{"qty": 1, "date": "a"}, {"qty": 2.5e1, "s": ["x", {"y": null}]}, 3]},
          {"data": [], "name": "heart_rate"},
          {"name": "other", "data": {"not": "an array"}}],
         "workouts": [[1, 2], {"data": [4]}]}, "data2": [5]}
        """

    @Test func aDeferredArrayReadsAsTheWholeParseBuildsIt() throws {
        let bytes = Array(text.utf8)
        let whole = try JSONTree.parse(bytes)
        let (tree, deferred) = try JSONTree.parse(bytes, deferring: pattern)
        #expect(deferred.keys.sorted() == ["data.metrics[0].data", "data.metrics[1].data"])
        #expect(deferred["data.metrics[0].data"]?.count == 3)
        #expect(deferred["data.metrics[1].data"]?.count == 0)
        // Outside the deferred arrays the tree is the whole one; a deferred array stands empty, and a value at a
        // deferred path that is not an array is kept.
        #expect(tree["data"]?["workouts"] == whole["data"]?["workouts"])
        #expect(tree["data2"] == whole["data2"])
        #expect(tree["data"]?["metrics"]?[0]?["data"] == .array([]))
        #expect(tree["data"]?["metrics"]?[2]?["data"] == whole["data"]?["metrics"]?[2]?["data"])
        // The deferred array read one element at a time, as Ingestion's `PayloadBody.forEachElement` reads it.
        let array = try #require(deferred["data.metrics[0].data"])
        var read: [JSONTree] = []
        try JSONTree.forEachElement(in: bytes, array) { n, element in
            #expect(n == read.count)
            read.append(element)
        }
        #expect(read == whole["data"]?["metrics"]?[0]?["data"]?.items)
    }

    @Test func aDocumentWrongInsideADeferredArrayIsRefusedWhereItIsWrong() throws {
        let cases = [
            text.replacingOccurrences(of: "2.5e1", with: "2.5e"),
            text.replacingOccurrences(of: "{\"y\": null}", with: "{\"y\" null}"),
            text.replacingOccurrences(of: "\"a\"}", with: "\"a}"),
            text.replacingOccurrences(of: ", 3]}", with: ", 3}"),
            String(text.prefix(60)),
        ]
        for bad in cases {
            let bytes = Array(bad.utf8)
            var offsets: [Int] = []
            for patterns in [[], pattern] {
                do {
                    _ = try JSONTree.parse(bytes, deferring: patterns)
                    Issue.record("accepted: \(bad)")
                } catch let e as JSONTree.ParseError {
                    offsets.append(e.offset)
                }
            }
            #expect(offsets.count == 2 && offsets[0] == offsets[1], "\(bad)")
        }
        let deep = "{\"data\":{\"metrics\":[{\"data\":[" + String(repeating: "[", count: 70) + "]}]}}"
        #expect(throws: JSONTree.ParseError.self) { try JSONTree.parse(Array(deep.utf8), deferring: pattern) }
    }

    /// A document cut short keeps what was complete before the end: an array its complete elements only, an object
    /// its complete members and a member array or object as far as it goes; the cut is at the end of the bytes.
    @Test func aDocumentCutShortKeepsWhatWasCompleteBeforeTheEnd() throws {
        let whole = "{\"a\": \"x\", \"p\": [{\"n\": 1, \"m\": [2]}, {\"n\": 12, \"m\": [3]}, true]}"
        let first: JSONTree = .object([("n", .number("1")), ("m", .array([.number("2")]))])
        let second: JSONTree = .object([("n", .number("12")), ("m", .array([.number("3")]))])
        let kept: [(Int, JSONTree)] = [
            (whole.count, .object([("a", .string("x")), ("p", .array([first, second, .bool(true)]))])),
            (whole.count - 1, .object([("a", .string("x")), ("p", .array([first, second, .bool(true)]))])),
            (whole.count - 3, .object([("a", .string("x")), ("p", .array([first, second]))])),  // `tr`
            (whole.count - 8, .object([("a", .string("x")), ("p", .array([first, second]))])),
            (whole.count - 9, .object([("a", .string("x")), ("p", .array([first]))])),  // the second's `}` is missing
            (45, .object([("a", .string("x")), ("p", .array([first]))])),  // `12` may have been `123`
            (8, .object([])),  // inside "x"
            (9, .object([("a", .string("x"))])),
            (1, .object([])),
        ]
        for (n, tree) in kept {
            let (t, cut) = try JSONTree.parseCutShort(Array(whole.utf8.prefix(n)))
            #expect(t == tree, "\(whole.prefix(n))")
            #expect(cut?.offset == (n == whole.count ? nil : n), "\(whole.prefix(n))")
        }
        // Wrong before the end is still wrong; a bare value cut short keeps nothing.
        #expect(throws: JSONTree.ParseError.self) { try JSONTree.parseCutShort(Array("{\"a\": x, \"b\": [".utf8)) }
        #expect(throws: JSONTree.ParseError.self) { try JSONTree.parseCutShort(Array("\"abc".utf8)) }
        #expect(throws: JSONTree.ParseError.self) { try JSONTree.parseCutShort([]) }
    }
}
