import FlyingFox
import Foundation

/// A `multipart/form-data` body as a server parses it (RFC 7578): the boundary from the request's `Content-Type`,
/// then each part's headers and bytes. Strict where servers are: a missing boundary, a part without a
/// `Content-Disposition` name, or a body that does not end with the closing delimiter is no form (nil).
public struct MultipartForm: Sendable {
    public struct Part: Sendable {
        public var name: String
        public var filename: String?
        public var contentType: String?
        public var body: Data
        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    public let boundary: String
    public let parts: [Part]

    /// The first part named `name`.
    public subscript(_ name: String) -> Part? { parts.first { $0.name == name } }

    public init?(_ request: SeenRequest) {
        guard let type = request.headers["content-type"], type.hasPrefix("multipart/form-data"),
            let range = type.range(of: "boundary=")
        else { return nil }
        var boundary = String(type[range.upperBound...].prefix { $0 != ";" })
        if boundary.hasPrefix("\""), boundary.hasSuffix("\""), boundary.count >= 2 {
            boundary = String(boundary.dropFirst().dropLast())
        }
        guard !boundary.isEmpty, boundary.count <= 70 else { return nil }
        self.boundary = boundary
        let body = request.body
        let delimiter = Data("--\(boundary)".utf8)
        let crlf = Data("\r\n".utf8)
        guard body.starts(with: delimiter + crlf), body.hasSuffix(Data("\r\n--\(boundary)--\r\n".utf8)) else {
            return nil
        }
        var parts: [Part] = []
        var at = body.startIndex + delimiter.count + crlf.count
        let separator = crlf + delimiter
        while let end = body.range(of: separator, in: at..<body.endIndex) {
            guard let headerEnd = body.range(of: crlf + crlf, in: at..<end.lowerBound) else { return nil }
            let headers = String(decoding: body[at..<headerEnd.lowerBound], as: UTF8.self)
                .components(separatedBy: "\r\n")
            var name: String?
            var filename: String?
            var contentType: String?
            for line in headers {
                let lower = line.lowercased()
                if lower.hasPrefix("content-disposition: form-data") {
                    name = Self.parameter("name", in: line)
                    filename = Self.parameter("filename", in: line)
                } else if lower.hasPrefix("content-type:") {
                    contentType = line.dropFirst("content-type:".count).trimmingCharacters(in: .whitespaces)
                }
            }
            guard let name else { return nil }
            parts.append(
                Part(
                    name: name, filename: filename, contentType: contentType,
                    body: Data(body[headerEnd.upperBound..<end.lowerBound])))
            at = end.upperBound
            if body[at...].starts(with: Data("--".utf8)) { break }
            guard body[at...].starts(with: crlf) else { return nil }
            at += crlf.count
        }
        self.parts = parts
    }

    /// `name="value"` of a header line.
    static func parameter(_ name: String, in line: String) -> String? {
        guard let range = line.range(of: "; \(name)=\"") else { return nil }
        return String(line[range.upperBound...].prefix { $0 != "\"" })
    }
}

extension Data {
    func hasSuffix(_ suffix: Data) -> Bool { count >= suffix.count && self[(endIndex - suffix.count)...] == suffix }
}

/// A response that closes the connection before a byte of the answer is written: the request reached the server
/// and was acted on, and the client sees the connection lost (the "lost answer" of an upload or a post). FlyingFox
/// asks a WebSocket handler for its frames before writing the response's head; this handler fails, and the
/// server drops the connection.
public func closeBeforeAnswering() -> HTTPResponse { HTTPResponse(webSocket: FailingWebSocket()) }

struct FailingWebSocket: WSHandler {
    struct Closed: Error {}
    func makeFrames(for client: AsyncThrowingStream<WSFrame, any Error>) async throws -> AsyncStream<WSFrame> {
        throw Closed()
    }
}
