import TestSupport
import Testing

@testable import SensorInput

@Suite(.temporaryFolder) struct ProgressTests {
    @Test func onlyForLargeInputsOnATerminal() {
        #expect(ProgressMeter(total: 60_000_000, enabled: true, isTerminal: true).active)
        #expect(!ProgressMeter(total: 60_000_000, enabled: true, isTerminal: false).active)  // stderr not a tty
        #expect(!ProgressMeter(total: 10_000_000, enabled: true, isTerminal: true).active)  // small input
        #expect(!ProgressMeter(total: 60_000_000, enabled: false, isTerminal: true).active)  // not asked for
    }

    @Test func lineShowsBytesRateAndETA() {
        #expect(
            ProgressMeter.line(done: 100_000_000, total: 300_000_000, elapsed: 0.5)
                == "reading: 100 / 300 MB, 200 MB/s, ETA 1 s")
    }
}
