import FuzzSupport

// libFuzzer harness for the oxford reader: see fuzz/README.md.
runFuzzer { data, size in
    fuzzOne(data, size, format: "oxford")
    return 0
}
