import FoundationEssentials

/// A last-writer-wins register: the value with the greatest stamp.
public struct Register<Value: Hashable & Sendable>: Hashable, Sendable {
    public var value: Value
    public var stamp: Stamp
    public init(value: Value, stamp: Stamp) { self.value = value; self.stamp = stamp }
    /// Keeps whichever of the two writes has the greater stamp.
    mutating func merge(_ v: Value, _ s: Stamp) { if s > stamp { value = v; stamp = s } }
}

/// One progress change on a day, with the stamp that orders it: a step that moves the
/// running total by `delta`, or (`setsTotal`) a "set" step that makes it `delta`.
public struct DayOp: Hashable, Comparable, Sendable {
    public let stamp: Stamp
    public let delta: Int
    /// A "set" step (`Change.setProgress`): the running total becomes `delta`.
    public let setsTotal: Bool
    public init(stamp: Stamp, delta: Int) { self.stamp = stamp; self.delta = delta; setsTotal = false }
    /// A "set" step to `total`.
    public init(stamp: Stamp, total: Int) { self.stamp = stamp; delta = total; setsTotal = true }
    /// By stamp (hybrid logical clock, then device); ties, which one device never makes,
    /// by kind and delta, so that any set of changes has one order.
    public static func < (a: DayOp, b: DayOp) -> Bool {
        a.stamp != b.stamp ? a.stamp < b.stamp : (a.setsTotal ? 1 : 0, a.delta) < (b.setsTotal ? 1 : 0, b.delta)
    }
    /// The running total after this step, from `total` before it, within 0…`Limits.maxDayProgress`.
    public func total(after total: Int) -> Int { min(Limits.maxDayProgress, max(0, setsTotal ? delta : total + delta)) }
}

/// What is known about one habit on one day. Compact: the common case (one change) needs
/// no allocation, and changes are kept sorted so equal days are equal values.
///
/// Progress is the running total of the day's progress changes taken in stamp order and
/// kept within 0…`Limits.maxDayProgress` at every step. The result depends only on the set
/// of changes (merging stays commutative); an uncheck takes back at most what the day held
/// before it, so no change can hide check-ins made after it, and a device can take back a
/// check-in made on another.
public struct DayRecord: Hashable, Sendable {
    /// The earliest progress change; `rest` holds the others, sorted, all later.
    var first: DayOp?
    var rest: [DayOp] = []
    /// The skip, difficulty and note registers, which most days do not have: kept out of
    /// line so that a day costs a few dozen bytes (years of history stay small).
    private var extras: Extras?
    public init() {}

    /// The rarely set registers of a day (immutable: a change replaces the box).
    final class Extras: Sendable {
        let skip: Register<Bool>?
        let difficulty: Register<Int?>?
        let note: Register<String?>?
        let notDone: Register<Bool>?
        let pause: Register<String?>?
        init(skip: Register<Bool>?, difficulty: Register<Int?>?, note: Register<String?>?, notDone: Register<Bool>?,
             pause: Register<String?>?) {
            self.skip = skip; self.difficulty = difficulty; self.note = note; self.notDone = notDone; self.pause = pause
        }
    }

    public var skip: Register<Bool>? {
        get { extras?.skip }
        set { setExtras(skip: newValue, difficulty: difficulty, note: noteRegister, notDone: notDoneRegister, pause: pauseRegister) }
    }
    /// nil value = cleared
    public var difficulty: Register<Int?>? {
        get { extras?.difficulty }
        set { setExtras(skip: skip, difficulty: newValue, note: noteRegister, notDone: notDoneRegister, pause: pauseRegister) }
    }
    /// nil value = cleared
    public var noteRegister: Register<String?>? {
        get { extras?.note }
        set { setExtras(skip: skip, difficulty: difficulty, note: newValue, notDone: notDoneRegister, pause: pauseRegister) }
    }
    /// The "not done" answer (see `Change.notDone`); false = withdrawn.
    public var notDoneRegister: Register<Bool>? {
        get { extras?.notDone }
        set { setExtras(skip: skip, difficulty: difficulty, note: noteRegister, notDone: newValue, pause: pauseRegister) }
    }
    /// The pause register (see `Change.pause`): the reason ("" for none) while the day is
    /// paused, nil once it is given back.
    public var pauseRegister: Register<String?>? {
        get { extras?.pause }
        set { setExtras(skip: skip, difficulty: difficulty, note: noteRegister, notDone: notDoneRegister, pause: newValue) }
    }

