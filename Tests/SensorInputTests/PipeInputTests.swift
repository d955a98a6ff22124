import Foundation
import SensorInput
import StepDetection
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A recording given as a named pipe (or `/dev/stdin` fed by `zcat … |`) can be read only once, and an input is read
/// twice: detection reads its first lines, then the reader opens it again. The second open waited for a writer that
/// had gone (`count` hung) or began mid-stream (`/dev/stdin:1: no header row`). It is refused up front, named.
@Suite(.temporaryFolder) struct PipeInputTests {
    @Test func aNamedPipeIsRefusedWithWhatItIs() throws {
        let path = try TemporaryFolder.file(Data(), name: "walk.csv")
        try FileManager.default.removeItem(atPath: path)
        #expect(mkfifo(path, 0o600) == 0)
        // A writer holds the pipe open with a recording in it, so that an open for reading does not wait; after at
        // most 10 s it goes, and a reader waiting for another is given writers that close at once (the test stops
        // by itself whatever the reader does).
        let writer = open(path, O_RDWR)
        #expect(writer >= 0)
        let text = "t_ms,x,y,z\n" + (0..<50).map { "\($0 * 20),0.1,0.2,9.8\n" }.joined()
        _ = text.utf8CString.withUnsafeBufferPointer { write(writer, $0.baseAddress, text.utf8.count) }
        let done = DispatchSemaphore(value: 0)
        let outcome = Outcome()
        Thread.detachNewThread {
            do {
                _ = try AccelerationInput.read(path: path) { _ in }
                outcome.set("read without an error")
            } catch {
                outcome.set("\(error)")
            }
            done.signal()
        }
        let finished = done.wait(timeout: .now() + 10) == .success
        close(writer)
        // A reader still waiting to open the pipe gets a writer that goes at once: an end of input.
        for _ in 0..<100 where !finished && done.wait(timeout: .now() + 0.1) == .timedOut {
            let w = open(path, O_WRONLY | O_NONBLOCK)
            if w >= 0 { close(w) }
        }
        #expect(finished, "the read waited for the pipe")
        #expect(outcome.get().contains("walk.csv: a pipe, not a file"), "\(outcome.get())")
    }

    /// What the reading thread said, handed to the test's.
    final class Outcome: @unchecked Sendable {
        private let lock = NSLock()
        private var text = ""
        func set(_ value: String) { lock.withLock { text = value } }
        func get() -> String { lock.withLock { text } }
    }
}
