import Foundation
import Ingestion
import Logging
import ServiceLifecycle

/// Samples a live accelerometer into its rotating sample file from start until graceful shutdown, then writes what is
/// buffered. It is the first service to start and the last to stop, so the final fetch reads every sample.
struct SamplerService: Service, CustomStringConvertible {
    let device: AccelerometerDevice
    let logger: Logger

    var description: String { "sampler (\(device.summary))" }

    func run() async throws {
        let logger = self.logger
        let samplePath = device.samplePath
        let sampler = AccelerometerSampler(
            device: device,
            onEvent: { event in
                switch event {
                case .started(let what): logger.info("sampling \(what) into \(samplePath)")
                case .lost(let why): logger.warning("accelerometer lost: \(why); retrying every second")
                case .recovered(let what): logger.notice("accelerometer back: \(what)")
                case .rotated(let path): logger.info("sample file rotated to \(path)")
                case .clockOffset(let ns):
                    logger.notice("device timestamps are not wall-clock times: shifted by \(Double(ns) / 1e9) s")
                case .stopped(let n): logger.info("sampling stopped after \(n) samples")
                }
            })
        do {
            try FileManager.default.createDirectory(
                atPath: (samplePath as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try sampler.start()
        } catch {
            logger.error("accelerometer sampling not started: \(error)")
        }
        try? await gracefulShutdown()
        await Self.stop(sampler)
    }

    /// Stops the sampler (it waits for its thread) on a thread of its own, not one of the concurrency pool's.
    private static func stop(_ sampler: AccelerometerSampler) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread {
                sampler.stop()
                done.resume()
            }.start()
        }
    }
}
