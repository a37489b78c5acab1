import FoundationEssentials

/// A device's stable random identity: 128 random bits, written as 32 lower-case hex
/// characters. Stored as two integers, so it costs no allocation.
public struct DeviceID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let hi: UInt64
    public let lo: UInt64
    public init(hi: UInt64, lo: UInt64) { self.hi = hi; self.lo = lo }
    /// Accepts only 32 lower-case hex characters.
    public init?(_ raw: String) {
        guard raw.utf8.count == 32, isLowerHex(raw),
              let h = UInt64(raw.prefix(16), radix: 16), let l = UInt64(raw.suffix(16), radix: 16)
        else { return nil }
        hi = h; lo = l
    }
    /// The 32-character hex form.
    public var rawValue: String { hex(hi, width: 16) + hex(lo, width: 16) }
    /// A new random id from the given generator.
    public static func random<G: RandomNumberGenerator>(using g: inout G) -> DeviceID {
        DeviceID(hi: UInt64.random(in: .min ... .max, using: &g), lo: UInt64.random(in: .min ... .max, using: &g))
    }
    public var description: String { rawValue }
    public static func < (a: DeviceID, b: DeviceID) -> Bool { (a.hi, a.lo) < (b.hi, b.lo) }
}

/// A device id in a coded document is its 32-character hex form, as a value and as a
/// dictionary key (so a table of devices is an object keyed by id); anything else is refused.
extension DeviceID: Codable, CodingKeyRepresentable {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        guard let id = DeviceID(try c.decode(String.self)) else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "not a device id (32 lower-case hex digits)")
        }
        self = id
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
    }

    private struct Key: CodingKey {
        let stringValue: String
        init(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    public var codingKey: any CodingKey { Key(stringValue: rawValue) }

    public init?<T: CodingKey>(codingKey: T) { self.init(codingKey.stringValue) }
}

/// An operation's identity: the device that made it and its sequence number there (from 1).
public struct OpID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let device: DeviceID
    public let seq: UInt64
    public init(device: DeviceID, seq: UInt64) { self.device = device; self.seq = seq }
    public var description: String { "\(hex(device.hi, width: 16).prefix(8))#\(seq)" }
    public static func < (a: OpID, b: OpID) -> Bool { (a.device, a.seq) < (b.device, b.seq) }
}

/// A hybrid logical clock reading: wall-clock milliseconds plus a logical counter.
/// It never goes backwards on one device and always moves past every reading it has seen,
/// so causality survives clocks that disagree.
public struct HLC: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var wallMillis: Int64
    public var counter: UInt32
    public init(wallMillis: Int64, counter: UInt32) { self.wallMillis = wallMillis; self.counter = counter }
    public static let zero = HLC(wallMillis: 0, counter: 0)

    /// The next reading for a local event at physical time `nowMillis`.
    public func tick(nowMillis: Int64) -> HLC {
        nowMillis > wallMillis ? HLC(wallMillis: nowMillis, counter: 0)
                               : HLC(wallMillis: wallMillis, counter: counter &+ 1)
    }
    /// The clock after seeing a reading from elsewhere (it never goes backwards).
    public func observing(_ other: HLC) -> HLC { max(self, other) }

    public static func < (a: HLC, b: HLC) -> Bool { (a.wallMillis, a.counter) < (b.wallMillis, b.counter) }
    public var description: String { "\(wallMillis).\(counter)" }
}

/// The total order that decides last-writer-wins registers: HLC, then device id.
public struct Stamp: Hashable, Comparable, Sendable {
    public let hlc: HLC
    public let device: DeviceID
    public init(hlc: HLC, device: DeviceID) { self.hlc = hlc; self.device = device }
    public static func < (a: Stamp, b: Stamp) -> Bool { a.hlc != b.hlc ? a.hlc < b.hlc : a.device < b.device }
}

/// One field of a habit with its new value.
public enum FieldValue: Hashable, Sendable {
    case name(String)
    case icon(String?)
    case color(String?)
    case kind(HabitKind)
    case goal(Int)
    case unit(String?)
    case schedule(Schedule)
    case startDate(LocalDay)
    case archivedFrom(LocalDay?)
    case notes(String?)
    case group(String?)
    /// The habit's order key (see `OrderKey`), nil for creation order.
    case position(String?)
    /// The habit's reminder times (see `ReminderTime`), sorted; empty for none.
    case reminders([ReminderTime])

    /// The register index of this field, 0–12.
    public var index: Int {
        switch self {
        case .name: 0
        case .icon: 1
        case .color: 2
        case .kind: 3
        case .goal: 4
        case .unit: 5
        case .schedule: 6
        case .startDate: 7
        case .archivedFrom: 8
        case .notes: 9
        case .group: 10
        case .position: 11
        case .reminders: 12
        }
    }
    /// How many field registers a habit has.
    public static let count = 13
    /// How many field registers encodings had before the order key (index 11) existed.
    public static let countBeforePosition = 11
    /// How many field registers encodings had before reminder times (index 12) existed.
    public static let countBeforeReminders = 12
    /// The field counts an encoding may have, oldest first.
    public static let storedCounts = [countBeforePosition, countBeforeReminders, count]

