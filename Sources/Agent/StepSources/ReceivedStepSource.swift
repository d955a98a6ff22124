import Foundation
import SensorInput
import Store
import WallTime

/// The step readings phones pushed to the receiver (`[receive]`), as one source: each fetch counts the readings that
/// arrived or changed since the last, by the one reading rule (`ReceivedRecount`, in Store). A resend that changes a reading (today's growing
/// total) adds only its difference; one that lowers time already posted lowers nothing posted, and the fetch says
/// so. Its watermark is the earliest end of data of the devices heard within `settle`: windows wait for a device
/// that is still sending, not for one that has gone quiet.
struct ReceivedStepSource: StepSource {
    let store: StateStore
    /// How long windows wait for a device that has gone quiet.
    let settle: Duration

    var name: String { "receive" }

    func didSave(_ read: SourceRead) {}

    /// Readings a slice of a fetch recounts at most (a year of minutes sent at once is read over several slices, each
    /// saved on its own, so memory stays bounded).
    static let readingsPerSlice = 5_000

    func read(after saved: SavedSource, now: Instant, byteLimit: Int64?, observeDevice: Bool) throws -> SourceRead {
        let recount = try store.read { tx in
            try tx.recountReceived(now: now, settle: settle, limit: byteLimit == nil ? Int.max : Self.readingsPerSlice)
        }
        var read = SourceRead(next: saved, watermark: recount.watermark)
        read.deviceBuckets = recount.deviceBuckets
        read.moreToRead = recount.moreToRead
        read.next.firstData = [saved.firstData, recount.firstData].compactMap { $0 }.min()
        read.changes.append(.counted(recount.marks))
        return read
    }
}
