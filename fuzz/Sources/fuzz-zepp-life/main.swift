import FuzzSupport

// libFuzzer harness for the zepp-life reader: see fuzz/README.md.
runFuzzer { data, size in
    fuzzOne(data, size, format: "zepp-life")
    return 0
}
