import Foundation
import Logging
import TestSupport
import Testing

@testable import Ingestion
@testable import SensorInput
@testable import Store

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What every push app must have, as `TargetConformanceTests` does for targets: a case in `PushAppCase.all`, a sample
/// in fixtures/push/NAME/ recognised and parsed as the app's, its answers declared (AppConventionsTests checks them),
/// its route reached on a real receiver on 127.0.0.1, and a fuzz harness with a seed. An app added to `PushApps.all`
/// without them fails here.
@Suite struct PushAppConformanceTests {
    static let token = "conformance-token"

    @Test func everyAppTheRegistryListsHasItsCase() {
        #expect(Set(PushApps.names) == Set(PushAppCase.all.map(\.name)), "an app without its case, or a stale case")
        #expect(PushApps.names.count == Set(PushApps.names).count, "an app is listed twice")
        for name in PushApps.names { #expect(PushApps.named(name)?.name == name) }
    }

    @Test(arguments: PushAppCase.all)
    func theSampleIsRecognisedAndParsed(_ app: PushAppCase) throws {
        let body = try PayloadTesting.fixture(app.sample)
        let recognised = try PushApps.parse(body: body)
        #expect(recognised.format == app.name, "\(app.sample) is read as \(recognised.format)")
        #expect(!recognised.items.isEmpty, "\(app.sample) holds nothing")
        #expect(recognised.refusedCount == 0, "\(app.sample): \(recognised.refusalSummary(naming: 3))")
        #expect(try PushApps.parse(body: body, format: app.name) == recognised)
        #expect(try PushApps.parse(body: Data(app.valid.utf8)).format == app.name)
    }

    /// The sample POSTed to a receiver listening on 127.0.0.1, through its token check and route: answered 200 as
    /// the app's convention declares, and its devices stored under the app's format.
    @Test(arguments: PushAppCase.all)
    func theRouteTakesTheSampleOnARealReceiver(_ app: PushAppCase) async throws {
        let dir = try TempDir()
        let store = try StateStore(path: dir.path("state.sqlite"))
        let receiver = ReceiverService(
            host: "127.0.0.1", port: 0, token: Self.token, limits: HTTPLimits(), store: store,
            logger: Logger(label: "test"))
        let serving = Task { try await receiver.run() }
        defer { serving.cancel() }
        try await receiver.waitUntilListening()
        let port = try #require(await receiver.port())
        let (status, body) = try await Self.post(try PayloadTesting.fixture(app.sample), to: port)
        await receiver.stop()
        _ = try? await serving.value
        #expect(status == 200, "\(app.name): \(String(decoding: body, as: UTF8.self))")
        let answer = try JSONSerialization.jsonObject(with: body)
        if case .json = app.stored {
            #expect((answer as? [String: Any])?["format"] as? String == app.name)
        } else {
            #expect(answer is [Any])
        }
        let formats = Set(try store.receivedDevices().map(\.format))
        #expect(formats == [app.name], "\(app.name): devices stored as \(formats)")
    }

    @Test(arguments: PushAppCase.all)
    func theAppHasAFuzzHarnessWithASeed(_ app: PushAppCase) {
        let harness = "payload-" + app.name
        let main = SharedData.packageRoot.appendingPathComponent("fuzz/Sources/fuzz-\(harness)/main.swift")
        let source = try? String(contentsOf: main, encoding: .utf8)
        #expect(
            source?.contains("fuzzPayload(data, size, format: \"\(app.name)\"") == true,
            "fuzz/Sources/fuzz-\(harness)/main.swift should call fuzzPayload(data, size, format: \"\(app.name)\")")
        let seeds = try? FileManager.default.contentsOfDirectory(
            atPath: SharedData.packageRoot.path + "/fuzz/corpus/\(harness)")
        #expect(seeds?.isEmpty == false, "fuzz/corpus/\(harness)/ should hold at least one seed")
    }

    @Test func everyPayloadFuzzHarnessNamesAnApp() throws {
        let folders = try FileManager.default.contentsOfDirectory(atPath: SharedData.packageRoot.path + "/fuzz/Sources")
        let apps = folders.filter { $0.hasPrefix("fuzz-payload-") }.map { String($0.dropFirst("fuzz-payload-".count)) }
        let stale = apps.filter { PushApps.named($0) == nil }.sorted()
        #expect(stale.isEmpty, "payload harnesses of no registered app (renamed or removed?): \(stale)")
    }

    /// POSTs `body` to `/ingest` with the token; the status and the answer's body.
    static func post(_ body: Data, to port: UInt16) async throws -> (Int, Data) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/ingest")!)
        request.httpMethod = "POST"
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.httpBody = body
        request.timeoutInterval = 30
        return try await withCheckedThrowingContinuation { done in
            URLSession.shared.dataTask(with: request) { data, response, error in
                if let data, let http = response as? HTTPURLResponse {
                    done.resume(returning: (http.statusCode, data))
                } else {
                    done.resume(throwing: error ?? URLError(.badServerResponse))
                }
            }.resume()
        }
    }
}
