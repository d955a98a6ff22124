import FuzzSupport

// libFuzzer harness for the generic-csv reader: see fuzz/README.md.
runFuzzer { data, size in
    fuzzOne(data, size, format: "generic-csv")
    return 0
}
