import FuzzSupport

// libFuzzer harness for the sensor-logger payload parser: see fuzz/README.md.
runFuzzer { data, size in
    fuzzPayload(data, size, format: "sensor-logger")
    return 0
}
