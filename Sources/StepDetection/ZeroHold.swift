/// An all-zero sample (x, y, z = 0, 0, 0, or |a| = 0 given as magnitude) is how loggers write a missing value: no
/// sensor at rest or in motion reads exactly 0 on every axis, since gravity alone gives 9.8 m/s². Read as |a| = 0, it
/// is a 1 g dip: random ones count nothing, but one every 0.5 s on a still device is a rhythm (1,199 steps in 10 min)
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
/// Fixed memory, and per valid sample only its three axes stored (`remember`): where a run starts is read in the
/// zero's own path (the last sample taken was valid when it is not the last zero held). Saved with the state
/// (`zeroHold`); a state saved before has no sample to repeat (a zero next is dropped) and no gap pending.
struct ZeroHold: Sendable, Equatable {
    /// The axes of the last valid sample as pushed (a magnitude pushed alone is `x`, with `y` = `z` = 0); NaN before
    /// one (nothing to repeat).
    var x = Double.nan
    var y = 0.0
    var z = 0.0
    /// The time of the valid sample the current run of zeros repeats, and of the run's last zero held (`.min`: none).
    var validNs = Int64.min
    var heldNs = Int64.min
    /// The longest time step the next sample takes without a restart: the detector's `maxGapNs`, or −1 while a run of
    /// zeros that outlasted the hold is pending (the next valid sample restarts as after a gap). One number, so that
    /// `take` tests one bound as it did before the hold.
    var gapNs: Int64

    init(gapNs: Int64) { self.gapNs = gapNs }

    /// Whether a run of zeros outlasted the hold and the next valid sample restarts.
    var gapPending: Bool { gapNs < 0 }

    /// Remembers a valid sample taken.
    @inline(__always)
    mutating func remember(x: Double, y: Double, z: Double) { (self.x, self.y, self.z) = (x, y, z) }

    /// The magnitude of the remembered sample, as `push` computed it (for a magnitude pushed alone, `x` itself: the
    /// square root of its square is exact down to 1e-154 m/s²).
    var magnitude: Double { (x * x + y * y + z * z).squareRoot() }

    /// The hold in nanoseconds for a hold in seconds: below 0 off (nil), clamped where nanoseconds would overflow.
    static func holdNs(seconds: Double) -> Int64? {
        guard seconds >= 0 else { return nil }  // false for NaN: off
        return seconds < 9e9 ? Int64(seconds * 1e9) : .max
    }
}

extension StepDetector {
    /// A sample whose magnitude is 0, after `push`'s checks (in order). With the hold off, a reading of |a| = 0 as
    /// before; otherwise the last valid sample again at this time while the run lasts at most the hold, else dropped.
    @inline(never)
    mutating func zeroSample(timeNs: Int64, axes: Bool, _ emit: (DetectorEvent) -> Void) {
        guard let holdNs = zeroHoldNs else { return take(timeNs: timeNs, magnitude: 0, emit) }
        // The last sample taken was valid unless it is the last zero held: a new run repeats it.
        if lastTimeNs != zeroHold.heldNs { zeroHold.validNs = lastTimeNs }
        let h = zeroHold
        let (run, overflow) = timeNs.subtractingReportingOverflow(h.validNs)
        guard lastTimeNs != .min, !h.x.isNaN, !h.gapPending, !overflow, run <= holdNs else {
            counters.invalid += 1
            // After a sample to repeat, a run past the hold is a gap (a zero with nothing before it cuts nothing).
            if lastTimeNs != .min && !h.x.isNaN { zeroHold.gapNs = -1 }
            return
        }
        zeroHold.heldNs = timeNs
        if axes && tracksAxes && (h.y != 0 || h.z != 0) { recognizer.addAxes(x: h.x, y: h.y, z: h.z) }
        take(timeNs: timeNs, magnitude: h.magnitude, emit)
    }
}

extension ZeroHold: Codable {
    enum CodingKeys: String, CodingKey { case x, y, z, validNs, heldNs, gapPending }

    /// The saved hold; with no gap pending, `gapNs` is the detector's to set (its `maxGapNs`).
    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        x = try c.decodeIfPresent(Double.self, forKey: .x) ?? .nan  // not saved: nothing to repeat
        y = try c.decode(Double.self, forKey: .y)
        z = try c.decode(Double.self, forKey: .z)
        validNs = try c.decode(Int64.self, forKey: .validNs)
        heldNs = try c.decode(Int64.self, forKey: .heldNs)
        gapNs = try c.decode(Bool.self, forKey: .gapPending) ? -1 : .max
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(x.isNaN ? nil : x, forKey: .x)  // JSON has no NaN
        try c.encode(y, forKey: .y)
        try c.encode(z, forKey: .z)
        try c.encode(validNs, forKey: .validNs)
        try c.encode(heldNs, forKey: .heldNs)
        try c.encode(gapPending, forKey: .gapPending)
    }
}
