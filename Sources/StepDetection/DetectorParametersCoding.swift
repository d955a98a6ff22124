/// How `DetectorParameters` are saved and read back (the properties and what they mean: DetectorParameters.swift). A
/// key missing from a saved set (saved before it existed) keeps its standard value, so every saved state and
/// `--parameters` file of an earlier release still loads; encoding is synthesized from the same keys.
extension DetectorParameters {
    enum CodingKeys: String, CodingKey {
        case lowPassHz, minSwing, minSwingInWalk, minStepInterval, maxStepInterval, confirmSteps, minBoutSteps,
            irregularIntervalsAllowed
        case rhythmTolerance, swingTolerance, fillMissedSteps, maxMissedStepGap, shortLongGait, fillStrideStart,
            maxSampleGap, recognizer
        case lookBackSeconds, shortBoutMinSteps, shortBoutMaxSteps, shortBoutEnter,
            shortBoutAlongShare,
            shortBoutIntervalCV, steadyStride, steadyStrideAlongShare, heldArmSway, heldArmStride, carriedArmStride,
            carriedArmContrast, carriedArmStepFloor, carriedArmJolt, carriedArmAlongShare, boutGroupMinSteps,
            boutGroupGapSeconds, weakPeaksOpenAtPathEvidence, loneBoutAlongShare, loneBoutEnter,
            shortBoutTurnFromMiddle, shortBoutBodyShare, shortBoutBodyStride, shortBoutBodyMotion,
            loneBoutBodyShare, loneBoutBodyStride, loneBoutBodyMotion, groupBoutBodyShare, groupBoutBodyStride,
            threeStepBoutSteps, threeStepBoutShare, threeStepBoutStride,
            minGaitRepeat, minVectorRepeat, vectorRepeatAlongOpens, vectorRepeatSteadyStride,
            vectorRepeatCeiling, gatedStay,
            startLookBackSeconds, startLookBackAlongShare
        case stepBandOpens, zeroHoldSeconds, pathContinuitySeconds, railBridgeSeconds, armStrideSeconds,
            armStrideAcross, armStrideAlong,
            boutEndArmAcross, boutEndArmAlong
    }

