import Foundation
import Messages
import Publishing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// phyphox's remote interface, where the phone is the server ("Allow remote access" in an experiment's menu), as the
/// Android and iOS apps serve it:
/// - `GET /get?accX=full&…` answers the named buffers and the experiment's status; `accX=12.5|acc_time` (the `|`
///   percent-encoded) answers only the values at the indices where `acc_time` is above 12.5, so reads are
///   incremental. Values have 8 significant digits (`1.2345678E1`); NaN is `null` and keeps the buffers aligned.
/// - `GET /time` answers the events that map experiment time (seconds of measuring, paused time left out) to wall
///   time: a START at each start or resume, a PAUSE at each pause, `systemTime` in seconds since the epoch. A "clear"
///   empties the buffers and the list, and experiment time starts again at 0 under the same session.
/// - Every request gets a connection of its own: the apps' small servers mishandle kept-alive connections.
struct PhyphoxInterface: Sendable {
    let base: URL
    let http: HTTPContext

    /// The buffers of "Acceleration with g" (the accelerometer with gravity, in m/s²): the axes, their magnitude (the
    /// detector's input when an experiment has no axes) and their time in seconds since the experiment started.
    /// "Linear Acceleration" names its buffers alike but leaves gravity out (`PhyphoxReading.medianMagnitude` tells).
    static let axisBuffers = ["accX", "accY", "accZ"]
    static let magnitudeBuffer = "acc"
    static let timeBuffer = "acc_time"

    /// The axes and their times after experiment time `after` (every value when nil); the magnitude instead when the
    /// experiment has no axes. Up to about 60 bytes a sample: a pull moves all that was measured since the last.
    func buffers(after: Double?, deadline: Deadline) async throws(PhyphoxError) -> PhyphoxBuffers {
        var answer = try await values(of: Self.axisBuffers + [Self.timeBuffer], after: after, deadline: deadline)
        if !Self.axisBuffers.allSatisfy({ answer.buffer[$0] != nil }) {
            answer = try await values(of: [Self.magnitudeBuffer, Self.timeBuffer], after: after, deadline: deadline)
        }
        guard answer.buffer[Self.timeBuffer] != nil,
            answer.buffer[Self.magnitudeBuffer] != nil || Self.axisBuffers.allSatisfy({ answer.buffer[$0] != nil })
        else {
            throw .malformed(
                "\(base.absoluteString): the experiment has no buffers \((Self.axisBuffers + [Self.timeBuffer]).joined(separator: ", ")) (or \(Self.magnitudeBuffer)): open \"Acceleration with g\" and allow remote access there"
            )
        }
        return answer
    }

    /// `GET /get` for `names`, each with the values where the time buffer is above `after` (all when nil). phyphox
    /// leaves out the names its experiment does not have.
    func values(of names: [String], after: Double?, deadline: Deadline) async throws(PhyphoxError) -> PhyphoxBuffers {
        let threshold = after.map { "\($0)%7C\(Self.timeBuffer)" } ?? "full"
        let url = try endpoint("get", query: names.map { "\($0)=\(threshold)" }.joined(separator: "&"))
        return try await decoded(PhyphoxBuffers.self, from: url, deadline: deadline)
    }

    /// The experiment's time reference: its start, pause and resume events, oldest first.
    /// An event whose times cannot be placed (a wall time past 2100, an experiment time of centuries) is a malformed
    /// answer, named: mapped to nanoseconds it would not fit.
    func timeReference(deadline: Deadline) async throws(PhyphoxError) -> [PhyphoxTimeEvent] {
        let url = try endpoint("time", query: nil)
        let events = try await decoded([PhyphoxTimeEvent].self, from: url, deadline: deadline)
        if let i = events.firstIndex(where: { !$0.isPlausible }) {
            throw .malformed(
                "\(url.absoluteString): not phyphox's answer: [\(i)]: systemTime \(events[i].systemTime) or "
                    + "experimentTime \(events[i].experimentTime) is not a time from 1970 to 2100")
        }
        return events
    }

    /// `path` under the base address (a base with a path, behind a proxy, keeps it).
    func endpoint(_ path: String, query: String?) throws(PhyphoxError) -> URL {
        var components = URLComponents(url: base.appendingPathComponent(path), resolvingAgainstBaseURL: false)
        components?.percentEncodedQuery = query
        guard let url = components?.url else { throw .unreachable("\(base.absoluteString)/\(path): not a URL") }
        return url
    }

