import HabitCore

/// What a push does, decided from what the round knows, with no remote, clock or file: how
/// many operations the next batch holds (halved after a size refusal), the batch that sends
/// them, and what this device's own listing means for the acknowledged cursor.
public struct PushPlan: Equatable, Sendable {
    /// The most operations the remote's batches hold.
    public let remoteMost: Int
    /// The most operations the next batch holds.
    public private(set) var limit: Int

    /// A push to a remote whose batches hold at most `remoteMost` operations, and that an
    /// earlier round learnt takes at most `learnt` (it refused a larger batch).
    public init(remoteMost: Int, learnt: Int?) {
        self.remoteMost = remoteMost
        limit = max(1, min(remoteMost, learnt ?? .max))
    }

    /// The batch that sends `ops` (this device's next unsent operations, oldest first, with
    /// consecutive sequence numbers): its name is the range they cover; nil for none.
    public static func batch(_ ops: [HabitOperation]) -> BatchName? {
        guard let first = ops.first, let last = ops.last else { return nil }
        return BatchName(first: first.id.seq, last: last.id.seq)
    }

    /// After the remote refused a batch of `count` operations for its size, and did not write
    /// it: true when half of them go next (names stay the range sent, and a range's operations
    /// are always the same, so no two batches hold the same operations differently); false when
    /// a single operation was refused, and the refusal stands.
    public mutating func refused(count: Int) -> Bool {
        guard count > 1 else { return false }
        limit = count / 2
        return true
    }

    /// The limit to remember for this remote: set when it is below what the remote says it
    /// takes.
    public var learnt: Int? { limit < remoteMost ? limit : nil }

    /// What this device's own listing on a verified remote means before a push.
    public enum Start: Equatable, Sendable {
        /// The remote holds everything it acknowledged: push from the cursor.
        case fromCursor
        /// The remote lost operations it acknowledged (emptied, restored from an old backup,
        /// made again): send everything it lacks again, and verify.
        case sendAllAgain
    }

    /// `listed`: this device's batches on the remote; `acked`: the acknowledged cursor.
    public static func start(listed: [BatchName], acked: UInt64) -> Start {
        listed.contiguousEnd() < acked ? .sendAllAgain : .fromCursor
    }

    /// Before the push to a remote not verified yet (a new remote, a lost cursor, or a
    /// verification that failed): the cursor that takes as acknowledged this device's batches
    /// the remote holds, contiguous from operation 1 and within the `written` operations of
    /// the journal, so the push sends only the rest and never a batch overlapping them. Below
    /// the acknowledged cursor when the remote lacks operations it acknowledged (a server that
    /// answered a write and did not keep it): those are sent again. The cursor is not trusted
    /// here, since the remote is not verified yet.
    public static func alreadyHeld(listed: [BatchName], written: UInt64) -> UInt64 {
        listed.filter { $0.last <= written }.contiguousEnd()
    }

    /// What reading back this device's batches on a remote not verified yet found.
    public enum Verification: Equatable, Sendable {
        /// The remote holds every operation it acknowledged.
        case verified
        /// The remote lacks operations from `cursor + 1` that it acknowledged: the cursor goes
        /// back to `cursor`, so that they count as waiting and the next round sends them again.
        case lacks(cursor: UInt64)
    }

    /// `readBack`: the operations read back from operation 1 with no gap; `acked`: the cursor.
    public static func verification(readBack: UInt64, acked: UInt64) -> Verification {
        readBack >= acked ? .verified : .lacks(cursor: readBack)
    }
}
