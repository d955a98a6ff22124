import FuzzSupport

// libFuzzer harness for the actigraph-raw reader: see fuzz/README.md.
runFuzzer { data, size in
    fuzzOne(data, size, format: "actigraph-raw")
    return 0
}
