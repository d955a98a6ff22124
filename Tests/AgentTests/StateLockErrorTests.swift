import Foundation
import TestSupport
import Testing

@testable import Agent

/// A lock file that cannot be opened says why as it was when it failed: its message is not made by asking the file
/// system again (it called `access` on the folder while rendering, so a folder made in between changed the reason).
@Suite struct StateLockErrorTests {
    @Test func theMessageSaysWhatWasTrueWhenItWasThrown() throws {
        let dir = try TempDir()
        // A dangling link where the state folder should be: the folder cannot be created, the lock not opened.
        try FileManager.default.createSymbolicLink(
            atPath: dir.path("state"), withDestinationPath: dir.path("elsewhere/state"))
        let lock = dir.path("state/sub/steps.sqlite.lock")
        var thrown: (any Error)?
        do { _ = try StateLock(path: lock) } catch { thrown = error }
        let error = try #require(thrown as? StateLockError)
        // The folder appears afterwards (a person fixes it, another process makes it).
        try FileManager.default.createDirectory(
            atPath: dir.path("elsewhere/state/sub"), withIntermediateDirectories: true)
        #expect("\(error)".contains("the state folder \(dir.path("state/sub")) could not be created"), "\(error)")
    }
}