    private mutating func setExtras(skip: Register<Bool>?, difficulty: Register<Int?>?, note: Register<String?>?,
                                    notDone: Register<Bool>?, pause: Register<String?>?) {
        extras = skip == nil && difficulty == nil && note == nil && notDone == nil && pause == nil
            ? nil : Extras(skip: skip, difficulty: difficulty, note: note, notDone: notDone, pause: pause)
    }

    public static func == (a: DayRecord, b: DayRecord) -> Bool {
        a.first == b.first && a.rest == b.rest && a.skip == b.skip && a.difficulty == b.difficulty && a.noteRegister == b.noteRegister
            && a.notDoneRegister == b.notDoneRegister && a.pauseRegister == b.pauseRegister
    }
    public func hash(into h: inout Hasher) {
        h.combine(first); h.combine(rest); h.combine(skip); h.combine(difficulty); h.combine(noteRegister); h.combine(notDoneRegister)
        h.combine(pauseRegister)
    }

    /// The net of the day's check-ins and take-backs, set steps left out and no bound
    /// applied: what was recorded by hand (or imported), on any device. An auto habit's
    /// command adds its reading to it (see `AutoCheck.changes`).
    public var handSteps: Int { progressOps.reduce(0) { $1.setsTotal ? $0 : $0 + $1.delta } }
    /// Every progress change, in the order they are applied.
    public var progressOps: [DayOp] { (first.map { [$0] } ?? []) + rest }
    /// Shown progress: the running total in stamp order, within 0…`Limits.maxDayProgress`.
    public var progress: Int {
        guard let f = first else { return 0 }
        var total = f.total(after: 0)
        for op in rest { total = op.total(after: total) }
        return total
    }
    /// Skipped as every rule reads it: the skip register is on, or the day is paused.
    public var isSkipped: Bool { skip?.value ?? false || isPaused }
    /// The skip register alone (what a skip or unskip writes over), a pause left out.
    public var isSkipRegisterOn: Bool { skip?.value ?? false }
    /// Paused (see `Change.pause`): a skipped day with its own mark.
    public var isPaused: Bool { pauseRegister?.value != nil }
    /// The reason of the pause over the day, nil when none was given or it is not paused.
    public var pauseReason: String? { pauseRegister?.value.flatMap { $0.isEmpty ? nil : $0 } }
    public var rating: Int? { difficulty?.value ?? nil }
    public var note: String? { noteRegister?.value ?? nil }
    /// Answered as not done, and nothing recorded on the day overrides it: no progress, no skip.
    public var isAnsweredNotDone: Bool { notDoneRegister?.value == true && progress == 0 && !isSkipped }

    /// The sum of one device's own changes (what it recorded, before the day's bounds); a
    /// "set" step counts as what it set.
    public func share(of device: DeviceID) -> Int {
        progressOps.reduce(0) { $1.stamp.device == device ? $1.setsTotal ? $1.delta : $0 + $1.delta : $0 }
    }

    /// Adds one progress change in its place in stamp order.
    public mutating func add(_ op: DayOp) {
        guard let f = first else { first = op; return }
        if op < f {
            rest.insert(f, at: 0)
            first = op
            return
        }
        var lo = 0, hi = rest.count
        while lo < hi { let mid = (lo + hi) / 2; if rest[mid] < op { lo = mid + 1 } else { hi = mid } }
        rest.insert(op, at: lo)
    }

    /// Folds one day-level change (progress, skip, rate) stamped `stamp`.
    public mutating func apply(_ change: Change, stamp: Stamp) {
        switch change {
        case .progress(_, _, let delta):
            add(DayOp(stamp: stamp, delta: delta))
        case .setProgress(_, _, let total):
            add(DayOp(stamp: stamp, total: total))
        case .skip(_, _, let on):
            if var r = skip { r.merge(on, stamp); skip = r } else { skip = Register(value: on, stamp: stamp) }
        case .rate(_, _, let r):
            if var reg = difficulty { reg.merge(r, stamp); difficulty = reg } else { difficulty = Register(value: r, stamp: stamp) }
        case .note(_, _, let n):
            if var reg = noteRegister { reg.merge(n, stamp); noteRegister = reg } else { noteRegister = Register(value: n, stamp: stamp) }
        case .notDone(_, _, let on):
            if var reg = notDoneRegister { reg.merge(on, stamp); notDoneRegister = reg } else { notDoneRegister = Register(value: on, stamp: stamp) }
        case .pause(_, _, _, let reason):
            if var reg = pauseRegister { reg.merge(reason, stamp); pauseRegister = reg } else { pauseRegister = Register(value: reason, stamp: stamp) }
        default:
            break
        }
    }
}

