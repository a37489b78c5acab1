import FoundationEssentials

/// Appends the compact binary encoding used by the journal, snapshots and sync batches.
/// Every encoding is deterministic: the same value always gives the same bytes.
public struct ByteWriter: Sendable {
    public private(set) var bytes: [UInt8] = []
    public init(capacity: Int = 64) { bytes.reserveCapacity(capacity) }

    public mutating func u8(_ v: UInt8) { bytes.append(v) }
    public mutating func bool(_ v: Bool) { bytes.append(v ? 1 : 0) }
    public mutating func u32le(_ v: UInt32) {
        for i in 0..<4 { bytes.append(UInt8(truncatingIfNeeded: v >> (8 * UInt32(i)))) }
    }
    public mutating func u64le(_ v: UInt64) {
        for i in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: v >> (8 * UInt64(i)))) }
    }
    public mutating func varint(_ v: UInt64) {
        var v = v
        while v >= 0x80 { bytes.append(UInt8(v & 0x7F) | 0x80); v >>= 7 }
        bytes.append(UInt8(v))
    }
    public mutating func int(_ v: Int) { varint(UInt64(bitPattern: Int64((v << 1) ^ (v >> 63)))) }
    public mutating func string(_ s: String) { let u = Array(s.utf8); varint(UInt64(u.count)); bytes += u }
    public mutating func optionalString(_ s: String?) { bool(s != nil); if let s { string(s) } }
    public mutating func raw(_ b: [UInt8]) { bytes += b }
    public mutating func raw(_ b: ArraySlice<UInt8>) { bytes += b }
}

/// Why bytes could not be decoded.
public struct DecodeError: Error, Equatable, CustomStringConvertible, Sendable {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Reads what `ByteWriter` wrote, checking every length against what is there.
public struct ByteReader {
    let bytes: [UInt8]
    public private(set) var position: Int
    let end: Int
    /// The format of the states read (see `StateFormat`): an older one for a file an older
    /// version wrote. Operations carry their own format in their tag, whatever this says.
    public var format = StateFormat.current
    public init(_ bytes: [UInt8], from start: Int = 0, to end: Int? = nil) {
        self.bytes = bytes; position = start; self.end = end ?? bytes.count
    }
    public var isAtEnd: Bool { position == end }

    public mutating func u8() throws -> UInt8 {
        guard position < end else { throw DecodeError("truncated data") }
        defer { position += 1 }
        return bytes[position]
    }
    public mutating func bool() throws -> Bool {
        switch try u8() { case 0: return false; case 1: return true; default: throw DecodeError("bad boolean") }
    }
    public mutating func u32le() throws -> UInt32 {
        var v: UInt32 = 0
        for i in 0..<4 { v |= UInt32(try u8()) << (8 * UInt32(i)) }
        return v
    }
    public mutating func u64le() throws -> UInt64 {
        var v: UInt64 = 0
        for i in 0..<8 { v |= UInt64(try u8()) << (8 * UInt64(i)) }
        return v
    }
    public mutating func varint() throws -> UInt64 { try Self.varint(reading: { try u8() }) }

    /// A varint read a byte at a time from `next` (which throws at the end of the bytes): the
    /// one definition, also for readers of bytes in place (a snapshot's undo history).
    @inlinable
    public static func varint(reading next: () throws -> UInt8) throws -> UInt64 {
        var v: UInt64 = 0, shift: UInt64 = 0
        while true {
            let b = try next()
            guard shift < 64 else { throw DecodeError("varint too long") }
            v |= UInt64(b & 0x7F) << shift
            if b < 0x80 { return v }
            shift += 7
        }
    }

