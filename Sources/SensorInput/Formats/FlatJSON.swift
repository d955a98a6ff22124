import Foundation
import StepDetection

/// A parser for one flat JSON object (`{"k": "v", "n": 1.5, "b": true}`), enough for step-log lines without
/// Foundation: nested values are refused. Numbers keep their text so integers stay exact.
enum FlatJSON {
    enum Value: Equatable {
        case string(String)
        case number(String)
        case bool(Bool)
        case null

        var text: String? {
            switch self {
            case .string(let s), .number(let s): return s
            default: return nil
            }
        }
    }

    /// The object's members, nil when the text is not one flat JSON object: read with the one JSON parser
    /// (`JSONTree`), keeping the last of repeated keys; nested values are refused.
    static func parseObject(_ bytes: UnsafeBufferPointer<UInt8>) -> [String: Value]? {
        guard case .object(let members)? = try? JSONTree.parse(Array(bytes)) else { return nil }
        var out: [String: Value] = [:]
        for (key, value) in members {
            switch value {
            case .string(let s): out[key] = .string(s)
            case .number(let n): out[key] = .number(n)  // checked by the parser
            case .bool(let b): out[key] = .bool(b)
            case .null: out[key] = .null
            case .object, .array: return nil
            }
        }
        return out
    }
}
