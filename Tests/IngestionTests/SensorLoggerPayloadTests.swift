import Foundation
import TestSupport
import Testing

@testable import Ingestion
@testable import SensorInput

@Suite struct SensorLoggerPayloadTests {
    typealias T = PayloadTesting
    let stream = "0a9b8c7d-6e5f-4a3b-2c1d-0e9f8a7b6c5d/5f0c3b1e-7d2a-4e51-9b8e-1a2b3c4d5e6f"

    /// A message of `readings` (each a JSON object) from device `d`, session `s`.
    func message(_ readings: [String], device: String = "d", session: String = "s") -> String {
        "{\"messageId\":1,\"sessionId\":\"\(session)\",\"deviceId\":\"\(device)\",\"payload\":[\(readings.joined(separator: ","))]}"
    }

    func xyz(_ name: String, _ time: Int64, _ x: String, _ y: String = "0", _ z: String = "0") -> String {
        "{\"name\":\"\(name)\",\"time\":\(time),\"values\":{\"x\":\(x),\"y\":\(y),\"z\":\(z)}}"
    }

    @Test func androidTotalAccelerationComesOutSortedWithItsPedometer() throws {
        let payload = try T.parseFixture("sensor-logger/android_totalacceleration.json")
        #expect(payload.format == "sensor-logger" && !payload.isTest)
        let samples = try #require(T.samples(payload)[stream])
        #expect(samples.count == 100)
        #expect(zip(samples, samples.dropFirst()).allSatisfy { $0.timeNs < $1.timeNs })
        // The walk's first sample of second 10, as the app prints times: float64 digits, then zeros.
        #expect(samples.first?.timeNs == 1_505_898_010_000_623_000)
        let totals = payload.items.compactMap { item -> Int? in
            if case .runningTotal(_, _, _, let total) = item { return total }
            return nil
        }
        #expect(totals == [17, 19])
        #expect(payload.ignored == ["gyroscope (10 readings)"])
    }

    @Test func iOSAccelerometerPlusGravityAndUncalibratedGiveTheSameSamples() throws {
        let total = try #require(T.samples(try T.parseFixture("sensor-logger/android_totalacceleration.json"))[stream])
        let paired = try T.parseFixture("sensor-logger/ios_accelerometer_gravity.json")
        let uncalibrated = try T.parseFixture("sensor-logger/ios_uncalibrated_g.json")
        for payload in [paired, uncalibrated] {
            let samples = try #require(T.samples(payload)[stream])
            #expect(samples.map(\.timeNs) == total.map(\.timeNs))
            for (a, b) in zip(samples, total) {
                #expect(abs(a.x - b.x) < 1e-9 && abs(a.y - b.y) < 1e-9 && abs(a.z - b.z) < 1e-9)
            }
        }
        #expect(paired.ignored == ["location (1 reading)"])
        #expect(uncalibrated.ignored.isEmpty)
    }

    @Test func uncalibratedInMetersPerSecondSquaredStaysSo() throws {
        let readings = (0..<10).map {
            xyz("accelerometeruncalibrated", 1_700_000_000_000_000_000 + $0 * 10_000_000, "9.7", "0.5")
        }
        let samples = try #require(T.samples(try T.parse(message(readings)))["d/s"])
        #expect(samples.allSatisfy { $0.x == 9.7 && $0.y == 0.5 })
        let inG = (0..<10).map { xyz("accelerometeruncalibrated", 1_700_000_000_000_000_000 + $0 * 10_000_000, "0.99") }
        let converted = try #require(T.samples(try T.parse(message(inG)))["d/s"])
        #expect(converted.allSatisfy { abs($0.x - 0.99 * 9.80665) < 1e-12 })
    }

    @Test func accelerometerAndGravityPairWithinAMicrosecondOnly() throws {
        let t: Int64 = 1_700_000_000_000_000_000
        let readings = [
            xyz("accelerometer", t, "1"), xyz("gravity", t + 256, "9"),  // one float64 step apart: the same time
            xyz("accelerometer", t + 10_000_000, "2"), xyz("gravity", t + 10_002_000, "9"),  // 2 µs: not
            xyz("gravity", t + 20_000_000, "9"), xyz("accelerometer", t + 20_000_000 - 1_000, "3"),
        ]
        let payload = try T.parse(message(readings))
        let samples = try #require(T.samples(payload)["d/s"])
        #expect(samples.map(\.timeNs) == [t, t + 19_999_000])
        #expect(samples.map(\.x) == [10, 12])
        #expect(payload.ignored == ["accelerometer: 1 reading without gravity at the same time"])
    }

