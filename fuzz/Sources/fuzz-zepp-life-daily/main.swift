import FuzzSupport

// libFuzzer harness for the zepp-life-daily reader: see fuzz/README.md.
runFuzzer { data, size in
    fuzzOne(data, size, format: "zepp-life-daily")
    return 0
}