    /// `n` as a count of at most `max` things, each at least a byte, with `remaining` bytes
    /// left to hold them.
    @inlinable
    public static func count(_ n: UInt64, max: Int, remaining: Int) throws -> Int {
        guard n <= UInt64(max), n <= UInt64(remaining) else { throw DecodeError("length \(n) is out of range") }
        return Int(n)
    }
    public mutating func int() throws -> Int {
        let z = try varint()
        return Int(Int64(bitPattern: (z >> 1) ^ (0 &- (z & 1))))
    }
    public mutating func count(max: Int) throws -> Int {
        let n = try varint()
        return try Self.count(n, max: max, remaining: end - position)
    }
    public mutating func string(maxBytes: Int = 65_536) throws -> String {
        let n = try count(max: maxBytes)
        defer { position += n }
        // Decoded through a buffer (the standard library's fast path; validating an array
        // slice went through its generic path, looking up metadata for every string), then
        // refused unless decoding kept every byte: invalid UTF-8 is replaced, so it changes.
        let range = position..<(position + n)
        let s = bytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[range]), as: UTF8.self) }
        guard s.utf8.elementsEqual(bytes[range]) else { throw DecodeError("text is not valid UTF-8") }
        return s
    }
    public mutating func optionalString() throws -> String? { try bool() ? try string() : nil }
    public mutating func raw(_ n: Int) throws -> ArraySlice<UInt8> {
        guard n <= end - position else { throw DecodeError("truncated data") }
        defer { position += n }
        return bytes[position..<position + n]
    }
}

// MARK: Domain encodings

extension ByteWriter {
    public mutating func u64be(_ v: UInt64) {
        for i in (0..<8).reversed() { bytes.append(UInt8(truncatingIfNeeded: v >> (8 * UInt64(i)))) }
    }
    public mutating func device(_ d: DeviceID) { u64be(d.hi); u64be(d.lo) }
    public mutating func habit(_ h: HabitID) { u64be(h.value) }
    public mutating func day(_ d: LocalDay) { int(d.ordinal) }
    public mutating func hlc(_ c: HLC) { varint(UInt64(bitPattern: c.wallMillis)); varint(UInt64(c.counter)) }
    public mutating func stamp(_ s: Stamp) { hlc(s.hlc); device(s.device) }
    public mutating func opID(_ o: OpID) { device(o.device); varint(o.seq) }

    public mutating func schedule(_ s: Schedule) {
        switch s {
        case .daily: u8(0)
        case .weekdays(let set): u8(1); u8(set.reduce(0) { $0 | UInt8(1 << ($1.rawValue - 1)) })
        case .everyNDays(let n): u8(2); int(n)
        case .perWeek(let n): u8(3); int(n)
        case .perMonth(let n): u8(4); int(n)
        }
    }

    /// A field, a goal in thousandths.
    public mutating func field(_ f: FieldValue) { field(f, amountScale: 1) }

    /// A field, a goal stored as `amountScale` thousandths each (`StateFormat.amountScale`).
    mutating func field(_ f: FieldValue, amountScale: Int) {
        u8(UInt8(f.index))
        switch f {
        case .name(let v): string(v)
        case .icon(let v), .color(let v), .unit(let v), .notes(let v), .group(let v), .position(let v): optionalString(v)
        case .kind(let k): u8(k == .build ? 0 : 1)
        case .goal(let g): int(g / amountScale)
        case .schedule(let s): schedule(s)
        case .startDate(let d): day(d)
        case .archivedFrom(let d): bool(d != nil); if let d { day(d) }
        case .reminders(let times): varint(UInt64(times.count)); for t in times { varint(UInt64(t.minutes)) }
        }
    }

