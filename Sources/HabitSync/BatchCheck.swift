import FoundationEssentials
import HabitCore
import HabitStore

/// Compares this device's batches on a remote with its journal (for the doctor).
public enum BatchCheck {
    /// A batch of this device on the remote that does not hold what the journal does.
    public struct Difference: Equatable, Sendable {
        /// The batch, as the remote names it.
        public let batch: BatchName
        /// True when no device can apply it: it does not read as this device's operations of
        /// its range (damaged, truncated, another batch's bytes, or on an encrypted remote a
        /// file that does not decrypt). Its operations are all in the journal, so removing it
        /// and sending them again loses nothing. False: it holds other valid operations (another
        /// device using this device's id, or edited by hand), which only a person can judge.
        public let unreadable: Bool
        /// One line naming the batch.
        public let line: String
    }

    /// The batches of `device` on the remote whose bytes are not what this device's
    /// operations encode to (damaged or replaced on the remote), or that hold operations the
    /// journal does not have. `local` is the device's operations from its journal, oldest
    /// first with sequence numbers from 1. Reads every batch of the device; a batch that
    /// cannot be read as one (a file that does not decrypt) is a difference, not an error.
    public static func differences(remote: any Remote, account: String, device: DeviceID,
                                   local: [HabitOperation]) async throws -> [Difference] {
        var out: [Difference] = []
        for batch in try await remote.batches(account: account, device: device) {
            guard batch.last <= UInt64(local.count) else {
                out.append(Difference(batch: batch, unreadable: false,
                                      line: "this device's batch \(batch) on the remote holds operations up to #\(batch.last), but the journal has only \(local.count)"))
                continue
            }
            let damaged = Difference(batch: batch, unreadable: true,
                                     line: "this device's batch \(batch) on the remote differs from the journal's operations \(batch.first)–\(batch.last) (damaged or changed there, so no device applies it)")
            let bytes: [UInt8]
            do {
                bytes = try await remote.read(account: account, device: device, batch: batch, maxBytes: BatchFile.maxBytes)
            } catch RemoteError.damaged {
                out.append(damaged)
                continue
            }
            let expected = Array(local[Int(batch.first - 1)..<Int(batch.last)])
            // The rule of a push's retry: the same operations, in whichever format version.
            if BatchAck.acknowledges(bytes, BatchFile.encode(expected), device: device, name: batch) { continue }
            if (try? BatchFile.decode(bytes, device: device, name: batch)) == nil {
                out.append(damaged)
            } else {
                out.append(Difference(batch: batch, unreadable: false,
                                      line: "this device's batch \(batch) on the remote holds operations \(batch.first)–\(batch.last) other than the journal's (another device may be using this device's id, or the file was changed by hand)"))
            }
        }
        return out
    }
}