    @Test func unsortedMixedAndRepeatedReadingsComeOutSortedOnce() throws {
        let t: Int64 = 1_700_000_000_000_000_000
        var readings = (0..<20).map { xyz("totalacceleration", t + Int64($0) * 10_000_000, "\($0)", "9.8") }
        readings += [xyz("gyroscope", t, "0.1"), readings[3], readings[7], xyz("magnetometer", t, "20")]
        var random = SeededRandom(seed: 34)
        readings.shuffle(using: &random)
        let payload = try T.parse(message(readings))
        let samples = try #require(T.samples(payload)["d/s"])
        #expect(samples.map(\.x) == (0..<20).map(Double.init))
        #expect(
            payload.ignored == [
                "totalacceleration: 2 repeated readings (same time)", "gyroscope (1 reading)",
                "magnetometer (1 reading)",
            ])
        // Two devices or two sessions are separate streams.
        let other = try T.parse(message([readings[0]], device: "e", session: "s2"))
        #expect(T.samples(other).keys.sorted() == ["e/s2"])
    }

    @Test func preferenceIsTotalThenPairThenUncalibrated() throws {
        let t: Int64 = 1_700_000_000_000_000_000
        let all = [
            xyz("totalacceleration", t, "1"), xyz("accelerometer", t, "2"), xyz("gravity", t, "3"),
            xyz("accelerometeruncalibrated", t, "4"),
        ]
        let a = try T.parse(message(all))
        #expect(T.samples(a)["d/s"]?.map(\.x) == [1])
        #expect(
            a.ignored == [
                "accelerometer (1 reading), gravity (1 reading), accelerometeruncalibrated (1 reading): totalacceleration used instead"
            ])
        let b = try T.parse(message(Array(all.dropFirst())))
        #expect(T.samples(b)["d/s"]?.map(\.x) == [5])
        let c = try T.parse(message([all[1]]))
        #expect(c.items.isEmpty)
        #expect(c.ignored == ["accelerometer (1 reading): no acceleration with gravity can be made of it alone"])
    }

    @Test func nullValuesAndAbsurdSamplesAreLeftOutAndListed() throws {
        let t: Int64 = 1_700_000_000_000_000_000
        let readings = [
            xyz("totalacceleration", t, "null"), xyz("totalacceleration", t + 1, "600"),
            xyz("totalacceleration", t + 2, "9.8"),
        ]
        let payload = try T.parse(message(readings))
        #expect(T.samples(payload)["d/s"]?.map(\.timeNs) == [t + 2])
        #expect(payload.ignored == ["totalacceleration: 1 reading with null values", "1 sample over 50 g"])
    }

    @Test func theTestMessageIsATest() throws {
        let payload = try T.parseFixture("sensor-logger/test.json")
        #expect(payload.isTest && payload.items.isEmpty)
        #expect(try T.parse("{\"payload\":[{\"name\":\"test\",\"time\":1,\"values\":{}}],\"messageId\":0}").isTest)
    }

    @Test func pedometerTotalsAreSortedAndChecked() throws {
        let t: Int64 = 1_700_000_000_000_000_000
        let step = { (time: Int64, steps: String) in
            "{\"name\":\"pedometer\",\"time\":\(time),\"values\":{\"steps\":\(steps)}}"
        }
        let payload = try T.parse(message([step(t + 2, "9"), step(t, "4"), step(t + 1, "6.0")]))
        #expect(
            payload.items
                == [4, 6, 9].enumerated().map {
                    .runningTotal(device: "d", stream: "s", timeNs: t + Int64($0), total: $1)
                })
        #expect(T.error(message([step(t, "-1")]))?.path == "payload[0].values.steps")
        #expect(T.error(message([step(t, "2.5")]))?.path == "payload[0].values.steps")
        #expect(
            T.error(message(["{\"name\":\"pedometer\",\"time\":\(t),\"values\":{}}"]))?.path
                == "payload[0].values.steps")
    }

    /// A reading that cannot be read is left out, named, and the good one beside it kept; a message without its
    /// device or session is refused whole.
    @Test func aBadReadingIsLeftOutAndNamedAndABadMessageRefusedWhole() throws {
        let t: Int64 = 1_700_000_000_000_000_000
        let good = xyz("totalacceleration", t, "9.8")
        let cases: [(String, String, String)] = [
            (
                message([good, xyz("totalacceleration", t + 1, "\"1\"")]), "payload[1].values.x",
                "expected a finite number, found a string (\"1\")"
            ),
            (
                message([good, xyz("gravity", t + 1, "1", "true")]), "payload[1].values.y",
                "expected a finite number, found true"
            ),
            (
                message([good, xyz("totalacceleration", t + 1, "1e999")]), "payload[1].values.x",
                "expected a finite number, found the number 1e999"
            ),
            (
                message([good, "{\"name\":\"totalacceleration\",\"time\":\(t),\"values\":{\"x\":1,\"y\":2}}"]),
                "payload[1].values.z", "missing"
            ),
            (
                message([good, "{\"name\":\"pedometer\",\"time\":\"now\",\"values\":{\"steps\":1}}"]),
                "payload[1].time",
                "expected a whole number, found a string (\"now\")"
            ),
            (
                message([good, "{\"name\":\"pedometer\",\"time\":-5,\"values\":{\"steps\":1}}"]), "payload[1].time",
                "-5 is not a time in ns between 1970 and 2100"
            ),
            (
                message([good, "{\"name\":\"pedometer\",\"time\":1e30,\"values\":{\"steps\":1}}"]), "payload[1].time",
                "expected a whole number, found the number 1e30"
            ),
            (message([good, "{\"time\":\(t)}"]), "payload[1].name", "missing"),
            (message([good, "[]"]), "payload[1]", "expected an object, found an array of 0"),
            (message([good], device: ""), "deviceId", "empty"),
            ("{\"sessionId\":\"s\",\"payload\":[\(good)]}", "deviceId", "missing"),
            (
                "{\"deviceId\":\"d\",\"sessionId\":7,\"payload\":[\(good)]}", "sessionId",
                "expected a string, found the number 7"
            ),
        ]
        for (text, path, message) in cases {
            let e = T.error(text)
            #expect(e?.path == path, "\(text)")
            #expect(e?.message == message, "\(text)")
            #expect(e?.format == "sensor-logger", "\(text)")
            if path.hasPrefix("payload[1]") {
                let payload = try T.parse(text)
                #expect(payload.refusedCount == 1 && payload.refused.first?.device == "d", "\(text)")
                #expect(T.samples(payload)["d/s"]?.map(\.timeNs) == [t], "the good reading is kept: \(text)")
            }
        }
        // A sensor that is not used is not read: its time is not checked.
        let gyroscope = try T.parse(message([good, "{\"name\":\"gyroscope\",\"time\":\"now\",\"values\":{}}"]))
        #expect(gyroscope.refusedCount == 0 && gyroscope.ignored == ["gyroscope (1 reading)"])
    }

    /// A reading whose values sit beside its name (no `values` object, as some senders flatten it) is read, and a
    /// bad value in it is named where it is: `payload[1].x`, not a `values.x` the message does not have.
    @Test func aFlatReadingsBadValueIsNamedWhereItIs() throws {
        let t: Int64 = 1_700_000_000_000_000_000
        let flat = { (time: Int64, x: String) in
            "{\"name\":\"totalacceleration\",\"time\":\(time),\"x\":\(x),\"y\":0,\"z\":0}"
        }
        let pedometer = "{\"name\":\"pedometer\",\"time\":\(t + 2),\"steps\":-1}"
        let text = message([flat(t, "9.8"), flat(t + 1, "\"oops\""), pedometer])
        let payload = try T.parse(text)
        #expect(payload.refused.map(\.path) == ["payload[1].x", "payload[2].steps"])
        #expect(T.samples(payload)["d/s"]?.map(\.timeNs) == [t], "the good flat reading is kept")
    }

    @Test func timesWrittenAsFloatsAreRead() throws {
        let payload = try T.parse(
            message([
                "{\"name\":\"totalacceleration\",\"time\":1.6985011444017731e18,\"values\":{\"x\":0,\"y\":0,\"z\":9.8}}"
            ]))
        #expect(T.samples(payload)["d/s"]?.first?.timeNs == 1_698_501_144_401_773_056)
    }
}
