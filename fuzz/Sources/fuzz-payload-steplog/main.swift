import FuzzSupport

// libFuzzer harness for the steplog payload parser: see fuzz/README.md.
runFuzzer { data, size in
    fuzzPayload(data, size, format: "steplog")
    return 0
}
