import Foundation

/// The JSON at the HTTP edges, as types: a request body is an `Encodable` type beside its target, an answer a
/// `Decodable` type naming only the fields a target reads, each `@Lenient` (a field of another shape reads as absent,
/// so one odd field never hides the others, and a missing one is reported by its name where it is needed).
enum JSONBody {
    /// A request body's bytes: keys in the type's order, slashes unescaped (a URL in a text stays as written).
    /// Nil only for a value JSON cannot hold (a non-finite number).
    static func data<Body: Encodable>(_ body: Body) -> Data? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return try? encoder.encode(body)
    }

    /// `data(_:)` as text (a JSON value inside another format: a multipart field, a query parameter, a stored entry).
    static func text<Body: Encodable>(_ body: Body) -> String {
        String(decoding: data(body) ?? Data(), as: UTF8.self)
    }

    /// `text` decoded as `Value`, nil when it is not JSON of that shape.
    static func decode<Value: Decodable>(_ type: Value.Type, from text: some StringProtocol) -> Value? {
        try? JSONDecoder().decode(type, from: Data(text.utf8))
    }
}

extension HTTPReply {
    /// The body decoded as `Value`, nil when it is not JSON of that shape.
    func decoded<Value: Decodable>(_ type: Value.Type) -> Value? {
        try? JSONDecoder().decode(type, from: body)
    }

    /// The body's top-level `id` (a JSON string or number), the remote id most servers answer with.
    var jsonID: String? { decoded(IdentifiedAnswer.self)?.id?.text }
}

/// An answer read for its `id` alone.
struct IdentifiedAnswer: Decodable {
    @Lenient var id: JSONID?
}

/// An id a server writes as a JSON string or as a number (read as its digits, exact beyond 2^53).
struct JSONID: Decodable, Equatable {
    let text: String

    init(from decoder: any Decoder) throws {
        let value = try decoder.singleValueContainer()
        if let text = try? value.decode(String.self) {
            self.text = text
        } else if let integer = try? value.decode(Int64.self) {
            text = String(integer)
        } else if let integer = try? value.decode(UInt64.self) {
            text = String(integer)
        } else {
            text = String(try value.decode(Double.self))
        }
    }
}

/// A field of an answer that reads as nil when it is absent, null or of another shape: what `object[key] as? T`
/// gave, for answers whose servers differ (a number as text, an object where a string was expected).
@propertyWrapper
struct Lenient<Value: Decodable>: Decodable {
    var wrappedValue: Value?

    init(wrappedValue: Value?) { self.wrappedValue = wrappedValue }

    init(from decoder: any Decoder) throws {
        wrappedValue = try? decoder.singleValueContainer().decode(Value.self)
    }
}

extension Lenient: Encodable where Value: Encodable {
    func encode(to encoder: any Encoder) throws {
        var value = encoder.singleValueContainer()
        if let wrappedValue { try value.encode(wrappedValue) } else { try value.encodeNil() }
    }
}

extension KeyedDecodingContainer {
    /// A `@Lenient` field that is missing is nil, not a missing key.
    func decode<Value>(_ type: Lenient<Value>.Type, forKey key: Key) throws -> Lenient<Value> {
        (try? decodeIfPresent(type, forKey: key)) ?? Lenient(wrappedValue: nil)
    }
}

extension KeyedEncodingContainer {
    /// A `@Lenient` field that is nil is left out, as an optional is.
    mutating func encode<Value: Encodable>(_ value: Lenient<Value>, forKey key: Key) throws {
        if let wrapped = value.wrappedValue { try encode(wrapped, forKey: key) }
    }
}

/// Any JSON value, kept as it was written: what a target passes back to its server unread (Bluesky's blob
/// reference), or checks only for being JSON (a webhook's body template).
enum JSONValue: Codable, Equatable, Sendable {
    case object([String: JSONValue])
    case array([JSONValue])
    case string(String)
    case integer(Int64)
    case number(Double)
    case bool(Bool)
    case null

    init(from decoder: any Decoder) throws {
        let value = try decoder.singleValueContainer()
        if value.decodeNil() {
            self = .null
        } else if let bool = try? value.decode(Bool.self) {
            self = .bool(bool)
        } else if let integer = try? value.decode(Int64.self) {
            self = .integer(integer)
        } else if let number = try? value.decode(Double.self) {
            self = .number(number)
        } else if let string = try? value.decode(String.self) {
            self = .string(string)
        } else if let array = try? value.decode([JSONValue].self) {
            self = .array(array)
        } else {
            self = .object(try value.decode([String: JSONValue].self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var value = encoder.singleValueContainer()
        switch self {
        case .object(let members): try value.encode(members)
        case .array(let items): try value.encode(items)
        case .string(let text): try value.encode(text)
        case .integer(let integer): try value.encode(integer)
        case .number(let number): try value.encode(number)
        case .bool(let bool): try value.encode(bool)
        case .null: try value.encodeNil()
        }
    }
}
