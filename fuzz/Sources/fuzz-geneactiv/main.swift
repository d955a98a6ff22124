import FuzzSupport

// libFuzzer harness for the geneactiv reader: see fuzz/README.md.
runFuzzer { data, size in
    fuzzOne(data, size, format: "geneactiv")
    return 0
}
