import Foundation
import TestSupport
import Testing

@Suite(.temporaryFolder) struct PreviewAndDemoTests {
    @Test func previewReproducesTheSeedFormat() async throws {
        let r = try await Steptweet.run([
            "preview", "--source", Steptweet.fixture("demo_walk_50hz.csv"),
            "--start", "2026-11-21T10:00:00+09:00", "--now", "2026-11-21T10:30:00+09:00", "--time-zone", "Asia/Tokyo",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let text = r.stdout.trimmingCharacters(in: .newlines)
        let pattern = #/^11/21 10:00:00 〜 11/21 10:30:00 の期間に iPhone 5s を持って (\d+) 歩 歩きました。 Tweet By Background Fetch$/#
        let match = try #require(text.wholeMatch(of: pattern), "\(text)")
        let steps = Int(match.1)!
        #expect(abs(steps - 109) <= 11)
    }

    @Test func previewWindowExcludesStepsOutsideIt() async throws {
        // The recording starts at --recording-start, 10 minutes before the window: no step of it is inside.
        let r = try await Steptweet.run([
            "preview", "--source", Steptweet.fixture("demo_walk_50hz.csv"), "--recording-start",
            "2026-11-21T09:50:00+09:00",
            "--start", "2026-11-21T10:00:00+09:00", "--now", "2026-11-21T10:30:00+09:00", "--time-zone", "Asia/Tokyo",
        ])
        #expect(r.status == 0)
        #expect(r.stdout.contains("を持って 0 歩"))
    }

    @Test func unknownTimeZoneIsRejected() async throws {
        for zone in ["Bogus/Zone", "JST-9", ":Asia/Tokyo"] {
            let r = try await Steptweet.run([
                "preview", "--source", Steptweet.fixture("demo_walk_50hz.csv"),
                "--start", "2026-11-21T10:00:00Z", "--time-zone", zone,
            ])
            #expect(r.status != 0)
            #expect(r.stderr.contains("unknown time zone '\(zone)'"))
            #expect(r.stdout.isEmpty)
        }
    }

    /// `preview` takes `--format`, `--rate` and `--strict` from the options `count` and `inspect` share, checks
    /// included: a rate of 0 is a usage error, not a file without a time column.
    @Test func previewChecksFormatAndRateAsCountDoes() async throws {
        let walk = Steptweet.fixture("demo_walk_50hz.csv")
        for (option, message) in [
            ("--rate=0", "--rate: must be a positive number of Hz"),
            ("--format=nope", "--format: unknown format 'nope'"),
        ] {
            for arguments in [["preview", "--source", walk, "--start", "2026-11-21T10:00:00Z"], ["count", walk]] {
                let r = try await Steptweet.run(arguments + [option])
                #expect(r.status == 64, "\(arguments[0]) \(option)")
                #expect(r.stderr.contains(message), "\(arguments[0]) \(option): \(r.stderr)")
                #expect(r.stdout.isEmpty)
            }
        }
    }

    @Test func demoPrintsNewDataWithTheSeedText() async throws {
        let r = try await Steptweet.run(["demo"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("result: NewData"))
        #expect(r.stdout.contains("result: NoData"))
        let seed = #/text: +11/21 10:00:00 〜 11/21 10:10:00 の期間に iPhone 5s を持って \d+ 歩 歩きました。 Tweet By Background Fetch/#
        #expect(r.stdout.contains(seed))
    }

    /// The demo's recording is built into the binary: a copy of it, run in a folder that is not the checkout, replays
    /// the same walk (the counts of the committed fixture) without reading any file of the checkout.
    @Test func demoRunsFromACopyOfTheBinaryOutsideTheCheckout() async throws {
        let copy = URL(fileURLWithPath: try TemporaryFolder.file(Data(), name: "steptweet"))
        let folder = copy.deletingLastPathComponent()
        try FileManager.default.removeItem(at: copy)
        try FileManager.default.copyItem(at: Steptweet.binary, to: copy)
        // A process another test starts while the copy is written can hold its descriptor open for writing (from its
        // fork to its exec, or for its life), and until it lets go the copy cannot be run ("Text file busy", seen on
        // a loaded machine): tried again until then.
        var launched: Result<CommandResult, any Error> = .failure(CancellationError())
        _ = await eventually {
            do {
                launched = .success(try await Steptweet.runProcess(["demo"], executable: copy, in: folder))
            } catch {
                launched = .failure(error)
                let cause = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
                return !(cause?.domain == NSPOSIXErrorDomain && cause?.code == Int(ETXTBSY))
            }
            return true
        }
        let r = try launched.get()
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.hasPrefix("demo: replaying the built-in demo_walk_50hz.csv on a virtual clock"), "\(r.stdout)")
        #expect(!r.stdout.contains(Steptweet.root.path), "\(r.stdout)")
        // A newcomer's first command prints nothing on stderr: no log of the endpoint's shutdown.
        #expect(r.stderr.isEmpty, "\(r.stderr)")
        let inCheckout = try await Steptweet.run(["demo", "--recording", Steptweet.fixture("demo_walk_50hz.csv")])
        let windows = { (out: String) in out.split(separator: "\n").filter { $0.hasPrefix("  window: ") } }
        #expect(windows(r.stdout).count == 4)
        #expect(windows(r.stdout) == windows(inCheckout.stdout))
    }

    /// A recording named on the command line that does not exist is 66 (EX_NOINPUT), as for `count` and `preview`;
    /// one that is not a recording stays 65.
    @Test func demoWithAMissingRecordingExits66() async throws {
        let missing = try TemporaryFolder.file(Data(), name: "walk.csv") + ".missing"
        let r = try await Steptweet.run(["demo", "--recording", missing])
        #expect(r.status == 66, "\(r.stderr)")
        #expect(r.stderr.contains("demo: \(missing): no such file"), "\(r.stderr)")
        let notARecording = try TemporaryFolder.file(Data("hello\n".utf8), name: "notes.txt")
        #expect(try await Steptweet.run(["demo", "--recording", notARecording]).status == 65)
    }

    @Test func demoRecoversTheDeliberatelyFailedDeliveryOnTheNextFetch() async throws {
        let r = try await Steptweet.run(["demo"])
        #expect(r.status == 0, "\(r.stderr)")
        let results = r.stdout.split(separator: "\n").filter { $0.hasPrefix("  result: ") }.map { $0.dropFirst(10) }
        #expect(results == ["NewData", "NoData", "Failed: loopback: HTTP 503: deliberate failure", "NewData"])
        #expect(r.stdout.contains("retryable at loopback: HTTP 503: deliberate failure (kept in the outbox)"))
        #expect(r.stdout.contains("delivered to loopback (id 2) for steps-20261121T011000Z-20261121T013000Z"))
        #expect(r.stdout.contains("endpoint: kept 2 post(s), 0 duplicate(s)"))
    }
}
