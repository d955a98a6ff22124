import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// How many cores this process may use, and running independent jobs on them with results kept in order.
public enum Parallelism {
    /// The cores this process may run on: the CPU affinity mask (`taskset`), capped by the cgroup's CPU quota
    /// (`cpu.max` of cgroup v2, `cpu.cfs_quota_us` / `cpu.cfs_period_us` of v1, as a container or systemd's
    /// `CPUQuota=` sets), at least 1.
    public static func availableCores(cgroupRoot: String = "/sys/fs/cgroup") -> Int {
        var cores = ProcessInfo.processInfo.activeProcessorCount
        if let allowed = affinityCores() { cores = allowed }
        if let quota = cgroupQuota(root: cgroupRoot) { cores = min(cores, max(1, Int(quota.rounded(.up)))) }
        return max(1, cores)
    }

    /// The CPUs in this process's affinity mask (`Cpus_allowed_list` of /proc/self/status, e.g. `0-1,4`), nil when
    /// unknown. (Glibc's `sched_getaffinity` is not visible to Swift without `_GNU_SOURCE`.)
    static func affinityCores(status: String = "/proc/self/status") -> Int? {
        guard let text = try? String(contentsOfFile: status, encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed_list:") })
        else { return nil }
        return cpuListCount(line.dropFirst("Cpus_allowed_list:".count).trimmingCharacters(in: .whitespaces))
    }

    /// The number of CPUs in a kernel CPU list such as `0-3,8,10-11`, nil when malformed.
    static func cpuListCount(_ list: String) -> Int? {
        var total = 0
        for part in list.split(separator: ",") {
            let ends = part.split(separator: "-").map { Int($0) }
            switch ends.count {
            case 1:
                guard ends[0] != nil else { return nil }
                total += 1
            case 2:
                guard let a = ends[0], let b = ends[1], b >= a else { return nil }
                total += b - a + 1
            default: return nil
            }
        }
        return total > 0 ? total : nil
    }

    /// The CPU quota in cores, nil when there is none.
    static func cgroupQuota(root: String) -> Double? {
        func read(_ path: String) -> String? {
            (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        if let v2 = read(root + "/cpu.max") {
            let parts = v2.split(separator: " ")
            guard parts.count == 2, parts[0] != "max", let quota = Double(parts[0]), let period = Double(parts[1]),
                period > 0
            else { return nil }
            return quota / period
        }
        if let q = read(root + "/cpu/cpu.cfs_quota_us").flatMap(Double.init), q > 0,
            let p = read(root + "/cpu/cpu.cfs_period_us").flatMap(Double.init), p > 0
        {
            return q / p
        }
        return nil
    }

    /// `work(i)` for every `i` in `0..<count`, at most `jobs` at a time, results in index order.
    public static func map<T: Sendable>(_ count: Int, jobs: Int, _ work: @escaping @Sendable (Int) -> T) -> [T] {
        var results: [T] = []
        results.reserveCapacity(count)
        ordered(count, jobs: jobs, window: count, produce: work) { _, value in
            results.append(value)
            return true
        }
        return results
    }
}

extension Parallelism {
    /// Produces items `0..<count` on `jobs` threads, the calling thread included, and hands them to `consume` on the
    /// calling thread in index order. At most `window` items are produced ahead of the one being consumed, so memory
    /// stays bounded however large `count` is. The calling thread produces too while the item it needs is not ready
    /// (so `jobs` threads parse when consuming is cheap, and `jobs - 1` parse beside a busy consumer). `consume`
    /// returns false to stop early (producers then stop too); an error it throws stops everything and is rethrown.
    /// With `jobs` 1 all runs on the calling thread, one item at a time.
    public static func ordered<T: Sendable>(
        _ count: Int, jobs: Int, window: Int,
        produce: @escaping @Sendable (Int) -> T,
        consume: (Int, T) throws -> Bool
    ) rethrows {
        guard jobs > 1, count > 1 else {
            for i in 0..<count where try !consume(i, produce(i)) { return }
            return
        }
        let line = OrderedLine<T>(count: count, window: max(1, window))
        // Threads of their own, not Dispatch's pool: the caller may itself run on a pool thread that waits here
        // (Swift concurrency, `async` commands), and the pool does not grow past the core count for a waiting thread.
        let producers = min(jobs - 1, count)
        let finished = DispatchSemaphore(value: 0)
        for _ in 0..<producers {
            let thread = Thread {
                while let i = line.claim() { line.deliver(i, produce(i)) }
                finished.signal()
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
        defer {
            line.cancel()
            for _ in 0..<producers { finished.wait() }
        }
        for i in 0..<count {
            if try !consume(i, line.take(i, helping: produce)) { return }
        }
    }
}

/// The hand-over between producer threads and the in-order consumer of `Parallelism.ordered`.
private final class OrderedLine<T>: @unchecked Sendable {
    private let condition = NSCondition()
    private var ready: [Int: T] = [:]
    private var nextToClaim = 0
    private var nextToTake = 0
    private var cancelled = false
    private let count: Int
    private let window: Int

    init(count: Int, window: Int) {
        self.count = count
        self.window = window
    }

    /// The next index to produce, waiting while `window` are ahead of the consumer; nil when done or cancelled.
    func claim() -> Int? {
        condition.lock()
        defer { condition.unlock() }
        while !cancelled && nextToClaim < count && nextToClaim >= nextToTake + window { condition.wait() }
        guard !cancelled && nextToClaim < count else { return nil }
        nextToClaim += 1
        return nextToClaim - 1
    }

    func deliver(_ i: Int, _ item: T) {
        condition.lock()
        ready[i] = item
        condition.broadcast()
        condition.unlock()
    }

    /// Item `i`; while it is not ready, produces the next unclaimed item inside the window instead of waiting.
    func take(_ i: Int, helping produce: (Int) -> T) -> T {
        condition.lock()
        defer { condition.unlock() }
        while ready[i] == nil {
            if !cancelled && nextToClaim < count && nextToClaim < nextToTake + window {
                let k = nextToClaim
                nextToClaim += 1
                condition.unlock()
                let item = produce(k)
                condition.lock()
                ready[k] = item
                condition.broadcast()
            } else {
                condition.wait()
            }
        }
        nextToTake = i + 1
        condition.broadcast()
        return ready.removeValue(forKey: i)!
    }

    func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        condition.unlock()
    }
}