    /// A change, as this version writes it: its `OperationTag`, then its values (amounts in
    /// thousandths).
    public mutating func change(_ c: Change) {
        u8(OperationTag(of: c).rawValue)
        switch c {
        case .create(let h, let fields):
            // A count of fields, so that habits can gain fields later. A habit without an
            // order key or reminder times is written without those fields, as before they
            // existed (see `FieldValue.storedCount`).
            let n = FieldValue.storedCount(of: fields)
            habit(h); varint(UInt64(n))
            for f in FieldValue.all(of: fields).prefix(n) { field(f) }
        case .set(let h, let f): habit(h); field(f)
        case .setFrom(let h, let d, let f): habit(h); day(d); field(f)
        case .clearFrom(let h, let d, let index): habit(h); day(d); u8(UInt8(truncatingIfNeeded: index))
        case .delete(let h): habit(h)
        case .restore(let h, let op): habit(h); opID(op)
        case .progress(let h, let d, let delta): habit(h); day(d); int(delta)
        case .setProgress(let h, let d, let total): habit(h); day(d); int(total)
        case .skip(let h, let d, let on): habit(h); day(d); bool(on)
        case .rate(let h, let d, let r): habit(h); day(d); u8(UInt8(r ?? 0))
        case .note(let h, let d, let n): habit(h); day(d); optionalString(n)
        case .notDone(let h, let d, let on): habit(h); day(d); bool(on)
        case .pause(let h, let from, let to, let reason): habit(h); day(from); day(to); optionalString(reason)
        }
    }

    public mutating func operation(_ op: HabitOperation) { opID(op.id); hlc(op.hlc); change(op.change) }
}

