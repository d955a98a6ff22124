import Foundation

/// One pushed-payload format: its name, how its body is recognised and how it is parsed.
public struct PayloadFormat: Sendable {
    /// The app that sends this format; its raw value is the format's name.
    public let app: PayloadApp
    public var name: String { app.rawValue }
    /// One line for the docs and errors: the app and the shape recognised.
    public let about: String
    /// Whether the body has this format's shape (a cheap look at the top-level keys, never a full check).
    let recognises: @Sendable (PayloadBody) -> Bool
    /// The body's items, with those that cannot be read left out and listed (`Payload.refused`); throws a
    /// `PayloadError` when the body cannot be read as this format's payload at all.
    let parse: @Sendable (PayloadBody) throws -> Payload
    /// Paths of arrays that may be long (keys, `*` for any key or index), read one element at a time.
    var longArrays: [[String]] = []
}

/// The registry of payload formats (one file per format under `Payloads/`), recognition and dispatch.
public enum PayloadFormats {
    public static let all: [PayloadFormat] = [
        HealthAutoExportPayload.format, SensorLoggerPayload.format, HealthConnectPayload.format,
        OwnTracksPayload.format, StepLogPayload.format,
    ]

    /// Names accepted by `?format=NAME`.
    public static var names: [String] { all.map(\.name) }

    /// The format named `name`, if any.
    public static func named(_ name: String) -> PayloadFormat? { all.first { $0.name == name.lowercased() } }

    /// Parses one request body (already un-gzipped) as `format`, or as the format that recognises it when nil. An
    /// item that cannot be read is left out and listed in `Payload.refused`. Throws a `PayloadError` for a body that
    /// cannot be read at all: an unknown format name, a body without the format's shape, an unrecognised body (naming
    /// the formats tried), or a wrong field of the payload as a whole (a missing `deviceId`); nothing of it is
    /// returned.
    public static func parse(body: Data, format: String? = nil) throws -> Payload {
        try parse(bytes: [UInt8](body), format: format)
    }

    /// `parse(body:format:)` on the body's bytes (the receiver reads them so, with no copy).
    public static func parse(bytes: [UInt8], format: String? = nil) throws -> Payload {
        let payloadBody = PayloadBody(bytes, deferring: all.flatMap(\.longArrays))
        let chosen: PayloadFormat
        if let format {
            guard let f = named(format) else {
                throw PayloadError(
                    path: "", message: "unknown format '\(format)'; known: \(names.joined(separator: ", "))")
            }
            guard f.recognises(payloadBody) else { throw unrecognised(payloadBody, as: f) }
            chosen = f
        } else {
            chosen = try recognise(payloadBody)
        }
        do {
            var payload = try chosen.parse(payloadBody)
            for i in payload.refused.indices { payload.refused[i].app = chosen.app }
            return payload
        } catch var e as PayloadError {
            e.app = chosen.app
            throw e
        }
    }

    /// Why a body named as `f` (`?format=NAME`) does not have its shape: its JSON error, or the first field the
    /// format's parser finds missing or wrong (`payload: missing`, or the first item it leaves out), else the shape
    /// expected.
    static func unrecognised(_ body: PayloadBody, as f: PayloadFormat) -> PayloadError {
        var error = PayloadError(app: f.app, path: "", message: "not a \(f.name) payload (expected \(f.about))")
        if f.app != .stepLog, case .failure(let e) = body.document {
            error = e
        } else {
            do {
                if let first = try f.parse(body).refused.first { error = first }
            } catch let e as PayloadError where !e.path.isEmpty {
                error = e
            } catch {}
        }
        error.app = f.app
        return error
    }

    /// The format whose shape the body has, or an error saying which were tried (and why the body is not JSON).
    static func recognise(_ body: PayloadBody) throws -> PayloadFormat {
        if let f = all.first(where: { $0.recognises(body) }) { return f }
        let tried = "tried " + all.map(\.name).joined(separator: ", ")
        if body.bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            throw PayloadError(path: "", message: "empty body (\(tried))")
        }
        if case .failure(let e) = body.document { throw PayloadError(path: "", message: "\(e.message) (\(tried))") }
        throw PayloadError(
            path: "", message: "not a payload of a known format (\(tried)); pass ?format=NAME to be told why")
    }
}
