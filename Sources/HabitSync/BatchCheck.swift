import FoundationEssentials
import HabitCore
import HabitStore

/// Compares this device's batches on a remote with its journal (for the doctor).
public enum BatchCheck {
    /// One line per batch of `device` on the remote whose bytes are not what this device's
    /// operations encode to (damaged or replaced on the remote), or that holds operations the
    /// journal does not have. `local` is the device's operations from its journal, oldest
    /// first with sequence numbers from 1. Reads every batch of the device.
    public static func differences(remote: any Remote, account: String, device: DeviceID,
                                   local: [HabitOperation]) async throws -> [String] {
        var out: [String] = []
        for batch in try await remote.batches(account: account, device: device) {
            guard batch.last <= UInt64(local.count) else {
                out.append("this device's batch \(batch) on the remote holds operations up to #\(batch.last), but the journal has only \(local.count)")
                continue
            }
            let bytes = try await remote.read(account: account, device: device, batch: batch, maxBytes: BatchFile.maxBytes)
            let expected = Array(local[Int(batch.first - 1)..<Int(batch.last)])
            // The rule of a push's retry: the same operations, in whichever format version.
            if !BatchAck.acknowledges(bytes, BatchFile.encode(expected), device: device, name: batch) {
                out.append("this device's batch \(batch) on the remote differs from the journal's operations \(batch.first)–\(batch.last) (damaged or changed there)")
            }
        }
        return out
    }
}
