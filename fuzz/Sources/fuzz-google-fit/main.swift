import FuzzSupport

// libFuzzer harness for the google-fit reader: see fuzz/README.md.
runFuzzer { data, size in
    fuzzOne(data, size, format: "google-fit")
    return 0
}
