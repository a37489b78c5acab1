import FoundationEssentials
import HabitCore
#if canImport(Glibc)
import Glibc
#endif

/// Bytes a snapshot is read from: a memory-mapped file (only the pages used are read) or
/// an array.
protocol SnapshotBytes: AnyObject, Sendable {
    var count: Int { get }
    func bytes(_ range: Range<Int>) -> [UInt8]
    /// `body` given `range`'s bytes in place (no copy); only during the call.
    func withBytes<R>(_ range: Range<Int>, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R
}

extension SnapshotBytes {
    /// The CRC-32C of `range`, read in place (no copy).
    func checksum(_ range: Range<Int>) -> UInt32 { withBytes(range) { CRC32C.checksum($0) } }
}

/// A read-only private mapping of a whole file. The mapping stays valid when the file is
/// replaced (renamed over) or removed, so lazily decoded blocks never see another file.
final class MappedFile: SnapshotBytes, @unchecked Sendable {
    private let base: UnsafeRawPointer?
    let count: Int

    /// Maps `path`; nil when it does not exist. Only a regular file, never through a symbolic
    /// link (it is a file of the data directory): anything else throws
    /// `StoreError.unreadable` saying what it is, and a FIFO is never waited on.
    init?(path: String) throws {
        guard let (fd, st) = try Sys.openRegularFile(path, followLinks: false) else { return nil }
        defer { Sys.close(fd) }
        count = Int(st.st_size)
        if count == 0 { base = nil; return }
        let p = mmap(nil, count, PROT_READ, MAP_PRIVATE, fd, 0)
        guard let p, p != MAP_FAILED else { throw StoreError.io(operation: "map", path: path, errno: errno) }
        base = UnsafeRawPointer(p)
    }

    deinit { if let base { munmap(UnsafeMutableRawPointer(mutating: base), count) } }

    func bytes(_ range: Range<Int>) -> [UInt8] {
        guard let base, !range.isEmpty else { return [] }
        return Array(UnsafeRawBufferPointer(start: base + range.lowerBound, count: range.count))
    }

    func withBytes<R>(_ range: Range<Int>, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        guard let base, !range.isEmpty else { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        return try body(UnsafeRawBufferPointer(start: base + range.lowerBound, count: range.count))
    }
}

/// Snapshot bytes held in memory.
final class ArrayBytes: SnapshotBytes, @unchecked Sendable {
    let storage: [UInt8]
    init(_ storage: [UInt8]) { self.storage = storage }
    var count: Int { storage.count }
    func bytes(_ range: Range<Int>) -> [UInt8] { Array(storage[range]) }
    func withBytes<R>(_ range: Range<Int>, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try storage[range].withUnsafeBytes(body)
    }
}

/// One habit's days inside a snapshot, checked against its own checksum and decoded the
/// first time they are needed. A block that fails its check is rebuilt by `repair`.
final class SnapshotBlock: DaySource, @unchecked Sendable {
    let file: SnapshotBytes
    let range: Range<Int>
    let crc: UInt32
    let habit: HabitID
    /// The journal offset the snapshot covers: what a repair must rebuild.
    let coveredOffset: Int
    let repair: Repair
    /// False for one-shot reads: decoded days are not kept (see `DaySource`).
    let keepsDecodedDays: Bool
    /// `Amount.scale` when the block holds whole units (a snapshot written before amounts
    /// had decimals), else 1.
    let amountScale: Int
    private let lock = Lock()
    private var cache: [LocalDay: DayRecord]?

    /// Rebuilds one habit's days as of a journal offset.
    typealias Repair = @Sendable (_ habit: HabitID, _ coveredOffset: Int) -> [LocalDay: DayRecord]

    init(file: SnapshotBytes, range: Range<Int>, crc: UInt32, habit: HabitID, coveredOffset: Int, repair: @escaping Repair,
         keepsDecodedDays: Bool = true, amountScale: Int = 1) {
        self.file = file; self.range = range; self.crc = crc; self.habit = habit
        self.coveredOffset = coveredOffset; self.repair = repair; self.keepsDecodedDays = keepsDecodedDays
        self.amountScale = amountScale
    }

    /// Whether the days were decoded (or repaired) already.
    var isDecoded: Bool { lock.lock(); defer { lock.unlock() }; return cache != nil }

    /// Whether the bytes passed their checksum (checked once: they never change).
    private var checked: Bool?

