import FuzzSupport
import SensorInput
import StepDetection

// libFuzzer harness for the device decoders: the first bytes choose an IIO scan type per axis and an evdev
// resolution, the rest is decoded as IIO scans and as evdev input events. See fuzz/README.md.
let typeTexts = [
    "le:s12/16>>4", "be:s12/16>>4", "le:s16/32>>0", "be:u10/16>>6", "le:s8/8>>0", "le:s32/32>>0",
    "be:s24/32>>8", "le:u16/16>>0",
]
let timestamp = IIOChannelType("le:s64/64>>0")!

runFuzzer { data, size in
    guard let data, size >= 4 else { return 0 }
    let b = UnsafeBufferPointer(start: data, count: size)
    let types = (0..<3).map { IIOChannelType(typeTexts[Int(b[$0]) % typeTexts.count])! }
    let layout = IIOScanLayout(channels: [
        ("in_accel_x", 0, types[0]), ("in_accel_y", 1, types[1]),
        ("in_accel_z", 2, types[2]), ("in_timestamp", 3, timestamp),
    ])
    let body = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(b)[3...])
    var offset = 0
    while offset + layout.scanBytes <= body.count {
        for c in layout.channels {
            let v = c.type.value(at: body.baseAddress! + offset + c.offset)
            if c.type.realBits < 64 && !c.type.signed { precondition(v >= 0 && v < (1 << c.type.realBits)) }
        }
        offset += layout.scanBytes
    }
    // Any text is a scan type candidate: parsing must never crash.
    _ = IIOChannelType(String(decoding: UnsafeBufferPointer(rebasing: b[0..<min(size, 24)]), as: UTF8.self))
    var evdev = EvdevAccelerometer(resolutions: [Int32(b[0]), Int32(b[1]), 0])
    let used = evdev.decode(UnsafeRawBufferPointer(b)) { s in precondition(s.x.isFinite && s.y.isFinite && s.z.isFinite)
    }
    precondition(used % EvdevAccelerometer.eventSize == 0 && used <= size)
    return 0
}
