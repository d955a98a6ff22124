import FuzzSupport

// libFuzzer harness for the google-fit-daily reader: see fuzz/README.md.
runFuzzer { data, size in
    fuzzOne(data, size, format: "google-fit-daily")
    return 0
}
