import FuzzSupport

// libFuzzer harness for the phyphox reader: see fuzz/README.md.
runFuzzer { data, size in
    fuzzOne(data, size, format: "phyphox")
    return 0
}