    /// The block's bytes when they pass their checksum.
    var verifiedBytes: [UInt8]? { isIntact ? file.bytes(range) : nil }

    /// Whether the block passes its checksum, computed in place the first time.
    var isIntact: Bool {
        lock.lock()
        defer { lock.unlock() }
        if checked == nil { checked = file.checksum(range) == crc }
        return checked!
    }

    func loadDays() -> [LocalDay: DayRecord] {
        let bytes = verifiedBytes
        lock.lock()
        defer { lock.unlock() }
        if let cache { return cache }
        let days = bytes.flatMap { try? DayBlock.days($0, amountScale: amountScale) }
        let result = days ?? repair(habit, coveredOffset)
        if keepsDecodedDays || days == nil { cache = result } // a repair is never done twice
        return result
    }

    /// The rules' columns, read straight from the block's bytes; from the day records when
    /// the bytes are damaged (then repaired once).
    func loadColumns() -> DayColumns {
        if let b = verifiedBytes, let c = try? DayBlock.columns(b, amountScale: amountScale) { return c }
        return DayColumns(loadDays())
    }

    /// A few days' records, read through the block's index without reading the others.
    func loadRecords(_ days: Set<LocalDay>) -> [LocalDay: DayRecord] {
        lock.lock()
        let cached = cache
        lock.unlock()
        if let cached { return cached.filter { days.contains($0.key) } }
        // Checked in place, then only the index and the stretches holding the days are copied.
        if isIntact, let d = try? readRecords(days) { return d }
        return loadDays().filter { days.contains($0.key) }
    }

    /// A few days' records read from the index and the stretch of records (at most
    /// `DayBlock.stride`) that holds each day, without checking the block's checksum: the
    /// cost does not grow with the habit's history. When the bytes do not decode, the
    /// checked path (`loadRecords`, which repairs a damaged block) answers.
    func peekRecords(_ days: Set<LocalDay>) -> [LocalDay: DayRecord] {
        lock.lock()
        let cached = cache
        lock.unlock()
        if let cached { return cached.filter { days.contains($0.key) } }
        if let d = try? readRecords(days) {
            return d
        }
        return loadRecords(days)
    }

    /// `days`' records read through the index: only the index and the stretch of records
    /// before each day are copied out of the file.
    private func readRecords(_ days: Set<LocalDay>) throws -> [LocalDay: DayRecord] {
        try DayBlock.records(reading: { self.file.bytes(($0.lowerBound + self.range.lowerBound)..<($0.upperBound + self.range.lowerBound)) },
                             count: range.count, only: days, amountScale: amountScale)
    }

    /// The columns of the days from the index mark on or before `from` to the block's end,
    /// without checking the block's checksum (see `peekRecords`); every day's when they are
    /// decoded already or when the bytes do not decode.
    func peekColumns(from: LocalDay) -> DayColumns {
        lock.lock()
        let cached = cache
        lock.unlock()
        if let cached { return DayColumns(cached.filter { $0.key >= from }) }
        if let c = try? DayBlock.columns(reading: { self.file.bytes(($0.lowerBound + self.range.lowerBound)..<($0.upperBound + self.range.lowerBound)) },
                                        count: range.count, from: from, amountScale: amountScale) {
            return c
        }
        return loadColumns()
    }
}

/// The layout of a snapshot block: a sparse index (the day and position of every 256th
/// record), then one habit's days as `ByteWriter.days` writes them. The index lets a
/// command read the one day it changes without reading years of others.
enum DayBlock {
    static let stride = 256

    static func encode(_ days: [LocalDay: DayRecord]) -> [UInt8] {
        // As `ByteWriter.days` writes them, with every `stride`th record's position kept.
        var body = ByteWriter(capacity: 24 * days.count + 8)
        var kept: [(ordinal: Int, offset: Int)] = []
        body.varint(UInt64(days.count))
        for (k, (day, rec)) in days.sorted(by: { $0.key < $1.key }).enumerated() {
            if k % stride == 0 { kept.append((day.ordinal, body.bytes.count)) }
            body.dayRecord(day, rec)
        }
        var w = ByteWriter(capacity: body.bytes.count + 4 + 8 * kept.count)
        w.u32le(UInt32(kept.count))
        for m in kept { w.u32le(UInt32(bitPattern: Int32(truncatingIfNeeded: m.ordinal))); w.u32le(UInt32(m.offset)) }
        w.raw(body.bytes)
        return w.bytes
    }

