import FuzzSupport

// libFuzzer harness for the actigraph-epoch reader: see fuzz/README.md.
runFuzzer { data, size in
    fuzzOne(data, size, format: "actigraph-epoch")
    return 0
}
