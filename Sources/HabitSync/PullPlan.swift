import FoundationEssentials
import HabitCore

/// Which batch of a device a round reads next, decided from that device's listing and what
/// this device has of it, with no remote, clock or file: each time the batch that continues
/// from the next operation and reaches furthest (ranges may overlap after a compaction, so a
/// compacted range is one read and an operation that arrives twice is applied once). The
/// same plan reads this device's own batches back to verify a first push.
public struct PullPlan: Equatable, Sendable {
    /// The device's batches as last listed, sorted, less those refused.
    public private(set) var listed: [BatchName]
    /// The last operation of the device held here (every one up to it).
    public private(set) var seen: UInt64
    /// Whether the device was listed again this round after a batch went missing.
    public private(set) var relisted = false

    public init(listed: [BatchName], seen: UInt64) {
        self.listed = listed.sorted()
        self.seen = seen
    }

    /// What to do next.
    public enum Step: Equatable, Sendable {
        /// Read this batch and apply it.
        case read(BatchName)
        /// The listing goes on past `seen`, but no batch holds operation `seen + 1` (the
        /// first one after it is `next`): nothing after the gap is applied; the device is
        /// reported as waiting for it.
        case gap(next: BatchName)
        /// Nothing in the listing is beyond `seen` (also when the listing ends before it).
        case done
    }

    public var next: Step {
        guard let after = listed.first(where: { $0.last > seen }) else { return .done }
        guard let batch = listed.filter({ $0.first <= seen + 1 && $0.last > seen }).max(by: { $0.last < $1.last }) else {
            return .gap(next: after)
        }
        return .read(batch)
    }

    /// The batch `batch` was read and applied.
    public mutating func read(_ batch: BatchName) { seen = max(seen, batch.last) }

    /// The batch `batch` was refused (damaged, not decrypting, not authentic): it is left out,
    /// so the device's other batches still apply (a squatted `3-1002.batch` hides none of its
    /// real batches from operation 3 on).
    public mutating func refuse(_ batch: BatchName) {
        refused.insert(batch)
        listed.removeAll { $0 == batch }
    }

    /// The batches refused this round (left out of a new listing too).
    public private(set) var refused: Set<BatchName> = []

    /// A batch that was listed is gone when read (its device compacted since, and a batch
    /// covering it is there now): true when the device is to be listed again and the plan
    /// goes on from `relist`; false when it was listed again already this round, and the
    /// missing batch is reported.
    public mutating func missing() -> Bool {
        guard !relisted else { return false }
        relisted = true
        return true
    }

    /// Goes on from a new listing of the device.
    public mutating func relist(_ batches: [BatchName]) { listed = batches.filter { !refused.contains($0) }.sorted() }

    // MARK: What other devices saw

    /// The most of a device that another device's batch said it had seen, and which device said so.
    public struct Claim: Codable, Equatable, Sendable {
        public var seq: UInt64
        public var by: DeviceID
        public init(seq: UInt64, by: DeviceID) { self.seq = seq; self.by = by }
    }

    /// `claims` with the seen vector `seen` of a batch that `writer` wrote folded in: each
    /// device's highest claim is kept (the first writer to claim it, on a tie), none about
    /// `me` (this device's own listing is checked by its push) or about the writer itself.
    public static func noting(_ seen: [DeviceID: UInt64], by writer: DeviceID, me: DeviceID,
                              into claims: [DeviceID: Claim]) -> [DeviceID: Claim] {
        var out = claims
        for (device, seq) in seen where device != me && device != writer && seq > (out[device]?.seq ?? 0) {
            out[device] = Claim(seq: seq, by: writer)
        }
        return out
    }

    /// When `device`'s listing (`listed`) holds less, contiguously from its first operation,
    /// than `claim` says another device saw: the one line that says so (the remote withholds
    /// them, or was restored from an old copy); nil otherwise. A claim by `me` is what this
    /// device holds.
    public static func shortfall(of device: DeviceID, listed: [BatchName], claim: Claim?, me: DeviceID? = nil) -> String? {
        let end = listed.contiguousEnd()
        guard let claim, claim.seq > end else { return nil }
        let holds = end == 0 ? "nothing of device \(device.rawValue.prefix(8))" : "device \(device.rawValue.prefix(8)) up to \(end)"
        let missing = end + 1 == claim.seq ? "operation \(claim.seq) is" : "operations \(end + 1)-\(claim.seq) are"
        let who = claim.by == me ? "this device holds it" : "device \(claim.by.rawValue.prefix(8)) saw it"
        return "the remote holds \(holds); \(who) up to \(claim.seq) (\(missing) withheld or lost)"
    }

    /// The batches that send again what this device holds of a device (every operation up to
    /// `held`) and its listing `listed` lacks: each range of operations no listed batch holds,
    /// from its first operation, cut into batches of at most `most` from where the range
    /// starts. The names depend only on the listing and `held`, and never overlap a listed
    /// batch, so two devices that fill the same hole write the same batches.
    public static func refill(listed: [BatchName], held: UInt64, most: Int) -> [BatchName] {
        let step = UInt64(max(1, most))
        var out: [BatchName] = []
        // The first operation not yet held by a listed or planned batch (nil: all of them).
        var next: UInt64? = 1
        func fill(upTo end: UInt64) {
            while let from = next, from <= end {
                let last = from + min(step - 1, end - from)
                if let name = BatchName(first: from, last: last) { out.append(name) }
                next = last == .max ? nil : last + 1
            }
        }
        for b in listed.sorted() {
            guard let from = next, from <= held else { break }
            if b.first > from { fill(upTo: min(held, b.first - 1)) }
            if let from = next, b.last >= from { next = b.last == .max ? nil : b.last + 1 }
        }
        fill(upTo: held)
        return out
    }

    /// How far ahead of `now` the newest operation read of a device was, when more than a
    /// minute (its clock is ahead); nil otherwise.
    public static func clockAhead(newestMillis: Int64, now: Date) -> Double? {
        let ahead = Double(newestMillis) / 1000 - now.timeIntervalSince1970
        return ahead > 60 ? ahead : nil
    }

    /// The devices kept in the status when `present` are more than `most`: those this device
    /// has operations of (`known`) first, then in id order; and how many were left out.
    public static func kept(_ present: Set<DeviceID>, known: Set<DeviceID>, most: Int) -> (kept: Set<DeviceID>, left: Int) {
        guard present.count > most else { return (present, 0) }
        let first = present.intersection(known).sorted(), rest = present.subtracting(known).sorted()
        return (Set((first + rest).prefix(most)), present.count - most)
    }
}
