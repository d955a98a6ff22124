import FuzzSupport

// libFuzzer harness for the garmin-fit reader: see fuzz/README.md.
runFuzzer { data, size in
    fuzzOne(data, size, format: "garmin-fit")
    return 0
}
