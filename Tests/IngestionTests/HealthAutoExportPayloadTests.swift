import Foundation
import SensorInput
import TestSupport
import Testing
import WallTime

@testable import Ingestion
@testable import SensorInput

@Suite struct HealthAutoExportPayloadTests {
    typealias T = PayloadTesting
    let minute: Int64 = 60_000_000_000

    /// A body with one `step_count` metric of `points` (each a JSON object's members).
    func body(_ points: [String], units: String = "\"count\"") -> String {
        "{\"data\":{\"metrics\":[{\"name\":\"step_count\",\"units\":\(units),\"data\":[\(points.map { "{\($0)}" }.joined(separator: ","))]}]}}"
    }

    func point(_ date: String, _ qty: String, _ source: String = "Taro's iPhone") -> String {
        "\"date\":\"\(date)\",\"qty\":\(qty),\"source\":\"\(source)\""
    }

    @Test func theRealSamplesAreRecognisedAndTheirMetricsListedAsIgnored() throws {
        let expected = [
            "metrics.json": ["metric active_energy (2 points)", "metric basal_body_temperature (0 points)"],
            "workouts.json": ["1 workout"],
            "aggregated_sleep_analysis.json": ["metric sleep_analysis (1 point)"],
            "aggregated_sleep_analysis_HAE-6.6.2.json": ["metric sleep_analysis (1 point)"],
            "non-aggregated_sleep_analysis.json": ["metric sleep_analysis (1 point)"],
        ]
        for (file, ignored) in expected {
            let path = SharedData.fixture("push/health-auto-export/captured/" + file)
            let payload = try PushApps.parse(body: Data(contentsOf: URL(fileURLWithPath: path)))
            #expect(payload.format == "health-auto-export", "\(file)")
            #expect(payload.items.isEmpty && !payload.isTest, "\(file)")
            #expect(payload.ignored == ignored, "\(file)")
        }
    }

