import Foundation
import StepDetection
import TestSupport
import Testing
import WallTimeCore

/// The detector's times are `Instant`s at its boundary (issue #46), but a state saved before keeps its keys and bare
/// nanoseconds: the agent resumes from it as it was, and saves back every value it held.
@Suite struct SavedStateTests {
    /// `fixtures/saved/detector_demo_walk_20s.json`: the state StepDetection at 496dc4d saved after 20 s of the demo
    /// walk (a bout open, windows decided), resumed and saved again (decoding clears the filter's coefficient cache),
    /// keys sorted (`make_detector_state.swift` beside it).
    static func savedState() throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: SharedData.fixture("saved/detector_demo_walk_20s.json")))
    }

    @Test func aStateSavedBeforeInstantsEncodesBackAsItWas() throws {
        let saved = try Self.savedState()
        let detector = try JSONDecoder().decode(StepDetector.self, from: saved)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        // Every key saved comes back with its value, at every depth (a later detector may add keys of its own:
        // parameters, state).
        let before = try JSONSerialization.jsonObject(with: saved)
        let after = try JSONSerialization.jsonObject(with: encoder.encode(detector))
        #expect(Self.holds(after, before))
        // The bout and the decisions byte for byte: their times under the old keys, as bare integers.
        let text = String(decoding: try encoder.encode(detector), as: UTF8.self)
        #expect(text.contains(#""bout":{"endNs":19900138000,"startNs":560146000,"steps":37}"#))
        #expect(text.contains(#""decisions":[{"endNs":10240000000,"probability":0.9811728276217371,"startNs":0}"#))
    }

    /// Whether `after` holds every key of `before` with its value, in nested objects too.
    static func holds(_ after: Any?, _ before: Any) -> Bool {
        guard let old = before as? NSDictionary else { return after as? NSObject == before as? NSObject }
        guard let new = after as? NSDictionary else { return false }
        return old.allKeys.allSatisfy { key in old[key].map { holds(new[key], $0) } ?? false }
    }

    @Test func aStateSavedBeforeInstantsHasItsTimesAsInstants() throws {
        let saved = try Self.savedState()
        let detector = try JSONDecoder().decode(StepDetector.self, from: saved)
        let json = try #require(JSONSerialization.jsonObject(with: saved) as? [String: Any])
        let lastTimeNs = try #require(json["lastTimeNs"] as? Int64)
        #expect(detector.lastSample == Instant(nanosecondsSinceEpoch: lastTimeNs))
        #expect(detector.lastSample == Instant(nanosecondsSinceEpoch: 19_985_630_000))
        let settled = try #require(detector.settled)
        #expect(settled <= detector.lastSample!)
        // The open bout, under its old keys: its steps go on from where they were, at the same times.
        let bout = try #require(json["bout"] as? [String: Any])
        #expect(bout["startNs"] as? Int64 == 560_146_000)
        #expect(bout["endNs"] as? Int64 == 19_900_138_000)
        var resumed = detector
        var ended: WalkingBout?
        resumed.finish { if case .boutEnded(let b) = $0 { ended = b } }
        #expect(ended?.start == Instant(nanosecondsSinceEpoch: 560_146_000))
        #expect(ended.map { $0.end >= Instant(nanosecondsSinceEpoch: 19_900_138_000) } == true)
    }

    @Test func aBoutAndADecisionEncodeTheirInstantsAsBareNanoseconds() throws {
        let bout = WalkingBout(
            start: Instant(nanosecondsSinceEpoch: 1_000), end: Instant(nanosecondsSinceEpoch: 2_500), steps: 3)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let text = String(decoding: try encoder.encode(bout), as: UTF8.self)
        #expect(text == #"{"endNs":2500,"startNs":1000,"steps":3}"#)
        #expect(try JSONDecoder().decode(WalkingBout.self, from: Data(text.utf8)) == bout)
        let decision = try JSONDecoder().decode(
            WalkingDecision.self, from: Data(#"{"startNs":0,"endNs":10240000000,"probability":0.5}"#.utf8))
        #expect(decision.start == .epoch)
        #expect(decision.end == Instant(nanosecondsSinceEpoch: 10_240_000_000))
        #expect(
            String(decoding: try encoder.encode(decision), as: UTF8.self)
                == #"{"endNs":10240000000,"probability":0.5,"startNs":0}"#)
    }
}