extension ByteReader {
    public mutating func u64be() throws -> UInt64 {
        guard end - position >= 8 else { throw DecodeError("truncated data") }
        // One load (stamps and ids are most of a snapshot's meta); the range is checked
        // against the array itself too, as subscripting would.
        precondition(position >= 0 && position <= bytes.count - 8, "ByteReader read outside its bytes")
        let v = bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: position, as: UInt64.self) }
        position += 8
        return UInt64(bigEndian: v)
    }
    public mutating func device() throws -> DeviceID { DeviceID(hi: try u64be(), lo: try u64be()) }
    public mutating func habit() throws -> HabitID { HabitID(value: try u64be()) }
    public mutating func day() throws -> LocalDay {
        let o = try int()
        guard o >= LocalDay.earliest.ordinal, o <= LocalDay.latest.ordinal else { throw DecodeError("day out of range") }
        return LocalDay(ordinal: o)
    }
    public mutating func hlc() throws -> HLC {
        let w = try varint(), c = try varint()
        guard c <= UInt64(UInt32.max) else { throw DecodeError("clock counter out of range") }
        return HLC(wallMillis: Int64(bitPattern: w), counter: UInt32(c))
    }
    public mutating func stamp() throws -> Stamp { Stamp(hlc: try hlc(), device: try device()) }
    public mutating func opID() throws -> OpID {
        let d = try device(), s = try varint()
        guard s >= 1 else { throw DecodeError("sequence number 0") }
        return OpID(device: d, seq: s)
    }

    public mutating func schedule() throws -> Schedule {
        switch try u8() {
        case 0: return .daily
        case 1:
            let mask = try u8()
            let set = Set(Weekday.allCases.filter { mask & UInt8(1 << ($0.rawValue - 1)) != 0 })
            guard !set.isEmpty, mask < 128 else { throw DecodeError("bad weekday set") }
            return .weekdays(set)
        case 2:
            let n = try int()
            guard Limits.storedEveryNDays.contains(n) else { throw DecodeError("bad every-N schedule") }
            return .everyNDays(n)
        case 3:
            let n = try int()
            guard Limits.storedTimesPerWeek.contains(n) else { throw DecodeError("bad per-week schedule") }
            return .perWeek(n)
        case 4:
            let n = try int()
            guard Limits.timesPerMonth.contains(n) else { throw DecodeError("bad per-month schedule") }
            return .perMonth(n)
        default: throw DecodeError("unknown schedule")
        }
    }

    /// A field; a goal is read in thousandths and multiplied by `amountScale` (its tag
    /// or the snapshot says whether it was stored in whole units).
    public mutating func field(amountScale: Int) throws -> FieldValue { try field(index: try u8(), amountScale: amountScale) }

    /// A field's value after its index (read already).
    mutating func field(index: UInt8, amountScale: Int) throws -> FieldValue {
        switch index {
        case 0: return .name(try string())
        case 1: return .icon(try optionalString())
        case 2: return .color(try optionalString())
        case 3:
            switch try u8() { case 0: return .kind(.build); case 1: return .kind(.limit); default: throw DecodeError("unknown habit kind") }
        case 4:
            let g = try int()
            guard (0...Limits.maxGoal / amountScale).contains(g) else { throw DecodeError("goal out of range") }
            return .goal(g * amountScale)
        case 5: return .unit(try optionalString())
        case 6: return .schedule(try schedule())
        case 7: return .startDate(try day())
        case 8: return .archivedFrom(try bool() ? try day() : nil)
        case 9: return .notes(try optionalString())
        case 10: return .group(try optionalString())
        case 11:
            let key = try optionalString()
            if let key, !OrderKey.isValid(key) { throw DecodeError("bad order key") }
            return .position(key)
        case 12:
            let n = try count(max: ReminderTime.maxCount)
            var times: [ReminderTime] = []
            for _ in 0..<n {
                let m = try varint()
                guard m < 24 * 60 else { throw DecodeError("reminder time out of range") }
                times.append(ReminderTime(minutes: Int(m)))
            }
            do { try Validate.reminders(times) } catch { throw DecodeError("bad reminder times") }
            return .reminders(times)
        default: throw DecodeError("unknown habit field")
        }
    }

    /// A change: its tag (`OperationTag`, or an older version's `LegacyOperationTag`), then
    /// its values. A tag this version does not know is refused (`DecodeError.unknownOperation`).
    public mutating func change() throws -> Change {
        let byte = try u8()
        if let tag = OperationTag(rawValue: byte) { return try change(tag) }
        if let tag = LegacyOperationTag(rawValue: byte) { return try legacyChange(tag) }
        throw DecodeError.unknownOperation(byte)
    }

    /// The values of a change this version writes, after its tag.
    mutating func change(_ tag: OperationTag) throws -> Change {
        switch tag {
        case .create: return try create(fieldCount: nil, amountScale: 1)
        // A goal under this tag is in whole units (see `OperationTag.set`).
        case .set: return .set(try habit(), try field(amountScale: Amount.scale))
        case .setGoal:
            let h = try habit(), f = try field(amountScale: 1)
            guard case .goal = f else { throw DecodeError("tag 12 holds a goal only") }
            return .set(h, f)
        case .setFrom:
            let h = try habit(), d = try day(), f = try field(amountScale: 1)
            guard HabitRule.fieldIndices.contains(f.index) else { throw DecodeError.notARuleField }
            return .setFrom(h, d, f)
        case .clearFrom: return .clearFrom(try habit(), try day(), index: try ruleFieldIndex())
        case .delete: return .delete(try habit())
        case .restore: return .restore(try habit(), deleteOp: try opID())
        case .progress:
            let h = try habit(), d = try day()
            return .progress(h, d, delta: try progressDelta(amountScale: 1))
        case .setProgress: return .setProgress(try habit(), try day(), total: try dayTotal(amountScale: 1))
        case .skip: return .skip(try habit(), try day(), try bool())
        case .rate:
            let h = try habit(), d = try day()
            return .rate(h, d, try rating())
        case .note: return .note(try habit(), try day(), try optionalString())
        case .notDone: return .notDone(try habit(), try day(), try bool())
        case .pause:
            let h = try habit(), from = try day(), to = try day()
            guard from <= to, to.ordinal - from.ordinal < Limits.maxPauseDays else { throw DecodeError("bad pause range") }
            return .pause(h, from: from, to: to, reason: try pauseReason())
        }
    }

    /// A rule field's register index (one of `HabitRule.fieldIndices`).
    mutating func ruleFieldIndex() throws -> Int {
        let index = Int(try u8())
        guard HabitRule.fieldIndices.contains(index) else { throw DecodeError.notARuleField }
        return index
    }

    /// A create's habit and its fields: `fieldCount` of them, or (nil) as many as the count
    /// after the habit says; at least the ten every version wrote, in register order, a goal
    /// stored as `amountScale` thousandths each.
    mutating func create(fieldCount: Int?, amountScale: Int) throws -> Change {
        let h = try habit()
        let n = try fieldCount ?? count(max: FieldValue.count)
        guard n >= 10 else { throw DecodeError("too few habit fields") }
        var fields = HabitFields(name: "", startDate: .earliest)
        for i in 0..<n {
            let f = try field(amountScale: amountScale)
            guard f.index == i else { throw DecodeError("habit fields out of order") }
            f.apply(to: &fields)
        }
        return .create(h, fields)
    }

    /// A pause register's value as stored: nil (not paused), "" (paused, no reason) or a
    /// reason `Validate.pauseReason` accepts.
    mutating func pauseReason() throws -> String? {
        let reason = try optionalString()
        if let reason, !reason.isEmpty {
            do { try Validate.pauseReason(reason) } catch { throw DecodeError("bad pause reason") }
        }
        return reason
    }

    /// A difficulty rating as stored: 0 for none, else within `Limits.difficulty`.
    mutating func rating() throws -> Int? {
        let r = try u8()
        guard r == 0 || Limits.difficulty.contains(Int(r)) else { throw DecodeError("difficulty out of range") }
        return r == 0 ? nil : Int(r)
    }

    public mutating func operation() throws -> HabitOperation {
        HabitOperation(id: try opID(), hlc: try hlc(), change: try change())
    }

    /// A progress change in thousandths, stored as thousandths (`amountScale` 1) or whole
    /// units (`Amount.scale`); never 0 and within `Limits.maxChange`.
    mutating func progressDelta(amountScale: Int) throws -> Int { try Self.checkedDelta(try int(), amountScale: amountScale) }

    static func checkedDelta(_ delta: Int, amountScale: Int) throws -> Int {
        let bound = Limits.maxChange / amountScale
        guard delta != 0, (-bound...bound).contains(delta) else { throw DecodeError("progress change out of range") }
        return delta * amountScale
    }

    /// A day's total set by a "set" step, in thousandths stored as `amountScale` each:
    /// 0…`Limits.maxDayProgress`.
    mutating func dayTotal(amountScale: Int) throws -> Int {
        let total = try int()
        guard (0...Limits.maxDayProgress / amountScale).contains(total) else { throw DecodeError("day total out of range") }
        return total * amountScale
    }
}

