import FuzzSupport

// libFuzzer harness for the apple-health reader: see fuzz/README.md.
runFuzzer { data, size in
    fuzzOne(data, size, format: "apple-health")
    return 0
}