/// A habit's days kept outside its entry until they are first needed (a snapshot's block,
/// decoded on first use), with the day-level changes folded in since. The core only reads
/// through it: the type behind it (HabitStore's `LazyDays`) decides what it decodes and keeps,
/// and is safe to share between copies of a state, which share it.
public protocol LoadableDays: AnyObject, Sendable {
    /// Every recorded day, the later changes applied.
    var days: [LocalDay: DayRecord] { get }
    /// The rules' view of every day, kept once computed.
    var columns: DayColumns { get }
    /// `columns` when they were computed already (nothing is decoded to answer).
    var cachedColumns: DayColumns? { get }
    /// The columns of at least the days from `from` on (earlier days may be there too),
    /// without decoding the older ones when nothing is decoded yet.
    func recentColumns(from: LocalDay) -> DayColumns
    /// One day's record, without decoding the others when they are not decoded yet
    /// (`peek`: through the quickest read, for a display that runs often).
    func record(_ day: LocalDay, peek: Bool) -> DayRecord?
    /// Whether changes were folded in since the days were loaded.
    var hasChanges: Bool { get }
    /// Folds a change in place; only for an owner that holds the only reference (see
    /// `HabitEntry.applyDay`).
    func append(_ change: PendingDay)
    /// These days with one more change folded in, leaving these unchanged (for an owner
    /// that shares them with a copy of the state).
    func adding(_ change: PendingDay) -> any LoadableDays
}

/// A day-level change waiting to be applied on top of days not decoded yet.
public struct PendingDay: Sendable {
    public let day: LocalDay
    public let change: Change
    public let stamp: Stamp
    public init(day: LocalDay, change: Change, stamp: Stamp) { self.day = day; self.change = change; self.stamp = stamp }
}
/// Where a dated register of a rule field sits (see `Change.setFrom`): its first day and
/// the field's register index. Ordered by day, then field.
public struct DatedField: Hashable, Comparable, Sendable {
    public let day: LocalDay
    public let index: Int
    public init(day: LocalDay, index: Int) { self.day = day; self.index = index }
    public static func < (a: DatedField, b: DatedField) -> Bool { (a.day, a.index) < (b.day, b.index) }
}

/// Everything known about one habit: field registers, tombstones and days.
public struct HabitEntry: Sendable {
    /// The create operation's stamp; nil while only later edits have arrived.
    public var created: Stamp?
    /// Current field values (meaningful where a register has a stamp).
    public var fields: HabitFields
    /// One stamp per field register (see `FieldValue.index`).
    public var fieldStamps: FieldStamps
    /// The rule fields' dated registers (`Change.setFrom`), last writer wins per field and
    /// day; a nil value is a cleared register (`Change.clearFrom`), a tombstone that keeps its
    /// stamp. A day reads each rule field from the latest register dated on or before it that
    /// is not cleared, or from `fields` when none is.
    public var dated: [DatedField: Register<FieldValue?>] = [:]
    /// Delete operations seen, and delete operations cancelled by a restore.
    public var deletes: Set<OpID> = []
    public var restores: Set<OpID> = []
    private var storedDays: [LocalDay: DayRecord] = [:]
    /// The days when they are still where they were loaded from (nil: in `storedDays`), in
    /// an immutable box of this entry's own: a copy of the state shares the box, so the box's
    /// uniqueness says whether the days may be changed in place (see `applyDay`).
    private var loaded: Loaded?
    private var lazyDays: (any LoadableDays)? { loaded?.days }

    /// The box `loaded` holds (immutable: its days are replaced with a new box).
    private final class Loaded: Sendable {
        let days: any LoadableDays
        init(_ days: any LoadableDays) { self.days = days }
    }

    init() {
        fields = HabitFields(name: "", startDate: .earliest)
        fieldStamps = FieldStamps()
    }

    /// An entry whose days are read through `days` when first needed (none: no days yet);
    /// `days` is this entry's alone (later changes are folded into it in place).
    public init(created: Stamp?, fields: HabitFields, fieldStamps: FieldStamps, dated: [DatedField: Register<FieldValue?>] = [:],
                deletes: Set<OpID>, restores: Set<OpID>, days: (any LoadableDays)?) {
        self.created = created; self.fields = fields; self.fieldStamps = fieldStamps; self.dated = dated
        self.deletes = deletes; self.restores = restores
        loaded = days.map(Loaded.init)
    }

