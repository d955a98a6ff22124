import FuzzSupport

// libFuzzer harness for the health-connect payload parser: see fuzz/README.md.
runFuzzer { data, size in
    fuzzPayload(data, size, format: "health-connect")
    return 0
}
