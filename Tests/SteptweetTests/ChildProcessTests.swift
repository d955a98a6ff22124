import Foundation
import TestSupport
import Testing

/// `ChildProcess`, which every test that runs a program uses in place of Foundation's `Process` (see its comment).
@Suite(.temporaryFolder) struct ChildProcessTests {
    /// Runs `/bin/sh -c script` to its end; what it printed, its status and how it ended.
    func shell(_ script: String, in folder: URL? = nil) async throws -> (
        out: String, status: Int32, reason: ChildProcess.TerminationReason
    ) {
        let child = ChildProcess()
        child.executableURL = URL(fileURLWithPath: "/bin/sh")
        child.arguments = ["-c", script]
        child.currentDirectoryURL = folder
        let out = Pipe()
        child.standardOutput = out
        child.standardError = FileHandle.nullDevice
        try child.run()
        let data = await offThePool { out.fileHandleForReading.readDataToEndOfFile() }
        await offThePool { child.waitUntilExit() }
        return (String(decoding: data, as: UTF8.self), child.terminationStatus, child.terminationReason)
    }

    @Test func aChildInheritsNoDescriptorButItsStandardStreams() async throws {
        // A pipe without close-on-exec, as Foundation's own `Pipe` and many libraries open them.
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { fds.forEach { close($0) } }
        let listed = try await shell("ls /proc/self/fd")
        let open = listed.out.split(separator: "\n").compactMap { Int32($0) }
        // ls's own listing of the folder takes the lowest free descriptor, 3.
        #expect(fds.allSatisfy { $0 > 3 })
        #expect(Set(open).isSubset(of: [0, 1, 2, 3]), "\(open)")
    }

    @Test func itRunsInTheFolderGivenAndSaysHowItEnded() async throws {
        let folder = try #require(TemporaryFolder.current)
        let here = try await shell("pwd; exit 3", in: folder)
        #expect(here.out == folder.resolvingSymlinksInPath().path + "\n")
        #expect(here.status == 3 && here.reason == .exit)
        let killed = try await shell("kill -TERM $$")
        #expect(killed.status == SIGTERM && killed.reason == .uncaughtSignal)
    }

    @Test func aMissingProgramIsAnErrorThatNamesIt() throws {
        let child = ChildProcess()
        child.executableURL = URL(fileURLWithPath: "/nonexistent/program")
        #expect(throws: ChildProcess.LaunchError.self) { try child.run() }
        #expect(!child.isRunning)
    }

    @Test func isRunningUntilTheChildEnds() async throws {
        let child = ChildProcess()
        child.executableURL = URL(fileURLWithPath: "/bin/sleep")
        child.arguments = ["30"]
        try child.run()
        #expect(child.isRunning)
        child.terminate()
        await offThePool { child.waitUntilExit() }
        #expect(!child.isRunning)
        #expect(child.terminationStatus == SIGTERM && child.terminationReason == .uncaughtSignal)
    }
}