    /// The habit's recorded days (decoded on first use when they come from a snapshot).
    public var days: [LocalDay: DayRecord] {
        get { lazyDays?.days ?? storedDays }
        _modify {
            if let l = lazyDays { storedDays = l.days; loaded = nil }
            yield &storedDays
        }
        set { loaded = nil; storedDays = newValue }
    }

    /// The days as the rules read them (kept once computed when they come from a source).
    public var columns: DayColumns { lazyDays?.columns ?? DayColumns(storedDays) }

    /// The columns of at least the days from `from` on (see `LoadableDays.recentColumns`).
    public func recentColumns(from: LocalDay) -> DayColumns {
        lazyDays?.recentColumns(from: from) ?? DayColumns(storedDays.filter { $0.key >= from })
    }

    /// One day's record, without decoding the other days when they are not decoded yet.
    public func record(_ day: LocalDay) -> DayRecord? { lazyDays.map { $0.record(day, peek: false) } ?? storedDays[day] }

    /// One day's record read as quickly as its source allows (a snapshot block's checksum is
    /// not checked): for a display that runs often, such as the prompt segment.
    public func peekRecord(_ day: LocalDay) -> DayRecord? { lazyDays.map { $0.record(day, peek: true) } ?? storedDays[day] }

    /// What the rules read of one day, without decoding records that are not decoded yet.
    func dayValues(_ day: LocalDay) -> (progress: Int, skipped: Bool, rating: Int?) {
        if let l = lazyDays {
            if let c = l.cachedColumns {
                guard let i = c.index(of: day) else { return (0, false, nil) }
                return (c.progress(at: i), c.isSkipped(at: i), c.rating(at: i))
            }
            // Not computed yet: the one record, read through the block's index (an edit
            // reads the day it changes without decoding years of others).
            guard let r = l.record(day, peek: false) else { return (0, false, nil) }
            return (max(0, r.progress), r.isSkipped, r.rating)
        }
        guard let r = storedDays[day] else { return (0, false, nil) }
        return (max(0, r.progress), r.isSkipped, r.rating)
    }

    /// Whether the day was answered as not done, from the columns when they are computed.
    func isAnsweredNotDone(_ day: LocalDay) -> Bool {
        if let c = lazyDays?.cachedColumns { return c.isAnsweredNotDone(on: day) }
        return record(day)?.isAnsweredNotDone ?? false
    }

    /// Whether the day is paused, from the columns when they are computed.
    func isPaused(_ day: LocalDay) -> Bool {
        if let c = lazyDays?.cachedColumns { return c.isPaused(on: day) }
        return record(day)?.isPaused ?? false
    }

    /// The days as they were loaded, when they were neither decoded into this entry nor
    /// changed since (a snapshot can then copy its bytes as they are).
    public var unchangedDays: (any LoadableDays)? {
        guard let l = lazyDays, !l.hasChanges else { return nil }
        return l
    }

    /// The fields as every rule and screen reads them. Each register holds a valid value,
    /// but concurrent edits of two fields can combine into what local input refuses; such a
    /// combination is resolved here, the same way on every device:
    /// - a limit habit with an N-per-week schedule: the newer of the two edits wins, so the
    ///   habit is a build habit (the schedule is newer) or a daily limit habit (the kind is);
    /// - a build habit with goal 0: its goal is read as 1 (one unit);
    /// - an archive date before the start date: read as the start date (tracked on no day).
    /// A dated definition is resolved the same way, with the stamps of the registers in force.
    public var effectiveFields: HabitFields { Self.resolved(fields, fieldStamps) }

    static func resolved(_ fields: HabitFields, _ stamps: FieldStamps) -> HabitFields {
        var f = fields
        if f.kind == .limit, f.schedule.isQuota {
            let kindStamp = stamps[FieldValue.kind(.build).index]
            let scheduleStamp = stamps[FieldValue.schedule(.daily).index]
            if let k = kindStamp, scheduleStamp.map({ k > $0 }) ?? true { f.schedule = .daily } else { f.kind = .build }
        }
        if f.kind == .build, f.goal < 1 { f.goal = Amount.scale }
        if let a = f.archivedFrom, a < f.startDate { f.archivedFrom = f.startDate }
        return f
    }

