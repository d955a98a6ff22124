import FuzzSupport

// libFuzzer harness for the health-auto-export payload parser: see fuzz/README.md.
runFuzzer { data, size in
    fuzzPayload(data, size, format: "health-auto-export")
    return 0
}