    /// Where the days start, and the index.
    static func index(_ b: [UInt8]) throws -> (start: Int, marks: [(ordinal: Int, offset: Int)]) {
        var r = ByteReader(b)
        let n = Int(try r.u32le())
        guard n <= b.count / 8 else { throw DecodeError("block index too long") }
        var marks: [(ordinal: Int, offset: Int)] = []
        marks.reserveCapacity(n)
        for _ in 0..<n { marks.append((Int(Int32(bitPattern: try r.u32le())), Int(try r.u32le()))) }
        return (r.position, marks)
    }

    /// The days; `amountScale` is the block's `SnapshotBlock.amountScale`.
    static func days(_ b: [UInt8], amountScale: Int = 1) throws -> [LocalDay: DayRecord] {
        var r = ByteReader(b, from: try index(b).start)
        r.format.amountScale = amountScale
        let d = try r.days()
        guard r.isAtEnd else { throw DecodeError("trailing bytes in a block") }
        return d
    }

    static func columns(_ b: [UInt8], amountScale: Int = 1) throws -> DayColumns {
        var r = ByteReader(b, from: try index(b).start)
        r.format.amountScale = amountScale
        let c = try r.dayColumns()
        guard r.isAtEnd else { throw DecodeError("trailing bytes in a block") }
        return c
    }

    /// Where the days start, and the index, of a block read piecewise (`count` bytes long).
    static func index(reading read: (Range<Int>) -> [UInt8], count: Int) throws -> (start: Int, marks: [(ordinal: Int, offset: Int)]) {
        guard count >= 4 else { throw DecodeError("block too short") }
        var header = ByteReader(read(0..<4))
        let n = Int(try header.u32le())
        guard n <= count / 8 else { throw DecodeError("block index too long") }
        return try index(read(0..<(4 + 8 * n)))
    }

    /// The records of `days` from a block read piecewise: `read` returns the bytes of a
    /// range of the block (`count` bytes long). Only the index and, for each day, the bytes
    /// from the index mark before it to the next mark are read.
    static func records(reading read: (Range<Int>) -> [UInt8], count: Int, only days: Set<LocalDay>,
                        amountScale: Int = 1) throws -> [LocalDay: DayRecord] {
        let (start, marks) = try index(reading: read, count: count)
        var out: [LocalDay: DayRecord] = [:]
        for day in days {
            var lo = 0, hi = marks.count
            while lo < hi { let mid = (lo + hi) / 2; if marks[mid].ordinal <= day.ordinal { lo = mid + 1 } else { hi = mid } }
            guard lo > 0 else { continue }
            let from = start + marks[lo - 1].offset, to = lo < marks.count ? start + marks[lo].offset : count
            guard from <= to, to <= count else { throw DecodeError("block index out of range") }
            var r = ByteReader(read(from..<to))
            r.format.amountScale = amountScale
            while !r.isAtEnd {
                let d = try r.day()
                // Records before the day are only passed over.
                var rec: DayRecord? = d == day ? DayRecord() : nil
                try r.dayRecordBody(&rec)
                if let rec { out[d] = rec }
                if d >= day { break }
            }
        }
        return out
    }

    /// The columns of the days from the last index mark on or before `from` (from the first
    /// day when there is none) to the end, from a block read piecewise as in `records`.
    static func columns(reading read: (Range<Int>) -> [UInt8], count: Int, from: LocalDay,
                        amountScale: Int = 1) throws -> DayColumns {
        let (start, marks) = try index(reading: read, count: count)
        guard let firstMark = marks.first else {
            // No index mark: no days (a block with days has a mark at its first one).
            var r = ByteReader(read(start..<count))
            guard try r.count(max: 1 << 24) == 0, r.isAtEnd else { throw DecodeError("days without an index") }
            return DayColumns()
        }
        var lo = 0, hi = marks.count
        while lo < hi { let mid = (lo + hi) / 2; if marks[mid].ordinal <= from.ordinal { lo = mid + 1 } else { hi = mid } }
        let offset = start + (lo > 0 ? marks[lo - 1].offset : firstMark.offset)
        guard offset <= count else { throw DecodeError("block index out of range") }
        var r = ByteReader(read(offset..<count))
        r.format.amountScale = amountScale
        return try r.dayColumnsToEnd()
    }

