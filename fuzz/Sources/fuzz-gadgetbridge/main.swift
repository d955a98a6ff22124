import FuzzSupport

// libFuzzer harness for the gadgetbridge reader: see fuzz/README.md.
runFuzzer { data, size in
    fuzzOne(data, size, format: "gadgetbridge")
    return 0
}
