import FuzzSupport

// libFuzzer harness for the sensor-logger reader: see fuzz/README.md.
runFuzzer { data, size in
    fuzzOne(data, size, format: "sensor-logger")
    return 0
}