    /// The records of `days` (those recorded), each read from the index mark before it.
    static func records(_ b: [UInt8], only days: Set<LocalDay>, amountScale: Int = 1) throws -> [LocalDay: DayRecord] {
        let (start, marks) = try index(b)
        var out: [LocalDay: DayRecord] = [:]
        for day in days {
            // The last mark on or before the day (none: the day is before every record).
            var lo = 0, hi = marks.count
            while lo < hi { let mid = (lo + hi) / 2; if marks[mid].ordinal <= day.ordinal { lo = mid + 1 } else { hi = mid } }
            guard lo > 0 else { continue }
            var r = ByteReader(b, from: start + marks[lo - 1].offset)
            r.format.amountScale = amountScale
            for _ in 0..<stride where !r.isAtEnd {
                let (d, rec) = try r.dayRecord()
                if d == day { out[d] = rec }
                if d >= day { break }
            }
        }
        return out
    }
}

/// A cache of the folded state up to a journal offset. It is never the truth: it records
/// which part of the journal it covers (offset plus the covered last record's checksum),
/// and is ignored when that check or its own checksums fail.
///
/// Layout: magic, `u32 metaLength`, `u32 metaCRC`, meta, then one block per habit with its
/// days. The meta (version vector, clock, undo stack, every habit's registers and where its
/// block is, with the block's checksum) is read at start-up; a habit's block only when that
/// habit's days are first needed. So start-up and a check-in cost the same however long
/// the history is, and a snapshot rewrite copies the blocks of unchanged habits as they are.
struct Snapshot {
    /// Version 9: a dated register may be cleared (`Change.clearFrom`).
    static let magic = Array("HABITTO-SNAPSHOT\u{9}".utf8)
    /// The version of the snapshot format written (its magic's last byte).
    static var formatVersion: Int { Int(magic[magic.count - 1]) }
    /// Version 8, read as well: every habit has the reminder times register (field 12), and
    /// no dated register is cleared.
    static let beforeClearedMagic = Array("HABITTO-SNAPSHOT\u{8}".utf8)
    /// Version 7, read as well: the order key register (field 11) but no reminder times.
    static let beforeRemindersMagic = Array("HABITTO-SNAPSHOT\u{7}".utf8)
    /// Version 6, read as well: goals and progress in thousandths (see `Amount`), eleven fields.
    static let beforePositionMagic = Array("HABITTO-SNAPSHOT\u{6}".utf8)
    /// Version 5, read as well: goals and progress in whole units, eleven fields.
    static let wholeUnitMagic = Array("HABITTO-SNAPSHOT\u{5}".utf8)
    static let headerSize = magic.count + 8
    /// How much of the meta is first copied to read what comes before the undo history.
    static let metaHeadLength = 4096

    var coveredOffset: Int
    /// Start and payload checksum of the last covered record (nil when none is covered).
    var lastRecord: (offset: Int, crc: UInt32)?
    var state: HabitState
    var undo: UndoHistory
    /// How far the journal's records were read back from disk and found to pass their
    /// checksums when a snapshot was written (at most `coveredOffset`): the next snapshot
    /// checks only the records after it. Stops at the first damaged record, so that damage
    /// is reported again until it is repaired.
    var verifiedOffset: Int = Journal.headerSize
    /// The undo history's items, decoded (for tests and checks).
    var undoStack: [UndoItem] { (try? undo.items()) ?? [] }

