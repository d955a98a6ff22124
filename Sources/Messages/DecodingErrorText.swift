import Foundation

/// What a JSON decoding error says, for a person: where in the document and what is wrong (Foundation's own
/// description is a dump of nested contexts). Other errors as they describe themselves.
public func describeDecodingError(_ error: any Error) -> String {
    guard let error = error as? DecodingError else { return "\(error)" }
    func at(_ context: DecodingError.Context) -> String {
        let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        return path.isEmpty ? "" : "at \(path.replacingOccurrences(of: ".[", with: "[")): "
    }
    switch error {
    case .dataCorrupted(let c): return at(c) + c.debugDescription
    case .keyNotFound(let key, let c): return at(c) + "'\(key.stringValue)' is missing"
    case .typeMismatch(_, let c), .valueNotFound(_, let c): return at(c) + c.debugDescription
    @unknown default: return "\(error)"
    }
}