    /// GETs `url` and decodes its JSON answer; every failure names the URL (and the field, for a malformed answer).
    func decoded<T: Decodable>(_ type: T.Type, from url: URL, deadline: Deadline) async throws(PhyphoxError) -> T {
        var request = URLRequest(url: url)
        request.setValue("close", forHTTPHeaderField: "Connection")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.setValue("steptweet", forHTTPHeaderField: "User-Agent")
        // Named without its query: the buffers and threshold asked would drown the reason.
        var named = URLComponents(url: url, resolvingAgainstBaseURL: false)
        named?.query = nil
        let shown = named?.url?.absoluteString ?? url.absoluteString
        switch await http.send(request, deadline: deadline) {
        case .failure(.deadline):
            throw .unreachable("\(shown): no answer within the fetch's budget")
        case .failure(.notSent(let why)), .failure(.network(let why)):
            throw .unreachable("\(shown): \(why)")
        case .success(let reply) where !(200..<300).contains(reply.status):
            throw .unreachable("\(shown): HTTP \(reply.status) (is this phyphox's remote access address?)")
        case .success(let reply):
            do {
                return try JSONDecoder().decode(type, from: reply.body)
            } catch {
                throw .malformed("\(shown): not phyphox's answer: \(describeDecodingError(error))")
            }
        }
    }
}

/// Why a pull read nothing. Either way the fetch goes on: the phone keeps its buffers, and the next fetch reads them.
enum PhyphoxError: Error, Sendable, Equatable {
    /// No answer: the phone is out of reach, asleep, or its experiment closed (connection refused, a timeout, HTTP
    /// errors).
    case unreachable(String)
    /// An answer that is not what phyphox sends, naming the field.
    case malformed(String)

    var description: String {
        switch self {
        case .unreachable(let why), .malformed(let why): return why
        }
    }
}

/// The answer of `GET /get`: the buffers asked for that the experiment has (it leaves unknown names out) and its
/// status.
struct PhyphoxBuffers: Decodable, Sendable {
    struct Buffer: Decodable, Sendable {
        /// `full` (every value), `partial` (the values after the threshold) or `single`. The next request after a
        /// "clear" gets `full` whatever it asked.
        var updateMode: String
        /// The values; `null` (NaN) where the sensor had none.
        var buffer: [Double?]
    }
    struct Status: Decodable, Sendable {
        /// A new value for each experiment opened with remote access on: its buffers and time start anew.
        var session: String
        var measuring: Bool
    }
    var buffer: [String: Buffer]
    var status: Status

    /// Whether every buffer answered holds every value (asked `full`, or forced after a "clear").
    var isFull: Bool { buffer.values.allSatisfy { $0.updateMode == "full" } }
}

/// One event of `GET /time`: at `experimentTime` (s of measuring) the experiment started, resumed (START) or paused
/// (PAUSE), at the phone's wall time `systemTime`.
struct PhyphoxTimeEvent: Codable, Sendable, Equatable {
    var event: String
    var experimentTime: Double
    /// Seconds since the epoch as the apps send it (Android: milliseconds / 1000); a value too large to be seconds is
    /// taken as milliseconds.
    var systemTime: Double

    /// `systemTime` in seconds since the epoch.
    var systemSeconds: Double { systemTime > 1e11 ? systemTime / 1000 : systemTime }

    /// `systemTime` in nanoseconds since the epoch.
    var systemNs: Int64 { Int64((systemSeconds * 1e9).rounded()) }

    /// The longest experiment time taken (s): some 30 years.
    static let longestExperiment = 1e9

    /// Whether its times can be placed in nanoseconds: a wall time from 1970 to 2100, an experiment time within
    /// `longestExperiment`.
    var isPlausible: Bool {
        (0...4_102_444_800).contains(systemSeconds) && abs(experimentTime) <= Self.longestExperiment
    }

    /// Wall time (ns since the epoch) of experiment time `t` (s) under `events`: from the last event at or before `t`,
    /// as phyphox's own ExperimentTimeReference maps it, so samples after a resume move by the length of the pause.
    /// Nil without events (before the first start, or after a "clear").
    static func wallNs(_ t: Double, _ events: [PhyphoxTimeEvent]) -> Int64? {
        guard var reference = events.first else { return nil }
        for event in events.dropFirst() where event.experimentTime <= t { reference = event }
        // A buffer time of centuries (1e300) is no time: its nanoseconds would not fit.
        guard abs(t - reference.experimentTime) <= Self.longestExperiment, reference.isPlausible else { return nil }
        return reference.systemNs + Int64(((t - reference.experimentTime) * 1e9).rounded())
    }
}
