import Analysis
import Clocks
import FlyingFox
import Foundation
import Messages
import Publishing
import Testing
import WallTime

@testable import Agent
@testable import Store

/// `source.url`: phyphox on a phone, pulled at each fetch over real HTTP from a loopback server that answers as the
/// app's remote interface does (`/get` with thresholds, `/time`, sessions, a "clear", `null` for NaN, numbers with 8
/// significant digits), revealing a real 60 s walk a little more at each fetch.
@Suite(.timeLimit(.minutes(1))) struct PhyphoxPullTests {
    /// The committed 60 s walk (`t_ms,x,y,z` at 50 Hz).
    static let walkFile = SharedData.fixture("demo_walk_50hz.csv")
    static let t0 = Timestamps.parse("2026-11-21T10:00:00+09:00")!

    /// The walk's rows (buffer time in s, x, y, z in m/s² with gravity) and what `steptweet count` counts in it.
    static func walk() throws -> (rows: [FakePhyphox.Row], counted: Int) {
        let rows = try SharedData.numbers(atPath: walkFile).map {
            FakePhyphox.Row(t: $0[0] / 1000, x: $0[1], y: $0[2], z: $0[3])
        }
        let counted = try RecordingCounter.count(path: walkFile).steps
        return (rows, counted)
    }

    /// A fetcher pulling `url`, posting to a scripted target, its state in `dir`.
    static func fetcher(
        _ dir: TempDir, url: URL, deadline: String = "60s", clock: any Clock<Duration> = ContinuousClock()
    ) throws -> (Fetcher, StateStore) {
        var config = try AgentConfiguration.parse(
            """
            [source]
            url = "\(url.absoluteString)"
            [schedule]
            interval = "10m"
            deadline = "\(deadline)"
            [text]
            time_zone = "Asia/Tokyo"
            [state]
            path = "state.sqlite"
            """, file: dir.path("config.toml"), environment: [:])
        config.publishers = [ScriptedPublisher()]
        return (Fetcher(configuration: config, clock: clock), try StateStore(path: config.statePath))
    }

    func at(_ seconds: Double) -> Date { Self.t0.addingTimeInterval(seconds) }

    func ns(_ seconds: Double) -> Int64 { Timestamps.nanoseconds(at(seconds)) }

    @Test func aWalkPulledOverSeveralFetchesCountsAsTheFile() async throws {
        let (rows, counted) = try Self.walk()
        let dir = try TempDir()
        let phone = try await FakePhyphox.start(rows: rows, startedAt: Self.t0)
        let (fetcher, store) = try Self.fetcher(dir, url: phone.url)
        var posted = 0
        for seconds in [15.0, 30, 45, 60] {
            await phone.state.reveal(through: seconds)
            if seconds == 60 { await phone.state.set(measuring: false) }
            let report = await fetcher.fetch(now: Instant(at(seconds + 1)), trigger: [.manual])
            #expect(report.result != .failed, "\(report.line)")
            posted += report.postedSteps
            if seconds == 45, let lastT = rows.last(where: { ($0.t ?? 0) <= 45 })?.t {
                let until = try store.receivedDevices().first?.dataUntil
                #expect(until.map { abs($0.timeIntervalSince(at(lastT))) < 0.001 } == true, "up to its last sample")
            }
        }
        let stored = try store.steps(in: .sinceEpoch)
        #expect(counted > 100)
        #expect(abs(stored - counted) <= counted / 100, "pulled \(stored), count \(counted)")
        #expect(posted == stored, "a stopped phone's walk is closed and posted")
        let gets = await phone.server.requests.filter { $0.path == "/get" }
        #expect(gets.count == 4)
        #expect(gets.first?.query["acc_time"] == "full")
        #expect(gets.dropFirst().allSatisfy { $0.query["accX"]?.hasSuffix("|acc_time") == true }, "incremental")
        #expect(
            await phone.server.requests.allSatisfy { $0.headers["connection"]?.lowercased() == "close" },
            "one connection per request: phyphox's server mishandles keep-alive")
        let device = try #require(try store.receivedDevices().first)
        #expect(device.format == "phyphox" && device.samples == rows.count)
        #expect(device.device == "127.0.0.1:\(phone.url.port ?? 0)")
        #expect(
            device.dataUntil.map { abs($0.timeIntervalSince(at(61))) < 0.001 } == true,
            "a phone that stopped has sent all it measured up to the fetch")
        // Nothing new from a phone that is not measuring: NoData.
        let idle = await fetcher.fetch(now: Instant(at(120)), trigger: [.manual])
        #expect(idle.result == .noData && idle.warnings.isEmpty, "\(idle.line)")
        await phone.server.stop()
    }

    /// A pause from buffer time 20 s, resumed 30 s later: phyphox's experiment time goes on at 20 s, so samples after
    /// it belong 30 s later in wall time.
    @Test func aPauseAndResumeMovesTheSamplesAfterItByThePause() async throws {
        let (rows, _) = try Self.walk()
        let dir = try TempDir()
        let phone = try await FakePhyphox.start(rows: rows, startedAt: Self.t0)
        await phone.state.set(
            events: [
                .init(event: "START", experimentTime: 0, systemTime: Self.t0.timeIntervalSince1970),
                .init(event: "PAUSE", experimentTime: 20, systemTime: Self.t0.timeIntervalSince1970 + 20),
                .init(event: "START", experimentTime: 20, systemTime: Self.t0.timeIntervalSince1970 + 50),
            ])
        await phone.state.reveal(through: 60)
        await phone.state.set(measuring: false)
        let (fetcher, store) = try Self.fetcher(dir, url: phone.url)
        _ = await fetcher.fetch(now: Instant(at(200)), trigger: [.manual])
        #expect(try store.steps(in: TimeWindow(fromNs: ns(0), toNs: ns(20))) > 20)
        #expect(
            try store.steps(in: TimeWindow(fromNs: ns(20), toNs: ns(50))) == 0, "nothing was measured during the pause")
        #expect(try store.steps(in: TimeWindow(fromNs: ns(50), toNs: ns(90))) > 60)
        let saved = try await store.savedSource(phone.url.absoluteString)
        let lastT = try #require(rows.last?.t)
        #expect(saved.lastSample.map { abs($0.nanosecondsSinceEpoch - ns(lastT + 30)) < 1_000_000 } == true)
        await phone.server.stop()
    }

    @Test func eventTimesMapAsThePhoneMapsThemInSecondsOrMilliseconds() {
        let s = 1_800_000_000.0
        let seconds: [PhyphoxTimeEvent] = [
            .init(event: "START", experimentTime: 0, systemTime: s),
            .init(event: "PAUSE", experimentTime: 10, systemTime: s + 10),
            .init(event: "START", experimentTime: 10, systemTime: s + 25),
        ]
        let millis = seconds.map {
            PhyphoxTimeEvent(event: $0.event, experimentTime: $0.experimentTime, systemTime: $0.systemTime * 1000)
        }
        for events in [seconds, millis] {
            #expect(PhyphoxTimeEvent.wallNs(2.5, events) == Int64(s + 2.5) * 1_000_000_000 + 500_000_000)
            #expect(PhyphoxTimeEvent.wallNs(12, events) == Int64(s + 27) * 1_000_000_000)
        }
        #expect(PhyphoxTimeEvent.wallNs(1, []) == nil, "no start, no time")
    }

    /// The app reopened its measurement under another session (the same buffers and time): nothing is counted twice.
    /// Then another experiment, and a "clear": each starts over from its buffers' start.
    @Test func aNewSessionOrAClearStartsOverWithoutCountingTwice() async throws {
        let (rows, counted) = try Self.walk()
        let dir = try TempDir()
        let phone = try await FakePhyphox.start(rows: rows, startedAt: Self.t0, session: "a1")
        let (fetcher, store) = try Self.fetcher(dir, url: phone.url)
        await phone.state.reveal(through: 30)
        _ = await fetcher.fetch(now: Instant(at(31)), trigger: [.manual])
        await phone.state.set(session: "b2")
        await phone.state.reveal(through: 60)
        await phone.state.set(measuring: false)
        _ = await fetcher.fetch(now: Instant(at(61)), trigger: [.manual])
        let once = try store.steps(in: .sinceEpoch)
        #expect(abs(once - counted) <= counted / 100, "the same buffers under a new session: \(once) vs \(counted)")

        // Another experiment from 10:05: its times start at 0 again, below the threshold the next read asks for.
        await phone.state.restart(session: "c3", startedAt: at(300), forceFull: false)
        await phone.state.reveal(through: 60)
        await phone.state.set(measuring: false)
        _ = await fetcher.fetch(now: Instant(at(400)), trigger: [.manual])
        let twice = try store.steps(in: .sinceEpoch)
        #expect(abs(twice - 2 * counted) <= 2 * counted / 100, "\(twice) vs 2 × \(counted)")
        let gets = await phone.server.requests.filter { $0.path == "/get" }.suffix(2)
        #expect(gets.first?.query["acc_time"]?.hasSuffix("|acc_time") == true)
        #expect(gets.last?.query["acc_time"] == "full", "the new run is read from its start")

        // "Clear" in the same session: the buffers and /time start again; phyphox answers the next read in full.
        await phone.state.restart(session: "c3", startedAt: at(600), forceFull: true)
        await phone.state.reveal(through: 60)
        await phone.state.set(measuring: false)
        _ = await fetcher.fetch(now: Instant(at(700)), trigger: [.manual])
        let thrice = try store.steps(in: .sinceEpoch)
        #expect(abs(thrice - 3 * counted) <= 3 * counted / 100, "\(thrice) vs 3 × \(counted)")
        #expect(try store.steps(in: TimeWindow(fromNs: ns(600), toNs: ns(700))) > 100)
        await phone.server.stop()
    }

    /// NaN is `null` in phyphox's buffers: at the start of a measurement, a dropped value, a row without a time.
    @Test func nullsAreSkipped() async throws {
        var (rows, _) = try Self.walk()
        var nulls = 0
        for i in rows.indices where i < 20 || i % 500 == 250 || i % 4000 == 7 {
            if i % 4000 == 7 { rows[i].t = nil } else if i % 2 == 0 { rows[i].y = nil } else { rows[i].x = nil }
            nulls += 1
        }
        let dir = try TempDir()
        // What `count` says of the recording without the rows that have a null.
        let complete = rows.filter { $0.t != nil && $0.x != nil && $0.y != nil && $0.z != nil }
        let file = try dir.write(
            "without-nulls.csv",
            "t_s,x,y,z\n" + complete.map { "\($0.t!),\($0.x!),\($0.y!),\($0.z!)\n" }.joined())
        let counted = try RecordingCounter.count(path: file).steps
        let phone = try await FakePhyphox.start(rows: rows, startedAt: Self.t0)
        await phone.state.reveal(through: 60)
        await phone.state.set(measuring: false)
        let (fetcher, store) = try Self.fetcher(dir, url: phone.url)
        let report = await fetcher.fetch(now: Instant(at(61)), trigger: [.manual])
        #expect(report.result == .newData && report.warnings.isEmpty, "\(report.line)")
        let stored = try store.steps(in: .sinceEpoch)
        #expect(abs(stored - counted) <= counted / 100, "\(stored) vs \(counted) counted without the nulls")
        #expect(try store.receivedDevices().first?.samples == rows.count - nulls)
        await phone.server.stop()
    }

    /// An experiment with the magnitude and no axes is counted from it; one without gravity says so.
    @Test func theMagnitudeServesWithoutAxesAndAccelerationWithoutGravityIsNamed() async throws {
        let (rows, counted) = try Self.walk()
        let dir = try TempDir()
        let phone = try await FakePhyphox.start(rows: rows, startedAt: Self.t0)
        await phone.state.set(magnitudeOnly: true)
        await phone.state.reveal(through: 60)
        await phone.state.set(measuring: false)
        let (fetcher, store) = try Self.fetcher(dir, url: phone.url)
        let report = await fetcher.fetch(now: Instant(at(61)), trigger: [.manual])
        #expect(report.result == .newData && report.warnings.isEmpty, "\(report.line)")
        let stored = try store.steps(in: .sinceEpoch)
        #expect(abs(stored - counted) <= counted / 100, "\(stored) vs \(counted)")
        #expect(await phone.server.requests.last { $0.path == "/get" }?.query["acc"] == "full")

        let linear = rows.map { FakePhyphox.Row(t: $0.t, x: $0.x.map { $0 / 20 }, y: $0.y.map { $0 / 20 }, z: 0) }
        let other = try await FakePhyphox.start(rows: linear, startedAt: Self.t0)
        await other.state.reveal(through: 60)
        let otherDir = try TempDir()  // kept until the fetch is done (released earlier, its state would outlive it)
        let (second, _) = try Self.fetcher(otherDir, url: other.url)
        let warned = await second.fetch(now: Instant(at(61)), trigger: [.manual])
        #expect(warned.warnings.contains { $0.contains("Linear Acceleration") }, "\(warned.warnings)")
        withExtendedLifetime(otherDir) {}
        await phone.server.stop()
        await other.server.stop()
    }

    @Test func anUnreachablePhoneIsNoDataWithANote() async throws {
        let closed = try await LoopbackServer.start { _, _ in textResponse(200, "") }
        let url = closed.baseURL
        await closed.stop()
        let dir = try TempDir()
        let (fetcher, store) = try Self.fetcher(dir, url: url)
        let report = await fetcher.fetch(now: Instant(at(60)), trigger: [.manual])
        #expect(report.result == .noData, "\(report.line)")
        #expect(report.warnings.contains { $0.contains(url.absoluteString) && $0.contains("nothing read") })
        let saved = try await store.savedSource(url.absoluteString)
        #expect(saved.remotePosition == nil)
        #expect(try store.receivedDevices().isEmpty)
    }

    @Test(arguments: [
        (
            #"{"buffer": {"accX": {"size": 0, "updateMode": "full", "buffer": [9.8, "x"]}}, "status": {"session": "s", "measuring": true}}"#,
            "buffer.accX.buffer[1]"
        ),
        (#"{"buffer": {}}"#, "'status' is missing"),
        (
            #"{"buffer": {"light": {"size": 0, "updateMode": "full", "buffer": []}}, "status": {"session": "s", "measuring": true}}"#,
            "Acceleration with g"
        ),
        ("<html>phyphox</html>", "not phyphox's answer"),
    ])
    func aMalformedAnswerIsAWarningNamingTheURLAndTheFieldAndStoresNothing(body: String, names: String) async throws {
        let phone = try await LoopbackServer.start { request, _ in
            request.path == "/time" ? textResponse(200, "[]") : textResponse(200, body)
        }
        let dir = try TempDir()
        let (fetcher, store) = try Self.fetcher(dir, url: phone.baseURL)
        let report = await fetcher.fetch(now: Instant(at(60)), trigger: [.manual])
        #expect(report.result == .noData, "\(report.line)")
        #expect(
            report.warnings.contains { $0.contains(phone.baseURL.absoluteString) && $0.contains(names) },
            "\(report.warnings)")
        let saved = try await store.savedSource(phone.baseURL.absoluteString)
        #expect(saved.remotePosition == nil && saved.detector != nil)
        #expect(try store.receivedDevices().isEmpty && store.steps(in: .sinceEpoch) == 0)
        await phone.stop()
    }

    /// A phone that accepts the connection and never answers: the pull gives up within ingestion's share of the
    /// budget (60 % of 2 s), and the fetch ends. The budget runs on a test clock, moved once the phone holds the
    /// request: the fetch ends because its budget passed, not because real time did (no load can make it flaky).
    @Test func aPhoneThatNeverAnswersDoesNotHangTheFetch() async throws {
        let (asked, phoneHoldsARequest) = AsyncStream.makeStream(of: Void.self)
        let phone = try await LoopbackServer.start { _, _ in
            phoneHoldsARequest.yield()
            return try await neverAnswer()
        }
        let dir = try TempDir()
        let clock = TestClock<Duration>()
        let (fetcher, _) = try Self.fetcher(dir, url: phone.baseURL, deadline: "2s", clock: clock)
        let fetch = Task { await fetcher.fetch(now: Instant(at(60)), trigger: [.manual]) }
        for await _ in asked { break }
        await clock.advance(by: .seconds(2))
        let report = await fetch.value
        #expect(report.result == .noData, "\(report.line)")
        #expect(report.warnings.contains { $0.contains("no answer within the fetch's budget") }, "\(report.warnings)")
        await phone.stop()
    }

    @Test func theURLIsCheckedAndExcludesTheFileKeys() throws {
        let parse = { (source: String) in
            try AgentConfiguration.parse("[source]\n\(source)\n", file: "/tmp/config.toml", environment: [:])
        }
        let phone = try #require(try parse(#"url = "http://192.168.1.23:8080""#).source)
        #expect(phone.phyphox?.url.absoluteString == "http://192.168.1.23:8080")
        #expect(phone.phyphox?.deviceName == "192.168.1.23:8080")
        #expect(phone.isDevice && phone.follow)
        #expect(throws: ConfigurationError.self) { try parse(#"url = "phone.local:8080""#) }
        do {
            _ = try parse("url = \"http://phone.local:8080\"\nstart = \"2026-11-21T10:00:00Z\"")
            Issue.record("source.start with source.url was taken")
        } catch let error as ConfigurationError {
            #expect(error.path == "source.start")
        }
        do {
            _ = try parse("url = \"http://phone.local:8080\"\npath = \"walk.csv\"")
            Issue.record("source.url with source.path was taken")
        } catch let error as ConfigurationError {
            #expect(error.path == "source")
        }
    }
}

