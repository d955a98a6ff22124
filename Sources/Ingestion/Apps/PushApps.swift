import Foundation
import SensorInput

/// The registry of push apps (one file per app under `Apps/`), recognition of a body and dispatch to its parser.
/// Public for the fuzz harnesses (fuzz/), which parse through it.
public enum PushApps {
    /// Every app the receiver reads, in the order bodies are tried: adding an app is one line here.
    static let all: [any PushApp] = [
        HealthAutoExportApp(), SensorLoggerApp(), HealthConnectApp(), OwnTracksApp(), StepLogApp(),
    ]

    /// Names accepted by `?format=NAME`.
    public static var names: [String] { all.map(\.name) }

    /// The app whose format is named `name`, if any.
    static func named(_ name: String) -> (any PushApp)? { all.first { $0.name == name.lowercased() } }

    /// How the app whose format is named `format` must be answered; plain for none.
    static func convention(of format: String?) -> AppConvention {
        format.flatMap(named)?.convention ?? .plain
    }

    /// Parses one request body (already un-gzipped) as `format`, or as the format that recognises it when nil. An
    /// item that cannot be read is left out and listed in `Payload.refused`. Throws a `PayloadError` for a body that
    /// cannot be read at all: an unknown format name, a body without the format's shape, an unrecognised body (naming
    /// the formats tried), or a wrong field of the payload as a whole (a missing `deviceId`); nothing of it is
    /// returned.
    public static func parse(body: Data, format: String? = nil) throws -> Payload {
        try parse(bytes: [UInt8](body), format: format)
    }

    /// `parse(body:format:)` on the body's bytes (the receiver reads them so, with no copy).
    static func parse(bytes: [UInt8], format: String? = nil) throws -> Payload {
        let payloadBody = PayloadBody(bytes, deferring: all.flatMap(\.longArrays))
        let chosen: any PushApp
        if let format {
            guard let app = named(format) else {
                throw PayloadError(
                    path: "", message: "unknown format '\(format)'; known: \(names.joined(separator: ", "))")
            }
            guard app.recognises(payloadBody) else { throw unrecognised(payloadBody, as: app) }
            chosen = app
        } else {
            chosen = try recognise(payloadBody)
        }
        do {
            var payload = try chosen.parse(payloadBody)
            for i in payload.refused.indices { payload.refused[i].format = chosen.name }
            return payload
        } catch var e as PayloadError {
            e.format = chosen.name
            throw e
        }
    }

    /// Why a body named as `app` (`?format=NAME`) does not have its shape: its JSON error, or the first field the
    /// format's parser finds missing or wrong (`payload: missing`, or the first item it leaves out), else the shape
    /// expected.
    static func unrecognised(_ body: PayloadBody, as app: any PushApp) -> PayloadError {
        var error = PayloadError(
            format: app.name, path: "", message: "not a \(app.name) payload (expected \(app.about))")
        if app.isOneJSONDocument, case .failure(let e) = body.document {
            error = e
        } else {
            do {
                if let first = try app.parse(body).refused.first { error = first }
            } catch let e as PayloadError where !e.path.isEmpty {
                error = e
            } catch {}
        }
        error.format = app.name
        return error
    }

    /// The app whose shape the body has, or an error saying which were tried (and why the body is not JSON).
    static func recognise(_ body: PayloadBody) throws -> any PushApp {
        if let app = all.first(where: { $0.recognises(body) }) { return app }
        let tried = "tried " + names.joined(separator: ", ")
        if body.bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            throw PayloadError(path: "", message: "empty body (\(tried))")
        }
        if case .failure(let e) = body.document { throw PayloadError(path: "", message: "\(e.message) (\(tried))") }
        throw PayloadError(
            path: "", message: "not a payload of a known format (\(tried)); pass ?format=NAME to be told why")
    }
}