    /// The habit as every rule and screen reads it: `effectiveFields`, with the history of
    /// definitions the dated registers make (each resolved as `effectiveFields` is). A
    /// definition from the start date or earlier replaces the ones before it, and a day that
    /// changes nothing starts no definition.
    public func habit(_ id: HabitID) -> Habit {
        let base = effectiveFields
        // Cleared registers set nothing: the days read past them.
        let sorted = dated.compactMap { key, r in r.value.map { (key: key, value: $0, stamp: r.stamp) } }.sorted { $0.key < $1.key }
        guard !sorted.isEmpty else { return Habit(id: id, fields: base) }
        var raw = fields, stamps = fieldStamps
        var definitions = [DatedRule(from: .earliest, rule: base.rule)]
        var i = 0
        while i < sorted.count {
            let day = sorted[i].key.day
            while i < sorted.count && sorted[i].key.day == day {
                sorted[i].value.apply(to: &raw)
                stamps[sorted[i].key.index] = sorted[i].stamp
                i += 1
            }
            let rule = Self.resolved(raw, stamps).rule
            if day <= base.startDate { definitions = [DatedRule(from: .earliest, rule: rule)] }
            else if rule != definitions[definitions.count - 1].rule { definitions.append(DatedRule(from: day, rule: rule)) }
        }
        return Habit(id: id, fields: base, definitions: definitions)
    }

    /// The value a rule field's registers give `day` (before the resolution of
    /// `effectiveFields`): the latest dated register on or before it that is not cleared,
    /// else the field's own.
    public func ruleValue(index: Int, on day: LocalDay) -> FieldValue {
        let key = dated.filter { $0.key.index == index && $0.key.day <= day && $0.value.value != nil }.keys.max()
        return key.flatMap { dated[$0]?.value } ?? FieldValue.current(index: index, of: fields)
    }

    /// True when some delete has not been cancelled by a restore.
    public var isDeleted: Bool { deletes.contains { !restores.contains($0) } }

    mutating func merge(_ value: FieldValue, _ stamp: Stamp) {
        if let old = fieldStamps[value.index], old >= stamp { return }
        value.apply(to: &fields)
        fieldStamps[value.index] = stamp
    }

    /// Folds a rule field set from `day` on into its dated register (last writer wins).
    mutating func mergeDated(_ day: LocalDay, _ value: FieldValue, _ stamp: Stamp) { mergeDated(day, value.index, value, stamp) }

    /// Folds a write of the dated register of field `index` on `day`: a value, or nil to
    /// clear it (a tombstone that keeps its stamp); last writer wins either way.
    mutating func mergeDated(_ day: LocalDay, _ index: Int, _ value: FieldValue?, _ stamp: Stamp) {
        guard HabitRule.fieldIndices.contains(index) else { return }
        let key = DatedField(day: day, index: index)
        if var r = dated[key] { r.merge(value, stamp); dated[key] = r } else { dated[key] = Register(value: value, stamp: stamp) }
    }

    /// Folds a day-level change without decoding days that were not decoded yet.
    mutating func applyDay(_ day: LocalDay, _ change: Change, _ stamp: Stamp) {
        if loaded != nil {
            let p = PendingDay(day: day, change: change, stamp: stamp)
            // Shared with a copy of the state: a new one; else changed in place.
            if isKnownUniquelyReferenced(&loaded) { loaded!.days.append(p) } else { loaded = Loaded(loaded!.days.adding(p)) }
        } else {
            storedDays[day, default: DayRecord()].apply(change, stamp: stamp)
        }
    }
}

