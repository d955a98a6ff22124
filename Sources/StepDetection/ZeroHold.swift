/// An all-zero sample (x, y, z = 0, 0, 0, or |a| = 0 given as magnitude) is how loggers write a missing value: no
/// sensor at rest or in motion reads exactly 0 on every axis, since gravity alone gives 9.8 m/s². Read as |a| = 0, it
/// is a 1 g dip: random ones count nothing, but one every 0.5 s on a still device is a rhythm (1,111 steps in 10 min)
/// and DSADS p1 and p6 (1 s of zeros every 5 s) looked more vigorous than they were.
///
/// The rule (`DetectorParameters.zeroHoldSeconds`, 2 s): a zero sample repeats the valid sample before it (its time
/// is kept, its values are the previous valid sample's, with their axes); once a run of zeros reaches further than
/// the hold past the last valid sample, the rest of its zeros are dropped (counted `invalid`) and the next valid
/// sample starts afresh as after a gap in the data (`maxSampleGap`): the bout ends, nothing is put inside the gap.
/// A zero with no valid sample before it (the stream's first) is dropped and counted `invalid` too. The first
/// seconds of a long run are held as a short run's are (when a zero comes, nothing tells how long its run will last;
/// a held value is flat and makes no peak).
///
/// Fixed memory: the last valid sample (its time, axes and magnitude) and whether a gap is pending, saved with the
/// state (`zeroHold`); a state saved before has no valid sample to repeat and no gap pending.
struct ZeroHold: Sendable, Equatable, Codable {
    /// The time of the last valid (not all-zero) sample taken, `.min` before one.
    var validNs: Int64 = .min
    /// Its axes as pushed (a magnitude pushed alone is `x`, with `y` = `z` = 0) and its magnitude.
    var x = 0.0
    var y = 0.0
    var z = 0.0
    var magnitude = 0.0
    /// A run of zeros outlasted the hold: the next valid sample restarts the detector as after a gap.
    var gapPending = false

    /// Remembers a valid sample taken.
    @inline(__always)
    mutating func remember(timeNs: Int64, x: Double, y: Double, z: Double, magnitude: Double) {
        (validNs, self.x, self.y, self.z, self.magnitude) = (timeNs, x, y, z, magnitude)
    }

    /// Remembers the last sample of a run `quietRun` took (valid and not zero, as every sample it takes).
    mutating func remember(_ s: AccelerationSample) {
        let magnitude = (s.x * s.x + s.y * s.y + s.z * s.z).squareRoot()  // as `push` and `quietRun` compute it
        remember(timeNs: s.timeNs, x: s.x, y: s.y, z: s.z, magnitude: magnitude)
    }

    /// The hold in nanoseconds for a hold in seconds: below 0 off (nil), clamped where nanoseconds would overflow.
    static func holdNs(seconds: Double) -> Int64? {
        guard seconds >= 0 else { return nil }  // false for NaN: off
        return seconds < 9e9 ? Int64(seconds * 1e9) : .max
    }
}

extension StepDetector {
    /// A sample whose magnitude is 0, after `push`'s checks (finite, in order). With the hold off, a reading of
    /// |a| = 0 as before; otherwise the last valid sample again at this time while the run lasts at most the hold,
    /// else dropped.
    @inline(never)
    mutating func zeroSample(timeNs: Int64, axes: Bool, _ emit: (DetectorEvent) -> Void) {
        guard let holdNs = zeroHoldNs else { return take(timeNs: timeNs, magnitude: 0, emit) }
        let (run, overflow) = timeNs.subtractingReportingOverflow(zeroHold.validNs)
        guard zeroHold.validNs != .min, !zeroHold.gapPending, !overflow, run <= holdNs else {
            counters.invalid += 1
            // After a valid sample, the run is a gap (a zero before any valid sample has nothing to cut).
            if zeroHold.validNs != .min { zeroHold.gapPending = true }
            return
        }
        let h = zeroHold
        if axes && tracksAxes && (h.y != 0 || h.z != 0) { recognizer.addAxes(x: h.x, y: h.y, z: h.z) }
        take(timeNs: timeNs, magnitude: h.magnitude, emit)
    }
}
