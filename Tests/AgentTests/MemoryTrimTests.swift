import Agent
import Foundation
import Testing

@Suite struct MemoryTrimTests {
    @Test func idlePagesOfEveryReadOnlyMappingAreReleasedAndTheProcessGoesOn() throws {
        let formatter = DateFormatter()  // touch Foundation and ICU, as a fetch does
        formatter.dateFormat = "MM/dd HH:mm:ss"
        let before = formatter.string(from: Date(timeIntervalSince1970: 0))
        let advised = MemoryTrim.releaseIdlePages()
        // Every read-only file mapping is advised, not just the first page of /proc/self/maps (about 20 lines).
        #expect(advised > 40, "advised \(advised) mappings")
        // Resident pages are not asserted here (tests running in parallel fault pages back in); see README, Measured.
        #expect(formatter.string(from: Date(timeIntervalSince1970: 0)) == before)
    }
}