// MARK: State encoding

/// A habit entry's registers and tombstones, without its days.
public struct EntryMeta: Sendable {
    public var created: Stamp?
    public var fields: HabitFields
    public var fieldStamps: FieldStamps
    public var deletes: Set<OpID>
    public var restores: Set<OpID>
}

extension HabitEntry {
    /// The registers and tombstones, without the days.
    public var meta: EntryMeta {
        EntryMeta(created: created, fields: fields, fieldStamps: fieldStamps, deletes: deletes, restores: restores)
    }
}

extension ByteWriter {
    /// The canonical encoding of an entry's registers and tombstones.
    public mutating func entryMeta(_ e: HabitEntry) { entryMeta(e, .current) }

    /// An entry's registers and tombstones in `format` (see `entryMeta(_:as:)`).
    mutating func entryMeta(_ e: HabitEntry, _ format: StateFormat) {
        bool(e.created != nil); if let c = e.created { stamp(c) }
        for i in 0..<format.fieldCount {
            bool(e.fieldStamps[i] != nil); if let s = e.fieldStamps[i] { stamp(s) }
            field(FieldValue.current(index: i, of: e.fields), amountScale: format.amountScale)
        }
        varint(UInt64(e.deletes.count)); for o in e.deletes.sorted() { opID(o) }
        varint(UInt64(e.restores.count)); for o in e.restores.sorted() { opID(o) }
    }