/// phyphox's remote interface for "Acceleration with g" on 127.0.0.1, over a recording: `/get` answers the buffers
/// up to what `reveal` has made visible (after a threshold, or in full), `/time` the start, pause and resume events.
final class FakePhyphox: Sendable {
    struct Row: Sendable {
        var t: Double?
        var x: Double?
        var y: Double?
        var z: Double?

        /// `acc`: |a|, as the experiment's own buffer.
        var magnitude: Double? {
            guard let x, let y, let z else { return nil }
            return (x * x + y * y + z * z).squareRoot()
        }
    }

    actor State {
        var rows: [Row]
        var visible = 0
        var session: String
        var measuring = true
        var events: [PhyphoxTimeEvent]
        /// After a "clear", phyphox answers the next read in full whatever it asked.
        var forceFull = false
        /// An experiment with |a| and no axes.
        var magnitudeOnly = false

        init(rows: [Row], startedAt: Date, session: String) {
            self.rows = rows
            self.session = session
            events = [.init(event: "START", experimentTime: 0, systemTime: startedAt.timeIntervalSince1970)]
        }

        func reveal(through seconds: Double) { visible = rows.prefix { ($0.t ?? 0) <= seconds }.count }
        func set(measuring: Bool) { self.measuring = measuring }
        func set(session: String) { self.session = session }
        func set(events: [PhyphoxTimeEvent]) { self.events = events }
        func set(magnitudeOnly: Bool) { self.magnitudeOnly = magnitudeOnly }

        /// The same recording measured again from `startedAt` (another session, or the same one cleared).
        func restart(session: String, startedAt: Date, forceFull: Bool) {
            self.session = session
            self.forceFull = forceFull
            visible = 0
            measuring = true
            events = [.init(event: "START", experimentTime: 0, systemTime: startedAt.timeIntervalSince1970)]
        }

        func answer(_ request: SeenRequest) -> HTTPResponse {
            if request.path == "/time" {
                return jsonResponse(
                    200,
                    events.map {
                        ["event": $0.event, "experimentTime": $0.experimentTime, "systemTime": $0.systemTime]
                            as [String: Any]
                    })
            }
            let columns: [(String, KeyPath<Row, Double?>)] =
                magnitudeOnly
                ? [("acc", \.magnitude), ("acc_time", \.t)]
                : [("accX", \.x), ("accY", \.y), ("accZ", \.z), ("acc_time", \.t)]
            var buffers: [String] = []
            for (name, column) in columns {
                guard let spec = request.query[name].map({ $0.removingPercentEncoding ?? $0 }) else { continue }
                var shown = rows.prefix(visible)
                var mode = "full"
                if spec != "full" && !forceFull {
                    // As the app: values at the indices where the reference is above the threshold (nudged past its
                    // 8 digits); NaN times are never above it.
                    let threshold = Double(spec.split(separator: "|")[0]) ?? 0
                    let nudged = threshold + pow(10, (log10(abs(threshold) / 1e7)).rounded(.down))
                    shown = shown.filter { ($0.t ?? -.infinity) > nudged }
                    mode = "partial"
                }
                let values = shown.map { row in row[keyPath: column].map { String(format: "%.7E", $0) } ?? "null" }
                buffers.append(
                    "\"\(name)\":{\"size\":0,\"updateMode\":\"\(mode)\", \"buffer\":[\(values.joined(separator: ","))]}"
                )
            }
            forceFull = false
            let body =
                "{\"buffer\":{\n\(buffers.joined(separator: ",\n"))\n},\n\"status\":{\n\"session\":\"\(session)\", \"measuring\":\(measuring), \"timedRun\":false, \"countDown\":0\n}\n}\n"
            return textResponse(200, body, headers: ["Content-Type": "application/json"])
        }
    }

    let state: State
    let server: LoopbackServer
    var url: URL { server.baseURL }

    private init(state: State, server: LoopbackServer) {
        self.state = state
        self.server = server
    }

    static func start(rows: [Row], startedAt: Date, session: String = "0f1e2d") async throws -> FakePhyphox {
        let state = State(rows: rows, startedAt: startedAt, session: session)
        let server = try await LoopbackServer.start { request, _ in await state.answer(request) }
        return FakePhyphox(state: state, server: server)
    }
}
