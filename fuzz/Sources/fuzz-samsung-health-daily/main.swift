import FuzzSupport

// libFuzzer harness for the samsung-health-daily reader: see fuzz/README.md.
runFuzzer { data, size in
    fuzzOne(data, size, format: "samsung-health-daily")
    return 0
}
