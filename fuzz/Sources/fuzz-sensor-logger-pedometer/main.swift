import FuzzSupport

// libFuzzer harness for the sensor-logger-pedometer reader: see fuzz/README.md.
runFuzzer { data, size in
    fuzzOne(data, size, format: "sensor-logger-pedometer")
    return 0
}
