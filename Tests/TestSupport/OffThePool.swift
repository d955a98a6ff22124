import Foundation

/// Runs `work` on a thread of its own and suspends until it returns, for whatever blocks its thread: waiting for a
/// process, reading a pipe to its end, a semaphore, a sampler's stop, rsvg-convert.
///
/// Tests run as tasks on Swift's cooperative pool, which has one thread per core (two on CI). A test that blocks one
/// of them holds up every other test's tasks, and on a loaded machine an in-process `steptweet fetch` beside it then
/// ran out of its budget. Blocking here costs the pool nothing; the thread ends with `work`.
public func offThePool<T: Sendable, E: Error>(_ work: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
    let result: Result<T, E> = await withCheckedContinuation { continuation in
        let thread = Thread {
            continuation.resume(returning: Result { () throws(E) -> T in try work() })
        }
        thread.name = "steptweet-test-blocking"
        thread.start()
    }
    return try result.get()
}

/// How long a test waits for something another process or thread makes true. Generous, because a loaded machine
/// (CI's two cores beside other builds) starts a process or schedules a thread many times slower than an idle one;
/// a passing test waits only until the condition holds.
public let patience: Duration = .seconds(patienceInSeconds)
public let patienceInSeconds: TimeInterval = 45

/// Checks `condition` every `step` until it holds or `limit` of wall time has passed; whether it held. Waits on
/// `Task.sleep`, so the cooperative pool stays free for what the test is waiting for.
public func eventually(
    within limit: Duration = patience, every step: Duration = .milliseconds(10),
    _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let clock = ContinuousClock()
    let end = clock.now.advanced(by: limit)
    while clock.now < end {
        if try await condition() { return true }
        try? await Task.sleep(for: step)
    }
    return try await condition()
}