    @Test func minutesOfPhoneAndWatchAreTwoDevicesAndOtherDataIsIgnored() throws {
        let payload = try T.parseFixture("health-auto-export/step_count_minutes.json")
        let items = T.replacing(payload)
        #expect(items.count == 12)
        #expect(Set(items.map(\.device)) == ["Taro's iPhone", "Taro's Apple Watch"])
        let first = try #require(items.first)
        // 2026-11-21 10:00:00 +0900, a minute long, 12 steps.
        #expect(
            first.reading
                == StepReading(
                    start: Instant(nanosecondsSinceEpoch: 1_795_222_800_000_000_000),
                    end: Instant(nanosecondsSinceEpoch: 1_795_222_860_000_000_000), steps: 12))
        #expect(first.micro == 12_000_000)
        #expect(items.allSatisfy { $0.reading.endNs - $0.reading.startNs == minute })
        #expect(payload.ignored == ["metric heart_rate (1 point)", "1 workout"])
    }

    @Test func everyDocumentedDateFormGivesTheSameInstant() throws {
        let morning: Int64 = 1_726_869_420_000_000_000  // 2024-09-21 07:57:00 +1000
        let forms = [
            "2024-09-21 07:57:00 +1000", "2024-09-21 7:57:00 am +1000", "2024-09-21 7:57:00 AM +1000",
            "2024-09-21 7:57:00\u{202F}AM +1000", "2024-09-21 7:57:00\u{202F}am +1000",
            "2024-09-21 7:57:00\u{A0}am +1000",
            "2024-09-21 7:57:00 a.m. +1000", "2024-09-21 07:57:00 +10:00", "2024-09-21T07:57:00+1000",
            "2024-09-20 21:57:00 Z", "2024-09-20 16:57:00 -0500",
        ]
        for form in forms {
            let parsed = HealthAutoExportDate.parse(form)
            #expect(parsed?.ns == morning, "\(form)")
        }
        #expect(HealthAutoExportDate.parse("2024-09-21 7:57:00 pm +1000")?.ns == morning + 43_200_000_000_000)
        #expect(HealthAutoExportDate.parse("2024-09-21 12:30:00 am +1000")?.ns == 1_726_842_600_000_000_000)
        #expect(HealthAutoExportDate.parse("2024-09-21 12:00:00\u{202F}PM +1000")?.ns == 1_726_884_000_000_000_000)
        #expect(HealthAutoExportDate.parse("2024-09-21 7:57:00 am -0930")?.offsetSeconds == -34_200)
        let refused = [
            "2024-13-01 10:00:00 +0900", "2024-02-30 10:00:00 +0900", "2023-02-29 10:00:00 +0900",
            "2024-09-21 13:00:00 pm +1000", "2024-09-21 0:30:00 am +1000", "2024-09-21 07:57:00",
            "2024-09-21 24:00:00 +1000", "2024-09-21 07:60:00 +1000", "2024-09-21 07:57:00 +1900", "2024-09-21",
            "2024-09-21 07:57:00 +1000 x", "", "2024-09-21 07:57:00 xm +1000",
        ]
        for text in refused { #expect(HealthAutoExportDate.parse(text) == nil, "\(text)") }
    }

    /// Its offset is read as every format reads one (`TimeParsing.utcOffset`, as RFC 3339 text in a CSV or from
    /// Health Connect), within ±18:00.
    @Test func itsOffsetIsReadAsEveryFormatReadsOne() throws {
        for zone in ["Z", "z", "+05:30", "+0530", "+05", "-09:30", "+14:00", "-12:00", "+05:99", "+5:30", "+24:00"] {
            let shared = TimeParsing.parseDateTime("2024-09-21T07:57:00\(zone)")?.ns
            #expect(HealthAutoExportDate.parse("2024-09-21 07:57:00 \(zone)")?.ns == shared, "\(zone)")
        }
        #expect(TimeParsing.parseDateTime("2024-09-21T07:57:00+19:00")?.hadZone == true)
        #expect(HealthAutoExportDate.parse("2024-09-21 07:57:00 +19:00") == nil)
    }

    @Test func aResendInAnotherDateFormHasTheSameKeyAndDevice() throws {
        let a = try T.parse(body([point("2026-11-21 13:05:00 +0900", "88", "Taro's iPhone|Taro’s Apple Watch")]))
        let b = try T.parse(
            body([point("2026-11-21 1:05:00\u{202F}PM +0900", "91", "Taro’s Apple Watch|Taro's iPhone")]))
        let c = try T.parse(body([point("2026-11-21 04:05:00 +0000", "93", " Taro's Apple Watch | Taro's iPhone")]))
        let keys = [a, b, c].map { T.replacing($0).map { "\($0.device) \($0.key)" } }
        #expect(keys[0] == keys[1] && keys[1] == keys[2])
        #expect(keys[0] == ["Taro's Apple Watch|Taro's iPhone step_count \(1_795_233_900_000_000_000 as Int64)"])
    }

    @Test func twelveHourFixtureReadsEveryFormAndEachOffset() throws {
        let items = T.replacing(try T.parseFixture("health-auto-export/step_count_12h.json"))
        #expect(
            items.map(\.reading.startNs) == [
                1_795_229_880_000_000_000, 1_795_229_940_000_000_000, 1_795_230_000_000_000_000,
                1_795_230_060_000_000_000, 1_795_233_720_000_000_000, 1_795_275_000_000_000_000,
                1_795_275_060_000_000_000,  // 01:31 at +1000, the travelling phone: 00:31 at +0900
            ])
        #expect(items.allSatisfy { $0.reading.endNs - $0.reading.startNs == minute })
    }

    @Test func aggregatedSourcesInAnyOrderAreOneDeviceAndFractionsStayExact() throws {
        let payload = try T.parseFixture("health-auto-export/step_count_hourly_aggregated.json")
        let items = T.replacing(payload)
        #expect(
            items.map(\.device) == [
                "Taro's Apple Watch|Taro's iPhone", "Taro's Apple Watch|Taro's iPhone", "Taro's iPhone",
                "Taro's Apple Watch|Taro's iPhone",
            ])
        #expect(items.map(\.micro) == [1_204_566_173, 310_250_000, 1_566_173, 2_200_000])
        #expect(items.map(\.reading.steps) == [1205, 310, 2, 2])
        #expect(items.allSatisfy { $0.reading.endNs - $0.reading.startNs == 60 * minute })
        #expect(payload.ignored.isEmpty)  // "workouts": [] beside "data", the old layout
    }

    @Test func fractionsAreSummedBeforeRounding() throws {
        let points = (8...10).map { point("2026-11-21 \($0):00:00 +0900", "0.4") }
        let items = T.replacing(try T.parse(body(points)))
        #expect(items.map(\.reading.steps) == [0, 0, 0])
        #expect(wholeSteps(microsteps: items.map(\.micro).reduce(0, +)) == 1)
        #expect(DecimalText.microunits("1.5661734416503") == 1_566_173)
        #expect(DecimalText.microunits("0.0000005") == 1)
        #expect(DecimalText.microunits("0.00000049999") == 0)
        #expect(DecimalText.microunits("12e3") == 12_000_000_000)
        #expect(DecimalText.microunits("1.25E-1") == 125_000)
        #expect(DecimalText.microunits("-0") == 0)
        #expect(DecimalText.microunits("-1") == nil)
        #expect(DecimalText.microunits("1e300") == nil)
        #expect(DecimalText.microunits("99999999999999") == nil)
    }

    @Test func theIntervalIsInferredFromThePoints() throws {
        func lengths(_ points: [String]) throws -> [Int64] {
            T.replacing(try T.parse(body(points))).map { ($0.reading.endNs - $0.reading.startNs) / 1_000_000_000 }
        }
        #expect(try lengths([point("2026-11-21 10:37:00 +0900", "50")]) == [60])  // a lone minute
        #expect(try lengths([point("2026-11-21 10:00:00 +0900", "50")]) == [60])  // fits a minute
        #expect(try lengths([point("2026-11-21 10:00:00 +0900", "500")]) == [3600])  // too many for a minute
        #expect(try lengths([point("2026-11-21 00:00:00 +0900", "9000")]) == [86_400])  // today, aggregated by day
        #expect(try lengths([point("2026-11-21 00:00:00 +0900", "12")]) == [86_400])
        // not at midnight: at most an hour
        #expect(try lengths([point("2026-11-21 10:00:00 +0900", "9000")]) == [3600])
        let days = [point("2026-03-08 00:00:00 -0500", "4000"), point("2026-03-09 00:00:00 -0400", "10")]
        #expect(try lengths(days) == [86_400, 86_400])  // 23 h apart: the clocks went forward
        let hours = [point("2026-11-21 08:00:00 +0900", "5"), point("2026-11-21 11:00:00 +0900", "7")]
        #expect(try lengths(hours) == [3600, 3600])
        let minutes = [point("2026-11-21 08:00:00 +0900", "5"), point("2026-11-21 08:01:00 +0900", "7")]
        #expect(try lengths(minutes) == [60, 60])
        // Starts 318 years apart (more ns than an Int64 holds): found by the fuzzer.
        let centuries = [point("1708-11-21 10:00:00 +0900", "1"), point("2026-11-21 10:01:00 +0900", "2")]
        #expect(try lengths(centuries) == [60, 60])
        let offMinute = [point("2026-11-21 08:00:10 +0900", "5"), point("2026-11-21 09:00:00 +0900", "7")]
        #expect(try lengths(offMinute) == [60, 60])
        let explicit =
            "\"startDate\":\"2026-11-21 08:00:00 +0900\",\"endDate\":\"2026-11-21 08:04:30 +0900\",\"qty\":40"
        #expect(try lengths([explicit]) == [270])
    }

    /// A point (or a step metric) that cannot be read is left out and named, the good points beside it kept; a
    /// body without the layout is refused whole.
    @Test func aBadPointIsLeftOutAndNamedAndTheRestKept() throws {
        let good = point("2026-11-21 10:00:00 +0900", "12")
        let bad = body([good, point("2024-13-01 10:00:00 +0900", "3")])
        let e = try #require(T.error(bad))
        #expect(e.format == "health-auto-export")
        let kept = try T.parse(bad)
        #expect(T.replacing(kept).map(\.micro) == [12_000_000] && kept.refusedCount == 1)
        #expect(kept.refused.first?.device == "Taro's iPhone")
        #expect(
            e.description
                == "data.metrics[0].data[1].date: \"2024-13-01 10:00:00 +0900\" is not a date (expected yyyy-MM-dd HH:mm:ss Z, 12-hour forms accepted)"
        )
        let cases: [(String, String)] = [
            (body([good, "\"date\":\"2026-11-21 10:01:00 +0900\",\"qty\":\"12\""]), "data.metrics[0].data[1].qty"),
            (body([point("2026-11-21 10:00:00 +0900", "-3")]), "data.metrics[0].data[0].qty"),
            (body([point("2026-11-21 10:00:00 +0900", "1e300")]), "data.metrics[0].data[0].qty"),
            (body([point("2026-11-21 10:00:00 +0900", "null")]), "data.metrics[0].data[0].qty"),
            (body(["\"qty\":3"]), "data.metrics[0].data[0].date"),
            (body(["\"date\":17,\"qty\":3"]), "data.metrics[0].data[0].date"),
            (
                body([good, "\"date\":\"2026-11-21 10:01:00 +0900\",\"qty\":1,\"source\":[]"]),
                "data.metrics[0].data[1].source"
            ),
            (body([good], units: "\"km\""), "data.metrics[0].units"),
            (
                body(["\"startDate\":\"2026-11-21 10:00:00 +0900\",\"endDate\":\"2026-11-21 09:00:00 +0900\",\"qty\":1"]
                ),
                "data.metrics[0].data[0].endDate"
            ),
            ("{\"data\":{\"metrics\":[{\"units\":\"count\",\"data\":[]}]}}", "data.metrics[0].name"),
            ("{\"data\":{\"metrics\":{}}}", "data.metrics"),
            ("{\"data\":{\"metrics\":[{\"name\":\"step_count\",\"data\":{}}]}}", "data.metrics[0].data"),
            ("{\"data\":{\"metrics\":[7]}}", "data.metrics[0]"),
            ("{\"data\":{\"metrics\":[],\"workouts\":5}}", "data.workouts"),
        ]
        for (text, path) in cases {
            #expect(T.error(text)?.path == path, "\(text)")
        }
        #expect(
            T.error(body([good, "\"date\":\"2026-11-21 10:01:00 +0900\",\"qty\":\"12\""]))?.message
                == "expected a count of steps (a number from 0 to 4.5 billion), found a string (\"12\")")
    }

    @Test func otherArraysAndTheOldWorkoutsLayoutAreListed() throws {
        let text = """
            {"data": {"metrics": [], "stateOfMind": [{"kind": "momentaryEmotion"}, {"kind": "dailyMood"}], "ecg": []},
             "workouts": [{"name": "Walking"}, {"name": "Cycling"}]}
            """
        let payload = try T.parse(text)
        #expect(payload.format == "health-auto-export")
        #expect(payload.ignored == ["stateOfMind (2 entries)", "2 workouts"])
    }
}