    /// The canonical encoding of one habit's days: their count, then each day's record
    /// (`dayRecord`) sorted by day.
    public mutating func days(_ days: [LocalDay: DayRecord]) { self.days(days, amountScale: 1) }

    /// The days, each progress change stored as `amountScale` thousandths (`StateFormat`).
    mutating func days(_ days: [LocalDay: DayRecord], amountScale: Int) {
        varint(UInt64(days.count))
        for (day, rec) in days.sorted(by: { $0.key < $1.key }) { dayRecord(day, rec, amountScale: amountScale) }
    }

    /// One day's record as `days` writes each (what `ByteReader.dayRecord` reads).
    public mutating func dayRecord(_ day: LocalDay, _ rec: DayRecord) { dayRecord(day, rec, amountScale: 1) }

    mutating func dayRecord(_ day: LocalDay, _ rec: DayRecord, amountScale: Int) {
        self.day(day)
        let ops = rec.progressOps
        varint(UInt64(ops.count))
        // A "set" step is written as a 0 (which no other change is) and its total.
        for op in ops {
            stamp(op.stamp)
            if op.setsTotal { int(0) }
            int(op.delta / amountScale)
        }
        // Bit 0: a skip register follows; bit 1: a "not done" register; bit 2: a pause
        // register. A day without the later ones is written as before they existed, so
        // digests taken then match.
        u8((rec.skip != nil ? 1 : 0) | (rec.notDoneRegister != nil ? 2 : 0) | (rec.pauseRegister != nil ? 4 : 0))
        if let s = rec.skip { bool(s.value); stamp(s.stamp) }
        if let n = rec.notDoneRegister { bool(n.value); stamp(n.stamp) }
        if let p = rec.pauseRegister { optionalString(p.value); stamp(p.stamp) }
        bool(rec.difficulty != nil)
        if let r = rec.difficulty { u8(UInt8(r.value ?? 0)); stamp(r.stamp) }
        bool(rec.noteRegister != nil)
        if let n = rec.noteRegister { optionalString(n.value); stamp(n.stamp) }
    }
}

extension ByteReader {
    public mutating func entryMeta() throws -> EntryMeta {
        let created: Stamp? = try bool() ? try stamp() : nil
        var fields = HabitFields(name: "", startDate: .earliest)
        var stamps = FieldStamps()
        for i in 0..<format.fieldCount {
            if try bool() { stamps[i] = try stamp() }
            let f = try field(amountScale: format.amountScale)
            guard f.index == i else { throw DecodeError("habit fields out of order") }
            f.apply(to: &fields)
        }
        var deletes = Set<OpID>(), restores = Set<OpID>()
        for _ in 0..<(try count(max: 1 << 24)) { deletes.insert(try opID()) }
        for _ in 0..<(try count(max: 1 << 24)) { restores.insert(try opID()) }
        return EntryMeta(created: created, fields: fields, fieldStamps: stamps, deletes: deletes, restores: restores)
    }

    /// The days' records, as `ByteWriter.days` writes them.
    public mutating func days() throws -> [LocalDay: DayRecord] {
        let dayCount = try count(max: 1 << 24)
        var days = [LocalDay: DayRecord](minimumCapacity: dayCount)
        for _ in 0..<dayCount {
            let (d, rec) = try dayRecord()
            days[d] = rec
        }
        return days
    }

    /// One day's record, as `ByteWriter.days` writes each.
    public mutating func dayRecord() throws -> (LocalDay, DayRecord) {
        let d = try day()
        var rec: DayRecord? = DayRecord()
        try dayRecordBody(&rec)
        return (d, rec ?? DayRecord())
    }

