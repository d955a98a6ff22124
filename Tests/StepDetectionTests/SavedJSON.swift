import Foundation

@testable import StepDetection

/// A saved value edited back to what an older build wrote (the keys it did not know yet removed), then decoded: for
/// the tests that states and parameter sets saved before a key existed still decode.
enum SavedJSON {
    struct NotThere: Error, CustomStringConvertible {
        let description: String
    }

    /// The JSON object `value` encodes to.
    static func object(encoding value: some Encodable) throws -> [String: Any] {
        try object(JSONEncoder().encode(value))
    }

    /// The JSON object saved in `data`.
    static func object(_ data: Data) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw NotThere(description: "saved JSON is not an object")
        }
        return object
    }

    /// `object` without the keys at `paths`, decoded as `T`. A path names nested objects with dots
    /// (`parameters.loneBoutAlongShare`), and `[]` after a name each object of that array (`held[].boutShare`);
    /// every object on the way must be there.
    static func decode<T: Decodable>(_ type: T.Type, from object: [String: Any], removing paths: [String]) throws -> T {
        var edited: Any = object
        for path in paths {
            edited = try removing(path.split(separator: ".")[...], from: edited, path: path)
        }
        return try JSONDecoder().decode(type, from: JSONSerialization.data(withJSONObject: edited))
    }

    /// The value `key` of a parameter set takes when it was saved before the key existed: the standard set with the
    /// key at `marker` (which must reach the saved JSON, or `key` does not name it), saved, the key removed, decoded.
    static func parameterSavedBeforeItExisted(
        _ key: String, _ keyPath: WritableKeyPath<DetectorParameters, Double>, marker: Double
    ) throws -> Double {
        var marked = DetectorParameters.standard
        marked[keyPath: keyPath] = marker
        let saved = try object(encoding: marked)
        guard saved[key] as? Double == marker else { throw NotThere(description: "\(key): not saved as \(marker)") }
        return try decode(DetectorParameters.self, from: saved, removing: [key])[keyPath: keyPath]
    }

    /// The standard recognizer parameters as saved before `keys` existed: saved (each key must reach the saved JSON,
    /// or it names nothing), the keys removed, decoded.
    static func recognizerSavedBefore(_ keys: [String]) throws -> RecognizerParameters {
        let saved = try object(encoding: DetectorParameters.standard.recognizer)
        for key in keys where saved[key] == nil { throw NotThere(description: "\(key): not saved") }
        return try decode(RecognizerParameters.self, from: saved, removing: keys)
    }

    private static func removing(_ names: ArraySlice<Substring>, from value: Any, path: String) throws -> Any {
        guard let name = names.first else { return value }
        guard var object = value as? [String: Any] else { throw NotThere(description: "\(path): not an object") }
        let eachOf = name.hasSuffix("[]")
        let key = String(eachOf ? name.dropLast(2) : name)
        if names.count == 1 {
            object[key] = nil
            return object
        }
        if eachOf {
            guard let items = object[key] as? [Any] else { throw NotThere(description: "\(path): no array \(key)") }
            object[key] = try items.map { try removing(names.dropFirst(), from: $0, path: path) }
        } else {
            guard let child = object[key] else { throw NotThere(description: "\(path): no \(key)") }
            object[key] = try removing(names.dropFirst(), from: child, path: path)
        }
        return object
    }
}