    /// Decodes saved parameters; keys that are missing (saved before they existed) keep their standard values, and
    /// keys no longer read are passed over (`gateLookBackSeconds`, off in every set, removed in session 29).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func value<T: Decodable>(_ key: CodingKeys, _ standard: T) throws -> T {
            try c.decodeIfPresent(T.self, forKey: key) ?? standard
        }
        let s = DetectorParameters()
        lowPassHz = try value(.lowPassHz, s.lowPassHz)
        minSwing = try value(.minSwing, s.minSwing)
        minSwingInWalk = try value(.minSwingInWalk, s.minSwingInWalk)
        minStepInterval = try value(.minStepInterval, s.minStepInterval)
        maxStepInterval = try value(.maxStepInterval, s.maxStepInterval)
        confirmSteps = try value(.confirmSteps, s.confirmSteps)
        minBoutSteps = try value(.minBoutSteps, s.minBoutSteps)
        irregularIntervalsAllowed = try value(.irregularIntervalsAllowed, s.irregularIntervalsAllowed)
        rhythmTolerance = try value(.rhythmTolerance, s.rhythmTolerance)
        swingTolerance = try value(.swingTolerance, s.swingTolerance)
        fillMissedSteps = try value(.fillMissedSteps, s.fillMissedSteps)
        maxMissedStepGap = try value(.maxMissedStepGap, s.maxMissedStepGap)
        shortLongGait = try value(.shortLongGait, s.shortLongGait)
        fillStrideStart = try value(.fillStrideStart, s.fillStrideStart)
        maxSampleGap = try value(.maxSampleGap, s.maxSampleGap)
        zeroHoldSeconds = try value(.zeroHoldSeconds, s.zeroHoldSeconds)
        lookBackSeconds = try value(.lookBackSeconds, s.lookBackSeconds)
        try decodeShortBouts(c, standard: s)
        startLookBackSeconds = try value(.startLookBackSeconds, s.startLookBackSeconds)
        startLookBackAlongShare = try value(.startLookBackAlongShare, s.startLookBackAlongShare)
        steadyStride = try value(.steadyStride, s.steadyStride)
        steadyStrideAlongShare = try value(.steadyStrideAlongShare, s.steadyStrideAlongShare)
        heldArmSway = try value(.heldArmSway, s.heldArmSway)
        heldArmStride = try value(.heldArmStride, s.heldArmStride)
        carriedArmStride = try value(.carriedArmStride, s.carriedArmStride)
        carriedArmContrast = try value(.carriedArmContrast, s.carriedArmContrast)
        carriedArmJolt = try value(.carriedArmJolt, s.carriedArmJolt)
        carriedArmAlongShare = try value(.carriedArmAlongShare, s.carriedArmAlongShare)
        carriedArmStepFloor = try value(.carriedArmStepFloor, s.carriedArmStepFloor)
        weakPeaksOpenAtPathEvidence = try value(.weakPeaksOpenAtPathEvidence, s.weakPeaksOpenAtPathEvidence)
        pathContinuitySeconds = try value(.pathContinuitySeconds, s.pathContinuitySeconds)
        railBridgeSeconds = try value(.railBridgeSeconds, s.railBridgeSeconds)
        armStrideSeconds = try value(.armStrideSeconds, s.armStrideSeconds)
        armStrideAcross = try value(.armStrideAcross, s.armStrideAcross)
        armStrideAlong = try value(.armStrideAlong, s.armStrideAlong)
        boutEndArmAcross = try value(.boutEndArmAcross, s.boutEndArmAcross)
        boutEndArmAlong = try value(.boutEndArmAlong, s.boutEndArmAlong)
        minGaitRepeat = try value(.minGaitRepeat, s.minGaitRepeat)
        minVectorRepeat = try value(.minVectorRepeat, s.minVectorRepeat)
        vectorRepeatAlongOpens = try value(.vectorRepeatAlongOpens, s.vectorRepeatAlongOpens)
        vectorRepeatSteadyStride = try value(.vectorRepeatSteadyStride, s.vectorRepeatSteadyStride)
        vectorRepeatCeiling = try value(.vectorRepeatCeiling, s.vectorRepeatCeiling)
        gatedStay = try value(.gatedStay, s.gatedStay)
        stepBandOpens = try value(.stepBandOpens, s.stepBandOpens)
        recognizer = try value(.recognizer, s.recognizer)
    }

    /// Decodes the short-bout, bout-group and lone-bout parameters (`init(from:)`), missing ones at `standard`'s.
    private mutating func decodeShortBouts(
        _ c: KeyedDecodingContainer<CodingKeys>, standard s: DetectorParameters
    ) throws {
        func value<T: Decodable>(_ key: CodingKeys, _ standard: T) throws -> T {
            try c.decodeIfPresent(T.self, forKey: key) ?? standard
        }
        shortBoutMinSteps = try value(.shortBoutMinSteps, s.shortBoutMinSteps)
        shortBoutMaxSteps = try value(.shortBoutMaxSteps, s.shortBoutMaxSteps)
        shortBoutEnter = try value(.shortBoutEnter, s.shortBoutEnter)
        shortBoutAlongShare = try value(.shortBoutAlongShare, s.shortBoutAlongShare)
        shortBoutIntervalCV = try value(.shortBoutIntervalCV, s.shortBoutIntervalCV)
        boutGroupMinSteps = try value(.boutGroupMinSteps, s.boutGroupMinSteps)
        boutGroupGapSeconds = try value(.boutGroupGapSeconds, s.boutGroupGapSeconds)
        loneBoutAlongShare = try value(.loneBoutAlongShare, s.loneBoutAlongShare)
        loneBoutEnter = try value(.loneBoutEnter, s.loneBoutEnter)
        shortBoutTurnFromMiddle = try value(.shortBoutTurnFromMiddle, s.shortBoutTurnFromMiddle)
        shortBoutBodyShare = try value(.shortBoutBodyShare, s.shortBoutBodyShare)
        shortBoutBodyStride = try value(.shortBoutBodyStride, s.shortBoutBodyStride)
        shortBoutBodyMotion = try value(.shortBoutBodyMotion, s.shortBoutBodyMotion)
        loneBoutBodyShare = try value(.loneBoutBodyShare, s.loneBoutBodyShare)
        loneBoutBodyStride = try value(.loneBoutBodyStride, s.loneBoutBodyStride)
        loneBoutBodyMotion = try value(.loneBoutBodyMotion, s.loneBoutBodyMotion)
        groupBoutBodyShare = try value(.groupBoutBodyShare, s.groupBoutBodyShare)
        groupBoutBodyStride = try value(.groupBoutBodyStride, s.groupBoutBodyStride)
        threeStepBoutSteps = try value(.threeStepBoutSteps, s.threeStepBoutSteps)
        threeStepBoutShare = try value(.threeStepBoutShare, s.threeStepBoutShare)
        threeStepBoutStride = try value(.threeStepBoutStride, s.threeStepBoutStride)
    }
}
