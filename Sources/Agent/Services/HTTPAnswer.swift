import Foundation
import HTTPTypes
import Hummingbird

/// An answer as the agent's handlers make it: a status, header fields and a whole body. Handlers make these and
/// never a server's own response type, so that they can be called in process by the tests and the server library
/// stays in the routes.
struct HTTPAnswer: Sendable {
    var status: HTTPResponse.Status
    var headerFields: HTTPFields = [:]
    var body = Data()

    /// `object` as JSON, keys sorted.
    static func json(_ status: HTTPResponse.Status, _ object: [String: Any]) -> HTTPAnswer {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return HTTPAnswer(status: status, headerFields: [.contentType: "application/json"], body: data)
    }

    /// A status that HTTPTypes has no name for (Sensor Logger's 499).
    static func status(_ code: Int, _ reason: String) -> HTTPResponse.Status {
        HTTPResponse.Status(code: code, reasonPhrase: reason)
    }

    /// As Hummingbird writes it, with its length.
    var response: Response {
        var fields = headerFields
        fields[.contentLength] = String(body.count)
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
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

    /// The request as Hummingbird received it.
    init(_ request: Request) {
        self.init(
            headerFields: request.headers, format: request.uri.queryParameters["format"].map(String.init),
            readBody: { limit in try await HTTPServing.body(of: request, upTo: limit) })
    }
}