    /// The rest of a day record, after its day: decoded into `rec`, or, when `rec` is nil,
    /// checked and passed over without building anything (reading up to one day of a block).
    public mutating func dayRecordBody(_ rec: inout DayRecord?) throws {
        var previous: DayOp?
        for _ in 0..<(try count(max: 1 << 20)) {
            let stamp = try stamp(), step = try int()
            let op = step == 0 ? DayOp(stamp: stamp, total: try dayTotal(amountScale: format.amountScale))
                               : DayOp(stamp: stamp, delta: try Self.checkedDelta(step, amountScale: format.amountScale))
            guard previous.map({ $0 < op }) ?? true else { throw DecodeError("progress changes out of order") }
            rec?.add(op)
            previous = op
        }
        let registers = try u8()
        guard registers <= 7 else { throw DecodeError("bad day registers") }
        if registers & 1 != 0 { let v = try bool(); let s = try stamp(); rec?.skip = Register(value: v, stamp: s) }
        if registers & 2 != 0 { let v = try bool(); let s = try stamp(); rec?.notDoneRegister = Register(value: v, stamp: s) }
        if registers & 4 != 0 { let v = try pauseReason(); let s = try stamp(); rec?.pauseRegister = Register(value: v, stamp: s) }
        if try bool() {
            let v = try rating(), s = try stamp()
            rec?.difficulty = Register(value: v, stamp: s)
        }
        if try bool() { let n = try optionalString(); let s = try stamp(); rec?.noteRegister = Register(value: n, stamp: s) }
    }

    /// The same bytes as `days()`, read straight into the columns the rules use (no
    /// dictionary). Throws where `days()` would, and also when the days are not in
    /// ascending order, which a canonical encoding never has.
    public mutating func dayColumns() throws -> DayColumns {
        let dayCount = try count(max: 1 << 24)
        var columns = DayColumns()
        columns.reserveCapacity(dayCount)
        for _ in 0..<dayCount {
            let (d, rec) = try dayRecord()
            guard columns.append(d, progress: rec.progress, skipped: rec.isSkipped, rating: rec.rating,
                                 notDone: rec.isAnsweredNotDone, paused: rec.isPaused) else {
                throw DecodeError("days out of order")
            }
        }
        return columns
    }
}

extension HabitEntry {
    /// An entry with its days decoded already.
    public init(meta m: EntryMeta, days: [LocalDay: DayRecord]) {
        self.init(created: m.created, fields: m.fields, fieldStamps: m.fieldStamps, deletes: m.deletes,
                  restores: m.restores, days: nil)
        self.days = days
    }

}

extension HabitState {
    /// The canonical encoding: equal states give equal bytes.
    public func encoded() -> [UInt8] {
        var w = ByteWriter(capacity: 1024)
        w.state(self, .current)
        return w.bytes
    }

    /// Reads what `encoded()` wrote.
    public init(decoding r: inout ByteReader) throws {
        var seen: [DeviceID: UInt64] = [:]
        for _ in 0..<(try r.count(max: 1 << 24)) { let d = try r.device(); seen[d] = try r.varint() }
        let clock = try r.hlc()
        var entries: [HabitID: HabitEntry] = [:]
        for _ in 0..<(try r.count(max: 1 << 24)) {
            let id = try r.habit()
            let meta = try r.entryMeta()
            entries[id] = HabitEntry(meta: meta, days: try r.days())
        }
        if r.format.datedRegisters { try r.datedRegisters(into: &entries) }
        self.init(seen: seen, clock: clock, entries: entries)
    }
}

extension ByteWriter {
    /// A state in `format` (`StateFormat.current` but for `HabitState.encoded(as:)`).
    mutating func state(_ s: HabitState, _ format: StateFormat) {
        varint(UInt64(s.seen.count))
        for (d, n) in s.seen.sorted(by: { $0.key < $1.key }) { device(d); varint(n) }
        hlc(s.clock)
        varint(UInt64(s.entries.count))
        for (id, e) in s.entries.sorted(by: { $0.key < $1.key }) {
            habit(id)
            entryMeta(e, format)
            days(e.days, amountScale: format.amountScale)
        }
        if format.datedRegisters { datedRegisters(s.entries, amountScale: format.amountScale) }
    }
}