extension HabitEntry: Hashable {
    public static func == (a: HabitEntry, b: HabitEntry) -> Bool {
        a.created == b.created && a.fields == b.fields && a.fieldStamps == b.fieldStamps && a.dated == b.dated
            && a.deletes == b.deletes && a.restores == b.restores && a.days == b.days
    }
    public func hash(into h: inout Hasher) {
        h.combine(created); h.combine(fields); h.combine(fieldStamps); h.combine(dated); h.combine(deletes); h.combine(restores)
        h.combine(days)
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
            // A create without an order key or reminder times leaves those registers unset (as
            // before they existed): the habit sorts by creation, and states and snapshots
            // stay as they were.
            for value in FieldValue.all(of: fields) where value != .position(nil) && value != .reminders([]) {
                entries[h, default: HabitEntry()].merge(value, stamp)
            }
        case .set(let h, let value):
            entries[h, default: HabitEntry()].merge(value, stamp)
        case .setFrom(let h, let day, let value):
            entries[h, default: HabitEntry()].mergeDated(day, value, stamp)
        case .clearFrom(let h, let day, let index):
            entries[h, default: HabitEntry()].mergeDated(day, index, nil, stamp)
        case .delete(let h):
            entries[h, default: HabitEntry()].deletes.insert(op.id)
        case .restore(let h, let deleteOp):
            entries[h, default: HabitEntry()].restores.insert(deleteOp)
        case .progress(let h, let day, _), .setProgress(let h, let day, _), .skip(let h, let day, _), .rate(let h, let day, _),
             .note(let h, let day, _), .notDone(let h, let day, _):
            entries[h, default: HabitEntry()].applyDay(day, op.change, stamp)
        case .pause(let h, let from, let to, _):
            // One register per day; the range is bounded (`Limits.maxPauseDays`) where it is
            // validated and decoded.
            var day = from
            while day <= to {
                entries[h, default: HabitEntry()].applyDay(day, op.change, stamp)
                day = day.adding(1)
            }
        }
        return .applied
    }

    /// A state rebuilt from its parts (a snapshot's version vector, clock and entries).
    public init(seen: [DeviceID: UInt64], clock: HLC, entries: [HabitID: HabitEntry]) {
        self.seen = seen; self.clock = clock; self.entries = entries
    }

    // MARK: Reading

    /// A habit that exists: created and not deleted (archived habits included).
    public func habit(_ id: HabitID) -> Habit? {
        guard let e = entries[id], e.created != nil, !e.isDeleted else { return nil }
        return e.habit(id)
    }

    /// All existing habits (archived included), in the user's order: habits moved with
    /// `Edits.move` by their order key, then the others in creation order (see `ordered`).
    public var habits: [Habit] {
        entries.compactMap { id, e -> (Stamp, Habit)? in
            guard let c = e.created, !e.isDeleted else { return nil }
            return (c, e.habit(id))
        }
        .sorted { HabitState.ordered(($0.1.fields.position, $0.0, $0.1.id), ($1.1.fields.position, $1.0, $1.1.id)) }
        .map(\.1)
    }

    /// The existing habits (archived included) whose lowercased name is `lowercasedName`, in
    /// no particular order: finding a habit by its whole name builds only the ones named so.
    public func habits(namedLowercased lowercasedName: String) -> [Habit] {
        var found: [Habit] = []
        for (id, e) in entries where e.created != nil && e.fields.name.lowercased() == lowercasedName && !e.isDeleted {
            found.append(e.habit(id))
        }
        return found
    }

    /// Deleted habits' ids (tombstones), for delete/undo bookkeeping.
    public func isDeleted(_ id: HabitID) -> Bool { entries[id]?.isDeleted ?? false }

    /// The uncancelled delete operations of a habit.
    public func liveDeletes(of id: HabitID) -> [OpID] {
        guard let e = entries[id] else { return [] }
        return e.deletes.filter { !e.restores.contains($0) }.sorted()
    }

    /// The record of a habit's day, if anything was ever recorded.
    public func record(_ id: HabitID, _ day: LocalDay) -> DayRecord? { entries[id]?.record(day) }

    /// Progress on a day (see `DayRecord.progress`).
    public func progress(_ id: HabitID, _ day: LocalDay) -> Int { entries[id]?.dayValues(day).progress ?? 0 }

    /// The sum of one device's own changes on a day.
    public func share(_ id: HabitID, _ day: LocalDay, device: DeviceID) -> Int {
        record(id, day)?.share(of: device) ?? 0
    }

    public func isSkipped(_ id: HabitID, _ day: LocalDay) -> Bool { entries[id]?.dayValues(day).skipped ?? false }
    public func difficulty(_ id: HabitID, _ day: LocalDay) -> Int? { entries[id]?.dayValues(day).rating }
    public func note(_ id: HabitID, _ day: LocalDay) -> String? { record(id, day)?.note }
    /// Whether the day was answered as not done (see `DayRecord.isAnsweredNotDone`).
    public func isAnsweredNotDone(_ id: HabitID, _ day: LocalDay) -> Bool { entries[id]?.isAnsweredNotDone(day) ?? false }
    /// Whether the day is paused (see `Change.pause`); a paused day is also `isSkipped`.
    public func isPaused(_ id: HabitID, _ day: LocalDay) -> Bool { entries[id]?.isPaused(day) ?? false }

    /// Total operations applied (the sum of the version vector).
    public var operationCount: UInt64 { seen.values.reduce(0, +) }
}
