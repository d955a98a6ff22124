import FuzzSupport

// libFuzzer harness for the detect reader: see fuzz/README.md.
runFuzzer { data, size in
    fuzzOne(data, size, format: nil)
    return 0
}
