import FuzzSupport

// libFuzzer harness for the google-fit-intraday reader: see fuzz/README.md.
runFuzzer { data, size in
    fuzzOne(data, size, format: "google-fit-intraday")
    return 0
}
