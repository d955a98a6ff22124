// Times `PushApps.parse` (Ingestion's push apps, compiled into it with -O) on the bodies issue 34 names: a month of Health Auto
// Export minute points in one request (43,200 points), and a Sensor Logger 1 s batch at 100 Hz (accelerometer +
// gravity, 200 readings, shuffled); also a 1 s batch of Android totalacceleration. Built and run by
// bench/payload_speed.sh. Prints the body size, the items out, and per-parse wall times (min, median, p99).
import Foundation
import SensorInput

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// 43,200 minute points from one phone, dates as the app writes them, counts as an iPhone records them.
func healthAutoExportMonth() -> Data {
    var seed: UInt64 = 34
    var points: [String] = []
    points.reserveCapacity(43_200)
    for i in 0..<43_200 {
        seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        let day = 1 + i / 1440
        let hour = i / 60 % 24
        let minute = i % 60
        let qty = Int(seed >> 57)  // 0-127
        let date = String(format: "2026-11-%02d %02d:%02d:00 +0900", day, hour, minute)
        points.append("{ \"date\" : \"\(date)\", \"qty\" : \(qty), \"source\" : \"Taro’s iPhone\" }")
    }
    let body =
        "{ \"data\" : { \"metrics\" : [ { \"name\" : \"step_count\", \"units\" : \"count\", \"data\" : [\n"
        + points.joined(separator: ",\n") + "\n] } ], \"workouts\" : [ ] } }\n"
    return Data(body.utf8)
}

/// One second at 100 Hz of `sensors` (each a reading per 10 ms), shuffled as the app sends them.
func sensorLoggerSecond(_ sensors: [String]) -> Data {
    var readings: [String] = []
    let t0: Int64 = 1_698_501_144_401_773_000
    for i in 0..<100 {
        let t = t0 + Int64(i) * 10_000_000
        let phase = Double(i) / 100 * 2 * Double.pi
        for sensor in sensors {
            let (x, y, z) =
                sensor == "gravity"
                ? (0.4123456789012345, 9.7012345678901234, 0.9876543210987654)
                : (sin(phase) * 1.234567890123, cos(phase) * 2.345678901234, sin(2 * phase) * 0.987654321098)
            readings.append(
                "{\"name\":\"\(sensor)\",\"time\":\(t),\"values\":{\"x\":\(x),\"y\":\(y),\"z\":\(z)}}")
        }
    }
    var generator = SystemRandomNumberGenerator()
    readings.shuffle(using: &generator)
    return Data(
        ("{\"messageId\":27,\"sessionId\":\"5f0c3b1e-7d2a-4e51-9b8e-1a2b3c4d5e6f\","
            + "\"deviceId\":\"0a9b8c7d-6e5f-4a3b-2c1d-0e9f8a7b6c5d\",\"payload\":[" + readings.joined(separator: ",")
            + "]}").utf8)
}

func time(_ label: String, _ body: Data, runs: Int) throws {
    var times: [UInt64] = []
    var items = 0
    for run in 0..<runs + max(1, runs / 10) {  // the first tenth warms up
        let start = now()
        let payload = try PushApps.parse(body: body)
        let elapsed = now() - start
        items = payload.items.count
        if run >= max(1, runs / 10) { times.append(elapsed) }
    }
    times.sort()
    func ms(_ ns: UInt64) -> String { String(format: "%.3f ms", Double(ns) / 1e6) }
    print(
        "\(label): \(body.count) bytes, \(items) items; \(runs) parses: min \(ms(times[0])), median "
            + "\(ms(times[times.count / 2])), p99 \(ms(times[times.count * 99 / 100]))")
}

try time("health-auto-export month (43,200 minute points)", healthAutoExportMonth(), runs: 20)
try time(
    "sensor-logger 1 s at 100 Hz, accelerometer + gravity", sensorLoggerSecond(["accelerometer", "gravity"]),
    runs: 20_000)
try time("sensor-logger 1 s at 100 Hz, totalacceleration", sensorLoggerSecond(["totalacceleration"]), runs: 20_000)