    /// How many fields a create of `fields` is written with: a habit without reminder times
    /// (and without an order key) is written as before those fields existed.
    public static func storedCount(of fields: HabitFields) -> Int {
        !fields.reminders.isEmpty ? count : fields.position != nil ? countBeforeReminders : countBeforePosition
    }

    /// Writes the value into `fields`.
    public func apply(to fields: inout HabitFields) {
        switch self {
        case .name(let v): fields.name = v
        case .icon(let v): fields.icon = v
        case .color(let v): fields.color = v
        case .kind(let v): fields.kind = v
        case .goal(let v): fields.goal = v
        case .unit(let v): fields.unit = v
        case .schedule(let v): fields.schedule = v
        case .startDate(let v): fields.startDate = v
        case .archivedFrom(let v): fields.archivedFrom = v
        case .notes(let v): fields.notes = v
        case .group(let v): fields.group = v
        case .position(let v): fields.position = v
        case .reminders(let v): fields.reminders = v
        }
    }

    /// The value `fields` holds for the same field.
    public static func current(index: Int, of f: HabitFields) -> FieldValue {
        switch index {
        case 0: .name(f.name)
        case 1: .icon(f.icon)
        case 2: .color(f.color)
        case 3: .kind(f.kind)
        case 4: .goal(f.goal)
        case 5: .unit(f.unit)
        case 6: .schedule(f.schedule)
        case 7: .startDate(f.startDate)
        case 8: .archivedFrom(f.archivedFrom)
        case 9: .notes(f.notes)
        case 10: .group(f.group)
        case 11: .position(f.position)
        default: .reminders(f.reminders)
        }
    }

    /// All field values of `fields`, in register order.
    public static func all(of f: HabitFields) -> [FieldValue] { (0..<count).map { current(index: $0, of: f) } }
}

/// What an operation does. Every kind merges commutatively (see `HabitState.apply`).
public enum Change: Hashable, Sendable {
    /// A new habit with all its fields.
    case create(HabitID, HabitFields)
    /// One field set (last writer wins per habit and field). A rule field (kind, goal,
    /// unit, schedule) set so is its value from the start, before any dated setting.
    case set(HabitID, FieldValue)
    /// A rule field (kind, goal, unit or schedule; see `HabitRule.fieldIndices`) set from
    /// a day on: the days from it up to the field's next dated setting read this value
    /// (last writer wins per habit, field and day).
    case setFrom(HabitID, LocalDay, FieldValue)
    /// A rule field's dated register on a day cleared (`index`: one of
    /// `HabitRule.fieldIndices`): a tombstone in the register's last-writer-wins order, so the
    /// day reads past it to the field's dated setting before it (or the field's own value),
    /// and a `setFrom` of the same day and field wins over it only when stamped later. What
    /// undoing a dated edit writes where the edit made a register that did not exist.
    case clearFrom(HabitID, LocalDay, index: Int)
    /// A tombstone: beats concurrent and later edits unless this exact delete is restored.
    case delete(HabitID)
    /// Cancels one delete operation (undo of a delete).
    case restore(HabitID, deleteOp: OpID)
    /// This device's share of progress on a day moves by `delta` (non-zero).
    case progress(HabitID, LocalDay, delta: Int)
    /// The day's running total is set to `total` (0…`Limits.maxDayProgress`) at this point
    /// of the stamp order: a "set" step, what an auto habit's command measured. Progress
    /// changes stamped after it add to it (see `DayRecord.progress`).
    case setProgress(HabitID, LocalDay, total: Int)
    /// The day is skipped (true) or not (false); last writer wins.
    case skip(HabitID, LocalDay, Bool)
    /// The day's difficulty 1–5, or nil to clear; last writer wins.
    case rate(HabitID, LocalDay, Int?)
    /// The day's note, or nil to clear; last writer wins.
    case note(HabitID, LocalDay, String?)
    /// The day was answered as not done (true), or that answer is withdrawn (false); last
    /// writer wins. The day counts as missed like any day without progress; catching up
    /// does not ask about it again, and progress or a skip on the day overrides it.
    case notDone(HabitID, LocalDay, Bool)
    /// The days `from`…`to` (at most `Limits.maxPauseDays`) are paused, with `reason` ("" for
    /// none), or (nil) not paused: one last-writer-wins register per day. A paused day is a
    /// skipped day for every rule (see docs/rules.md); ending or undoing a pause writes nil
    /// over the days it gives back.
    case pause(HabitID, from: LocalDay, to: LocalDay, reason: String?)

    /// The habit the change is about.
    public var habit: HabitID {
        switch self {
        case .create(let h, _), .set(let h, _), .setFrom(let h, _, _), .clearFrom(let h, _, _),
             .delete(let h), .restore(let h, _),
             .progress(let h, _, _), .setProgress(let h, _, _), .skip(let h, _, _), .rate(let h, _, _),
             .note(let h, _, _), .notDone(let h, _, _), .pause(let h, _, _, _): return h
        }
    }
}

/// A stamped change: `{device, seq, hlc, change}`. `(device, seq)` is its identity.
public struct HabitOperation: Hashable, Sendable {
    public let id: OpID
    public let hlc: HLC
    public let change: Change
    public init(id: OpID, hlc: HLC, change: Change) { self.id = id; self.hlc = hlc; self.change = change }
    public var stamp: Stamp { Stamp(hlc: hlc, device: id.device) }
}
