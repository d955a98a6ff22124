import FuzzSupport

// libFuzzer harness for the axivity reader: see fuzz/README.md.
runFuzzer { data, size in
    fuzzOne(data, size, format: "axivity")
    return 0
}
