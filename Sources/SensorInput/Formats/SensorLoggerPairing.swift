import Foundation
import StepDetection
import WallTime

/// Sensor Logger's acceleration without gravity paired with its gravity: shared by the pushed messages (Ingestion's
/// `SensorLoggerApp`) and the exported `Accelerometer.csv` (`SensorLoggerGravity`).
///
/// Pairing `accelerometer` with `gravity`: both halves of one device-motion update carry the same time, written as
/// a float64 prints (about 256 ns apart at today's epoch, so one instant may print a digit or two differently).
/// "The same time" is therefore within `sameTimeNs` = 1 µs: four float64 steps, far below any sensor period (1 ms
/// at 1 kHz), so it never pairs two different updates. An accelerometer reading without a gravity reading that
/// close is left out and counted; each gravity reading pairs once.
package enum SensorLoggerAcceleration {
    package static let sameTimeNs: Int64 = 1_000

    /// One reading's acceleration.
    package struct Vector {
        package var x, y, z: Double

        package init(x: Double, y: Double, z: Double) {
            self.x = x
            self.y = y
            self.z = z
        }
    }

    /// A vector and its reading's time.
    package struct Timed {
        package var timeNs: Int64
        package var v: Vector

        package init(timeNs: Int64, v: Vector) {
            self.timeNs = timeNs
            self.v = v
        }
    }

    /// Each accelerometer reading plus the gravity reading at the same time (both sorted by time), and how many
    /// accelerometer readings had none.
    package static func pairs(_ linear: [Timed], _ gravity: [Timed]) -> ([AccelerationSample], unpaired: Int) {
        var out: [AccelerationSample] = []
        out.reserveCapacity(linear.count)
        var j = 0
        for a in linear {
            while j < gravity.count, gravity[j].timeNs < a.timeNs - sameTimeNs { j += 1 }
            if j < gravity.count, abs(gravity[j].timeNs - a.timeNs) <= sameTimeNs {
                let g = gravity[j].v
                out.append(
                    AccelerationSample(
                        time: Instant(nanosecondsSinceEpoch: a.timeNs), x: a.v.x + g.x, y: a.v.y + g.y, z: a.v.z + g.z))
                j += 1
            }
        }
        return (out, linear.count - out.count)
    }
}
