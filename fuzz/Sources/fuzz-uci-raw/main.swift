import FuzzSupport

// libFuzzer harness for the uci-raw reader: see fuzz/README.md.
runFuzzer { data, size in
    fuzzOne(data, size, format: "uci-raw", rateHz: 50)
    return 0
}