    /// The snapshot file's bytes; `fieldCount` `FieldValue.countBeforeReminders` writes
    /// version 7 (without reminder times) and `FieldValue.countBeforePosition` version 6
    /// (without order keys either), as those versions did, for tests that read them.
    func encoded(fieldCount: Int = FieldValue.count) -> [UInt8] {
        var blocks = ByteWriter(capacity: 4096)
        var meta = ByteWriter(capacity: 1024)
        meta.u64le(UInt64(coveredOffset))
        meta.bool(lastRecord != nil)
        if let lastRecord { meta.u64le(UInt64(lastRecord.offset)); meta.u32le(lastRecord.crc) }
        meta.varint(UInt64(state.seen.count))
        for (d, s) in state.seen.sorted(by: { $0.key < $1.key }) { meta.device(d); meta.varint(s) }
        meta.hlc(state.clock)
        undo.encode(into: &meta)
        meta.varint(UInt64(state.entries.count))
        for (id, entry) in state.entries.sorted(by: { $0.key < $1.key }) {
            let bytes: [UInt8], crc: UInt32
            if let block = entry.unchangedDaySource as? SnapshotBlock, block.amountScale == 1, let verified = block.verifiedBytes {
                bytes = verified; crc = block.crc // unchanged since loaded: copied, not re-encoded
            } else {
                bytes = DayBlock.encode(entry.days); crc = CRC32C.checksum(bytes)
            }
            meta.habit(id)
            meta.entryMeta(entry, as: StateFormat(fieldCount: fieldCount))
            meta.u64le(UInt64(blocks.bytes.count))
            meta.u32le(UInt32(bytes.count))
            meta.u32le(crc)
            blocks.raw(bytes)
        }
        meta.u64le(UInt64(verifiedOffset))
        // Dated rule registers, after everything a snapshot held before they existed, and
        // only when there are any: a snapshot without them is written as before.
        if state.entries.values.contains(where: { !$0.dated.isEmpty }) { meta.datedRegisters(state.entries) }
        var out = ByteWriter(capacity: Snapshot.headerSize + meta.bytes.count + blocks.bytes.count)
        out.raw(fieldCount == FieldValue.count ? Snapshot.magic
                : fieldCount == FieldValue.countBeforeReminders ? Snapshot.beforeRemindersMagic : Snapshot.beforePositionMagic)
        out.u32le(UInt32(meta.bytes.count))
        out.u32le(CRC32C.checksum(meta.bytes))
        out.raw(meta.bytes)
        out.raw(blocks.bytes)
        return out.bytes
    }

    /// Decodes and checks a snapshot held in memory (see `load(from:journal:repair:)`).
    static func load(_ bytes: [UInt8], journal: Journal,
                     repair: @escaping SnapshotBlock.Repair = { _, _ in [:] }) -> (Snapshot?, String?) {
        load(from: ArrayBytes(bytes), journal: journal, repair: repair)
    }

    /// Decodes the header and meta, checks them against their checksum and the journal,
    /// and returns a snapshot whose habits' days load lazily; nil with a reason when unusable.
    static func load(from file: SnapshotBytes, journal: Journal,
                     repair: @escaping SnapshotBlock.Repair, keepDecodedDays: Bool = true) -> (Snapshot?, String?) {
        guard file.count >= headerSize else { return (nil, "unknown format") }
        let version = file.bytes(0..<magic.count)
        guard [magic, beforeClearedMagic, beforeRemindersMagic, beforePositionMagic, wholeUnitMagic].contains(version) else {
            return (nil, "unknown format")
        }
        let amountScale = version == wholeUnitMagic ? Amount.scale : 1
        let fieldCount = version == magic || version == beforeClearedMagic ? FieldValue.count
            : version == beforeRemindersMagic ? FieldValue.countBeforeReminders : FieldValue.countBeforePosition
        var h = ByteReader(file.bytes(magic.count..<headerSize))
        guard let metaLength = try? Int(h.u32le()), let metaCRC = try? h.u32le(),
              metaLength <= file.count - headerSize
        else { return (nil, "damaged header") }
        let metaRange = headerSize..<(headerSize + metaLength)
        guard file.checksum(metaRange) == metaCRC else { return (nil, "checksum mismatch") }
        let blocksStart = metaRange.upperBound
        do {
            // The meta is copied out of the file but for the undo items' encodings, which
            // stay there until one is needed (`UndoHistory`): they can be most of it (a
            // thousand check-ins, or one import), and copying them cost every command a
            // page fault for every 4 KB. What comes before the history: `metaHead`.
            let head = try metaHead(in: file, metaRange)
            let (covered, last, seen, clock) = (head.covered, head.last, head.seen, head.clock)
            let (undo, undoEnd) = try UndoHistory.decode(in: file, from: head.end, to: metaRange.upperBound)
            var r = ByteReader(file.bytes(undoEnd..<metaRange.upperBound))
            r.format.amountScale = amountScale
            r.format.fieldCount = fieldCount
            r.format.clearedRegisters = version == magic
            var entries: [HabitID: HabitEntry] = [:]
            let habitCount = try r.count(max: 1 << 24)
            entries.reserveCapacity(min(habitCount, 1 << 12))
            for _ in 0..<habitCount {
                let id = try r.habit()
                let meta = try r.entryMeta()
                let offset = try r.offset(), length = Int(try r.u32le()), crc = try r.u32le()
                guard offset <= file.count - blocksStart, length <= file.count - blocksStart - offset else {
                    return (nil, "a block lies outside the file")
                }
                let start = blocksStart + offset
                let block = SnapshotBlock(file: file, range: start..<(start + length), crc: crc, habit: id,
                                          coveredOffset: covered, repair: repair, keepsDecodedDays: keepDecodedDays,
                                          amountScale: amountScale)
                entries[id] = HabitEntry(meta: meta, source: block)
            }
            // Snapshots written before this field existed verified nothing.
            let verified = r.isAtEnd ? Journal.headerSize : try r.offset()
            if !r.isAtEnd { try r.datedRegisters(into: &entries) }
            guard r.isAtEnd else { return (nil, "trailing bytes") }
            // Does the journal still hold exactly what the snapshot covers?
            guard covered >= Journal.headerSize, covered <= (try journal.fileSize()) else {
                return (nil, "covers more than the journal holds")
            }
            if let (offset, crc) = last {
                guard let h = try journal.header(at: offset),
                      h.crc == crc, offset + Journal.frameOverhead + h.length == covered
                else { return (nil, "does not match the journal") }
            } else if covered != Journal.headerSize {
                return (nil, "does not match the journal")
            }
            let state = HabitState(seen: seen, clock: clock, entries: entries)
            return (Snapshot(coveredOffset: covered, lastRecord: last, state: state, undo: undo,
                             verifiedOffset: min(max(verified, Journal.headerSize), covered)), nil)
        } catch {
            return (nil, "\(error)")
        }
    }

