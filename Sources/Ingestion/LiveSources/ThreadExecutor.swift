import Foundation

/// A task executor with one thread of its own: the accelerometer poller runs on it as a task (sleeping on the
/// injected clock between samples) without taking a thread of the concurrency pool for its blocking sysfs reads and
/// file writes. The thread ends once `shutdown()` was called and no job is left.
final class ThreadExecutor: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var shuttingDown = false

    init(name: String) {
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.withLock {
            jobs.append(job)
            condition.signal()
        }
    }

    /// Lets the thread end once the jobs enqueued so far have run.
    func shutdown() {
        condition.withLock {
            shuttingDown = true
            condition.signal()
        }
    }

    private func run() {
        while true {
            let next: UnownedJob? = condition.withLock {
                while jobs.isEmpty && !shuttingDown { condition.wait() }
                return jobs.isEmpty ? nil : jobs.removeFirst()
            }
            guard let next else { return }
            next.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
