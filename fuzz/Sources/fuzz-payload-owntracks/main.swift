import FuzzSupport

// libFuzzer harness for the owntracks payload parser: see fuzz/README.md.
runFuzzer { data, size in
    fuzzPayload(data, size, format: "owntracks")
    return 0
}
