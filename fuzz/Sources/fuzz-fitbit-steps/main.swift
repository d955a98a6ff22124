import FuzzSupport

// libFuzzer harness for the fitbit-steps reader: see fuzz/README.md.
runFuzzer { data, size in
    fuzzOne(data, size, format: "fitbit-steps")
    return 0
}
