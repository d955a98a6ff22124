import Foundation
import TestSupport
import Testing

@testable import SensorInput

@Suite struct ParallelismTests {
    @Test func cpuListsAreCounted() {
        #expect(Parallelism.cpuListCount("0-1") == 2)
        #expect(Parallelism.cpuListCount("0-3,8,10-11") == 7)
        #expect(Parallelism.cpuListCount("5") == 1)
        #expect(Parallelism.cpuListCount("3-1") == nil)
        #expect(Parallelism.cpuListCount("x") == nil)
    }

    @Test func theCgroupQuotaCapsTheCores() throws {
        let v2 = try TempDir("cgroup")
        try v2.write("cpu.max", "150000 100000\n")
        #expect(Parallelism.cgroupQuota(root: v2.root) == 1.5)
        #expect(Parallelism.availableCores(cgroupRoot: v2.root) <= 2)
        try v2.write("cpu.max", "max 100000\n")
        #expect(Parallelism.cgroupQuota(root: v2.root) == nil)
        let v1 = try TempDir("cgroup")
        try v1.write("cpu/cpu.cfs_quota_us", "100000\n")
        try v1.write("cpu/cpu.cfs_period_us", "100000\n")
        #expect(Parallelism.cgroupQuota(root: v1.root) == 1)
        #expect(Parallelism.availableCores(cgroupRoot: v1.root) == 1)
        try v1.write("cpu/cpu.cfs_quota_us", "-1\n")
        #expect(Parallelism.cgroupQuota(root: v1.root) == nil)
    }

    @Test func jobsRunOnSeveralThreadsAndResultsKeepTheirOrder() {
        let results = Parallelism.map(200, jobs: 4) { i in i * i }
        #expect(results == (0..<200).map { $0 * $0 })
        #expect(Parallelism.map(0, jobs: 4) { $0 }.isEmpty)
        #expect(Parallelism.map(3, jobs: 1) { $0 + 1 } == [1, 2, 3])
    }

    @Test func orderedHandsItemsOverInOrderWithABoundedWindow() {
        let inFlight = Counter()
        var seen: [Int] = []
        Parallelism.ordered(
            300, jobs: 3, window: 4,
            produce: { i in
                inFlight.add(1)
                return i * 2
            },
            consume: { i, value in
                inFlight.add(-1)
                #expect(value == i * 2)
                // Produced and not yet consumed: at most the window ahead of this one, plus this one.
                #expect(inFlight.peak <= 4 + 1)
                seen.append(i)
                return true
            })
        #expect(seen == Array(0..<300))
    }

    @Test func orderedStopsEarlyAndRethrows() {
        var consumed = 0
        Parallelism.ordered(
            1000, jobs: 2, window: 2, produce: { $0 },
            consume: { i, _ in
                consumed += 1
                return i < 9
            })
        #expect(consumed == 10)
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try Parallelism.ordered(1000, jobs: 2, window: 2, produce: { $0 }) { i, _ in
                if i == 5 { throw Stop() }
                return true
            }
        }
    }
}

/// A counter shared between threads, remembering its highest value.
private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    private(set) var peak = 0
    func add(_ d: Int) {
        lock.withLock {
            value += d
            peak = max(peak, value)
        }
    }
}
