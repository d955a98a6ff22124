import FuzzSupport

// libFuzzer harness for the wisdm reader: see fuzz/README.md.
runFuzzer { data, size in
    fuzzOne(data, size, format: "wisdm")
    return 0
}
