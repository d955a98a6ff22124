import FuzzSupport

// libFuzzer harness for the samsung-health reader: see fuzz/README.md.
runFuzzer { data, size in
    fuzzOne(data, size, format: "samsung-health")
    return 0
}
