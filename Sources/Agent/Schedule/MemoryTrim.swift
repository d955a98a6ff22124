import Foundation

#if canImport(Glibc)
    import Glibc
#endif

#if canImport(Glibc)
    @_silgen_name("malloc_trim") private func mallocTrim(_ pad: Int) -> Int32
#endif

/// Gives memory back so that an idle agent stays small and its peaks are one step's pages, not every step's together:
/// between start-up's steps, before and after each fetch, and between a large request's stages. Frees unused heap
/// (`malloc_trim`) and asks the kernel to drop this process's resident pages of read-only file mappings
/// (`MADV_PAGEOUT`: the binary's code, the C libraries, clean pages that are faulted back in when next used). Nothing
/// is lost: no private or writable memory is touched. A kernel without MADV_PAGEOUT (before 5.4) just refuses it.
public enum MemoryTrim {
    static let madvPageout: Int32 = 21

    /// Returns how many read-only file-backed mappings were advised.
    @discardableResult
    public static func releaseIdlePages() -> Int {
        #if canImport(Glibc)
            _ = mallocTrim(0)
            // Read to the end: /proc files report size 0, and a single read returns only the first page of the list.
            guard let data = FileHandle(forReadingAtPath: "/proc/self/maps")?.readDataToEndOfFile() else { return 0 }
            let maps = String(decoding: data, as: UTF8.self)
            var advised = 0
            for line in maps.split(separator: "\n") {
                // 7f1c2a000000-7f1c2a200000 r--p 00000000 08:01 123456   /usr/lib/x86_64-linux-gnu/libicudata.so
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                guard fields.count >= 6, fields[5].hasPrefix("/") else { continue }
                let perms = fields[1]
                guard perms.count == 4, !perms.contains("w"), perms.hasSuffix("p") else { continue }
                let range = fields[0].split(separator: "-")
                guard range.count == 2, let lo = UInt(range[0], radix: 16), let hi = UInt(range[1], radix: 16), hi > lo,
                    let address = UnsafeMutableRawPointer(bitPattern: lo)
                else { continue }
                if madvise(address, Int(hi - lo), madvPageout) == 0 { advised += 1 }
            }
            return advised
        #else
            return 0
        #endif
    }
}
