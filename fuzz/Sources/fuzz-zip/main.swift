import FuzzSupport

// libFuzzer harness for zip exports (the central directory, zip64, entry streams, entry choice): see fuzz/README.md.
runFuzzer { data, size in
    fuzzOne(data, size, format: nil)
    return 0
}
