import FuzzSupport

// libFuzzer harness for the shimmer reader: see fuzz/README.md.
runFuzzer { data, size in
    fuzzOne(data, size, format: "shimmer")
    return 0
}
