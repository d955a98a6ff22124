import FuzzSupport

// libFuzzer harness for the steplog reader: see fuzz/README.md.
runFuzzer { data, size in
    fuzzOne(data, size, format: "steplog")
    return 0
}
