import Foundation

/// A last-writer-wins register: the value with the greatest stamp.
public struct Register<Value: Hashable & Sendable>: Hashable, Sendable {
    public var value: Value
    public var stamp: Stamp
    public init(value: Value, stamp: Stamp) { self.value = value; self.stamp = stamp }
    /// Keeps whichever of the two writes has the greater stamp.
    mutating func merge(_ v: Value, _ s: Stamp) { if s > stamp { value = v; stamp = s } }
}

/// What is known about one habit on one day.
public struct DayRecord: Hashable, Sendable {
    /// Each device's own net progress delta; shown progress is their sum, never below 0.
    public var shares: [DeviceID: Int] = [:]
    public var skip: Register<Bool>?
    public var difficulty: Register<Int?>? // nil value = cleared
    public init() {}

    public var progress: Int { max(0, shares.values.reduce(0, +)) }
    public var isSkipped: Bool { skip?.value ?? false }
    public var rating: Int? { difficulty?.value ?? nil }
    var isEmpty: Bool { shares.values.allSatisfy { $0 == 0 } && skip == nil && difficulty == nil }
}

/// Everything known about one habit: field registers, tombstones and days.
public struct HabitEntry: Hashable, Sendable {
    /// The create operation's stamp; nil while only later edits have arrived.
    public var created: Stamp?
    /// Current field values (meaningful where a register has a stamp).
    public var fields: HabitFields
    /// One stamp per field register (see `FieldValue.index`).
    public var fieldStamps: [Stamp?]
    /// Delete operations seen, and delete operations cancelled by a restore.
    public var deletes: Set<OpID> = []
    public var restores: Set<OpID> = []
    public var days: [LocalDay: DayRecord] = [:]

    init() {
        fields = HabitFields(name: "", startDate: .earliest)
        fieldStamps = Array(repeating: nil, count: FieldValue.count)
    }
    /// True when some delete has not been cancelled by a restore.
    public var isDeleted: Bool { deletes.contains { !restores.contains($0) } }

    mutating func merge(_ value: FieldValue, _ stamp: Stamp) {
        if let old = fieldStamps[value.index], old >= stamp { return }
        value.apply(to: &fields)
        fieldStamps[value.index] = stamp
    }
}

/// The result of folding one operation.
public enum ApplyOutcome: Equatable, Sendable {
    case applied
    /// Seen before: re-delivery is a no-op.
    case duplicate
    /// A gap in that device's sequence: the operation was not applied.
    case outOfOrder(expected: UInt64)
}

/// The single derived state: `State = apply(ops)`. Two states that have seen the same set
/// of operations are equal (and encode to the same bytes), whatever the arrival order.
public struct HabitState: Hashable, Sendable {
    public internal(set) var entries: [HabitID: HabitEntry] = [:]
    /// Version vector: the highest contiguous sequence number applied per device.
    public internal(set) var seen: [DeviceID: UInt64] = [:]
    /// The greatest HLC reading among applied operations.
    public internal(set) var clock: HLC = .zero

    public init() {}

    /// Folds one operation in; idempotent, and commutative across devices.
    @discardableResult
    public mutating func apply(_ op: HabitOperation) -> ApplyOutcome {
        let last = seen[op.id.device] ?? 0
        if op.id.seq <= last { return .duplicate }
        if op.id.seq != last + 1 { return .outOfOrder(expected: last + 1) }
        seen[op.id.device] = op.id.seq
        if op.hlc > clock { clock = op.hlc }
        let stamp = op.stamp
        switch op.change {
        case .create(let h, let fields):
            entries[h, default: HabitEntry()].created = min(entries[h]?.created ?? stamp, stamp)
            for value in FieldValue.all(of: fields) { entries[h, default: HabitEntry()].merge(value, stamp) }
        case .set(let h, let value):
            entries[h, default: HabitEntry()].merge(value, stamp)
        case .delete(let h):
            entries[h, default: HabitEntry()].deletes.insert(op.id)
        case .restore(let h, let deleteOp):
            entries[h, default: HabitEntry()].restores.insert(deleteOp)
        case .progress(let h, let day, let delta):
            entries[h, default: HabitEntry()].days[day, default: DayRecord()].shares[op.id.device, default: 0] += delta
        case .skip(let h, let day, let skipped):
            updateDay(h, day) { rec in
                if rec.skip == nil { rec.skip = Register(value: skipped, stamp: stamp) } else { rec.skip!.merge(skipped, stamp) }
            }
        case .rate(let h, let day, let rating):
            updateDay(h, day) { rec in
                if rec.difficulty == nil { rec.difficulty = Register(value: rating, stamp: stamp) } else { rec.difficulty!.merge(rating, stamp) }
            }
        }
        return .applied
    }

    private mutating func updateDay(_ h: HabitID, _ day: LocalDay, _ body: (inout DayRecord) -> Void) {
        body(&entries[h, default: HabitEntry()].days[day, default: DayRecord()])
    }

    // MARK: Reading

    /// A habit that exists: created and not deleted (archived habits included).
    public func habit(_ id: HabitID) -> Habit? {
        guard let e = entries[id], e.created != nil, !e.isDeleted else { return nil }
        return Habit(id: id, fields: e.fields)
    }

    /// All existing habits (archived included), in creation order.
    public var habits: [Habit] {
        entries.compactMap { id, e -> (Stamp, Habit)? in
            guard let c = e.created, !e.isDeleted else { return nil }
            return (c, Habit(id: id, fields: e.fields))
        }
        .sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1.id < $1.1.id }
        .map(\.1)
    }

    /// Deleted habits' ids (tombstones), for delete/undo bookkeeping.
    public func isDeleted(_ id: HabitID) -> Bool { entries[id]?.isDeleted ?? false }

    /// The uncancelled delete operations of a habit.
    public func liveDeletes(of id: HabitID) -> [OpID] {
        guard let e = entries[id] else { return [] }
        return e.deletes.filter { !e.restores.contains($0) }.sorted()
    }

    /// The record of a habit's day, if anything was ever recorded.
    public func record(_ id: HabitID, _ day: LocalDay) -> DayRecord? { entries[id]?.days[day] }

    /// Progress on a day (sum of all devices' shares, never below 0).
    public func progress(_ id: HabitID, _ day: LocalDay) -> Int { record(id, day)?.progress ?? 0 }

    /// This device's own net share on a day.
    public func share(_ id: HabitID, _ day: LocalDay, device: DeviceID) -> Int {
        record(id, day)?.shares[device] ?? 0
    }

    public func isSkipped(_ id: HabitID, _ day: LocalDay) -> Bool { record(id, day)?.isSkipped ?? false }
    public func difficulty(_ id: HabitID, _ day: LocalDay) -> Int? { record(id, day)?.rating }

    /// Total operations applied (the sum of the version vector).
    public var operationCount: UInt64 { seen.values.reduce(0, +) }
}
