import FuzzSupport

// libFuzzer harness for the physics-toolbox reader: see fuzz/README.md.
runFuzzer { data, size in
    fuzzOne(data, size, format: "physics-toolbox")
    return 0
}
