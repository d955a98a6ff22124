@testable import Analysis
import Foundation
import Testing
import TestSupport

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
}
