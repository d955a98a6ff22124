import Foundation
import HTTPTypes

/// An answer as the agent's handlers make it: a status, header fields and a whole body. Handlers make these and
/// never a server's own response type, so that they can be called in process by the tests and the server library
/// stays in the routes (`HTTPServing.swift` turns one into Hummingbird's response).
package struct HTTPAnswer: Sendable {
    package var status: HTTPResponse.Status
    package var headerFields: HTTPFields = [:]
    package var body = Data()

    package init(status: HTTPResponse.Status, headerFields: HTTPFields = [:], body: Data = Data()) {
        self.status = status
        self.headerFields = headerFields
        self.body = body
    }

    /// `value` as JSON, keys sorted.
    static func json(_ status: HTTPResponse.Status, _ value: some Encodable) -> HTTPAnswer {
        HTTPAnswer(status: status, headerFields: [.contentType: "application/json"], body: jsonData(value, "{}"))
    }

    /// `{"error": message}` as JSON.
    static func error(_ status: HTTPResponse.Status, _ message: String) -> HTTPAnswer {
        json(status, ErrorAnswer(error: message))
    }

    /// `value` encoded with its keys sorted (and, with `slashes`, `/` left unescaped); `fallback` if it cannot be.
    static func jsonData(_ value: some Encodable, _ fallback: String, slashes: Bool = false) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = slashes ? [.sortedKeys, .withoutEscapingSlashes] : [.sortedKeys]
        return (try? encoder.encode(value)) ?? Data(fallback.utf8)
    }

    /// A status that HTTPTypes has no name for (Sensor Logger's 499).
    static func status(_ code: Int, _ reason: String) -> HTTPResponse.Status {
        HTTPResponse.Status(code: code, reasonPhrase: reason)
    }
}

/// The body of an error answer: what is wrong and, for a payload refused whole, the format it was read as.
struct ErrorAnswer: Encodable {
    var error: String
    var format: String?
}

/// A request to `/ingest` as the receiver's handler reads it: its header fields, `?format=`, and its body, read on
/// demand within a limit.
struct IngestRequest: Sendable {
    var headerFields: HTTPFields
    /// `?format=NAME`, when given.
    var format: String?
    /// The body, whole, when it is at most `limit` bytes; nil when it is longer.
    var readBody: @Sendable (_ limit: Int) async throws -> [UInt8]?

    init(
        headerFields: HTTPFields, format: String? = nil,
        readBody: @escaping @Sendable (_ limit: Int) async throws -> [UInt8]?
    ) {
        self.headerFields = headerFields
        self.format = format
        self.readBody = readBody
    }
}
