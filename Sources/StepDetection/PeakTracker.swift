/// A hysteresis peak tracker on the filtered magnitude: a peak is confirmed once the signal has fallen `hysteresis`
/// below it, and its swing is measured from the trough before it. The detector runs two: the strong one (`minSwing`)
/// for candidate steps, the weak one (`minSwingInWalk`) for the faded steps of a walk.
struct PeakTracker: Sendable, Codable, Equatable {
    var seekingPeak = true
    var extremeValue = 0.0
    var extremeNs: Int64 = 0
    var troughValue = 0.0

    /// Follows one value; returns the peak it confirms (its time and swing), if any.
    @inline(__always)
    mutating func push(_ value: Double, at timeNs: Int64, hysteresis: Double) -> (timeNs: Int64, swing: Double)? {
        if seekingPeak {
            if value > extremeValue {
                extremeValue = value
                extremeNs = timeNs
            } else if value < extremeValue - hysteresis {
                let peak = (timeNs: extremeNs, swing: extremeValue - troughValue)
                seekingPeak = false
                extremeValue = value
                extremeNs = timeNs
                return peak
            }
        } else if value < extremeValue {
            extremeValue = value
            extremeNs = timeNs
        } else if value > extremeValue + hysteresis {
            troughValue = extremeValue
            seekingPeak = true
            extremeValue = value
            extremeNs = timeNs
        }
        return nil
    }

    /// Starts over at `value`, as at a trough (after a gap in the data).
    mutating func restart(at timeNs: Int64, value: Double) {
        self = PeakTracker(seekingPeak: false, extremeValue: value, extremeNs: timeNs, troughValue: value)
    }
}
