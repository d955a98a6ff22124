import FuzzSupport

// libFuzzer harness for the generic-csv reader's parallel range splitter: see fuzz/README.md.
runFuzzer { data, size in
    fuzzParallel(data, size)
    return 0
}