    /// The meta's part before the undo history: the journal offset covered, the last
    /// record's offset and checksum, the version vector and the clock, and where that part
    /// ends. Read from the meta's first `metaHeadLength` bytes, or from the whole meta when
    /// it is longer (many devices).
    static func metaHead(in file: SnapshotBytes, _ metaRange: Range<Int>) throws
        -> (covered: Int, last: (Int, UInt32)?, seen: [DeviceID: UInt64], clock: HLC, end: Int)
    {
        let metaLength = metaRange.count
        var headLength = min(metaLength, metaHeadLength)
        while true {
            var h = ByteReader(file.bytes(metaRange.lowerBound..<(metaRange.lowerBound + headLength)))
            do {
                let covered = try h.offset()
                var last: (Int, UInt32)?
                if try h.bool() { last = (try h.offset(), try h.u32le()) }
                var seen: [DeviceID: UInt64] = [:]
                let deviceCount = try h.count(max: 1 << 24)
                seen.reserveCapacity(deviceCount)
                for _ in 0..<deviceCount { let d = try h.device(); seen[d] = try h.varint() }
                return (covered, last, seen, try h.hlc(), metaRange.lowerBound + h.position)
            } catch where headLength < metaLength {
                headLength = metaLength
            }
        }
    }
}

/// Warnings that arise after opening (a damaged snapshot block found when first read).
public final class WarningSink: @unchecked Sendable {
    private let lock = Lock()
    private var items: [Warning] = []
    public init() {}
    func add(_ w: Warning) { lock.lock(); items.append(w); lock.unlock() }
    /// Whether nothing was gathered (the warnings are kept).
    public var isEmpty: Bool { lock.lock(); defer { lock.unlock() }; return items.isEmpty }
    /// Returns and forgets the warnings gathered so far.
    public func drain() -> [Warning] {
        lock.lock()
        defer { lock.unlock() }
        let out = items
        items = []
        return out
    }
}

extension ByteReader {
    /// Day records up to the end of the bytes (no count before them: a stretch of a block
    /// read from one of its index marks), as columns; throws like `dayColumns`.
    mutating func dayColumnsToEnd() throws -> DayColumns {
        var columns = DayColumns()
        while !isAtEnd {
            let (d, rec) = try dayRecord()
            guard columns.append(d, progress: rec.progress, skipped: rec.isSkipped, rating: rec.rating,
                                 notDone: rec.isAnsweredNotDone) else {
                throw DecodeError("days out of order")
            }
        }
        return columns
    }

    /// A file offset stored as a u64; values no file can have are rejected, not trapped on.
    mutating func offset() throws -> Int {
        guard let v = Int(exactly: try u64le()), v <= 1 << 48 else { throw DecodeError("offset out of range") }
        return v
    }
}
