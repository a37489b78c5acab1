import Foundation
import HabitCore
#if canImport(Glibc)
import Glibc
#endif

/// Bytes a snapshot is read from: a memory-mapped file (only the pages used are read) or
/// an array.
protocol SnapshotBytes: AnyObject, Sendable {
    var count: Int { get }
    func bytes(_ range: Range<Int>) -> [UInt8]
}

/// A read-only private mapping of a whole file. The mapping stays valid when the file is
/// replaced (renamed over) or removed, so lazily decoded blocks never see another file.
final class MappedFile: SnapshotBytes, @unchecked Sendable {
    private let base: UnsafeRawPointer?
    let count: Int

    /// Maps `path`; nil when it does not exist.
    init?(path: String) throws {
        let fd: Int32
        do { fd = try Sys.open(path, O_RDONLY) } catch StoreError.io(_, _, let e) where e == ENOENT { return nil }
        defer { Sys.close(fd) }
        count = try Sys.size(fd, path: path)
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
}

/// Snapshot bytes held in memory.
final class ArrayBytes: SnapshotBytes, @unchecked Sendable {
    let storage: [UInt8]
    init(_ storage: [UInt8]) { self.storage = storage }
    var count: Int { storage.count }
    func bytes(_ range: Range<Int>) -> [UInt8] { Array(storage[range]) }
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
    private let lock = NSLock()
    private var cache: [LocalDay: DayRecord]?

    /// Rebuilds one habit's days as of a journal offset.
    typealias Repair = @Sendable (_ habit: HabitID, _ coveredOffset: Int) -> [LocalDay: DayRecord]

    init(file: SnapshotBytes, range: Range<Int>, crc: UInt32, habit: HabitID, coveredOffset: Int, repair: @escaping Repair,
         keepsDecodedDays: Bool = true) {
        self.file = file; self.range = range; self.crc = crc; self.habit = habit
        self.coveredOffset = coveredOffset; self.repair = repair; self.keepsDecodedDays = keepsDecodedDays
    }

    /// Whether the days were decoded (or repaired) already.
    var isDecoded: Bool { lock.lock(); defer { lock.unlock() }; return cache != nil }

    /// The block's bytes when they pass their checksum.
    var verifiedBytes: [UInt8]? {
        let b = file.bytes(range)
        return CRC32C.checksum(b) == crc ? b : nil
    }

    func loadDays() -> [LocalDay: DayRecord] {
        lock.lock()
        defer { lock.unlock() }
        if let cache { return cache }
        var days: [LocalDay: DayRecord]?
        if let b = verifiedBytes {
            var r = ByteReader(b)
            if let d = try? r.days(), r.isAtEnd { days = d }
        }
        let result = days ?? repair(habit, coveredOffset)
        if keepsDecodedDays || days == nil { cache = result } // a repair is never done twice
        return result
    }

    /// The rules' columns, read straight from the block's bytes; from the day records when
    /// they are decoded already or the bytes are damaged (then repaired once).
    func loadColumns() -> DayColumns {
        lock.lock()
        if cache == nil, let b = verifiedBytes {
            var r = ByteReader(b)
            if let c = try? r.dayColumns(), r.isAtEnd { lock.unlock(); return c }
        }
        lock.unlock()
        return DayColumns(loadDays())
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
    static let magic = Array("HABITTO-SNAPSHOT\u{3}".utf8)
    static let headerSize = magic.count + 8

    var coveredOffset: Int
    /// Start and payload checksum of the last covered record (nil when none is covered).
    var lastRecord: (offset: Int, crc: UInt32)?
    var state: HabitState
    var undoStack: [UndoItem]

    /// The snapshot file's bytes.
    func encoded() -> [UInt8] {
        var blocks = ByteWriter(capacity: 4096)
        var meta = ByteWriter(capacity: 1024)
        meta.u64le(UInt64(coveredOffset))
        meta.bool(lastRecord != nil)
        if let lastRecord { meta.u64le(UInt64(lastRecord.offset)); meta.u32le(lastRecord.crc) }
        meta.varint(UInt64(state.seen.count))
        for (d, s) in state.seen.sorted(by: { $0.key < $1.key }) { meta.device(d); meta.varint(s) }
        meta.hlc(state.clock)
        meta.varint(UInt64(undoStack.count))
        for u in undoStack { meta.undoItem(u) }
        meta.varint(UInt64(state.entries.count))
        for (id, entry) in state.entries.sorted(by: { $0.key < $1.key }) {
            let bytes: [UInt8], crc: UInt32
            if let block = entry.unchangedDaySource as? SnapshotBlock, let verified = block.verifiedBytes {
                bytes = verified; crc = block.crc // unchanged since loaded: copied, not re-encoded
            } else {
                var w = ByteWriter()
                w.days(entry.days)
                bytes = w.bytes; crc = CRC32C.checksum(bytes)
            }
            meta.habit(id)
            meta.entryMeta(entry)
            meta.u64le(UInt64(blocks.bytes.count))
            meta.u32le(UInt32(bytes.count))
            meta.u32le(crc)
            blocks.raw(bytes)
        }
        var out = ByteWriter(capacity: Snapshot.headerSize + meta.bytes.count + blocks.bytes.count)
        out.raw(Snapshot.magic)
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
        guard file.count >= headerSize, file.bytes(0..<magic.count) == magic else { return (nil, "unknown format") }
        var h = ByteReader(file.bytes(magic.count..<headerSize))
        guard let metaLength = try? Int(h.u32le()), let metaCRC = try? h.u32le(),
              metaLength <= file.count - headerSize
        else { return (nil, "damaged header") }
        let metaBytes = file.bytes(headerSize..<(headerSize + metaLength))
        guard CRC32C.checksum(metaBytes) == metaCRC else { return (nil, "checksum mismatch") }
        let blocksStart = headerSize + metaLength
        do {
            var r = ByteReader(metaBytes)
            let covered = try r.offset()
            var last: (Int, UInt32)?
            if try r.bool() { last = (try r.offset(), try r.u32le()) }
            var seen: [DeviceID: UInt64] = [:]
            for _ in 0..<(try r.count(max: 1 << 24)) { let d = try r.device(); seen[d] = try r.varint() }
            let clock = try r.hlc()
            var undo: [UndoItem] = []
            for _ in 0..<(try r.count(max: 1 << 20)) { undo.append(try r.undoItem()) }
            var entries: [HabitID: HabitEntry] = [:]
            for _ in 0..<(try r.count(max: 1 << 24)) {
                let id = try r.habit()
                let meta = try r.entryMeta()
                let offset = try r.offset(), length = Int(try r.u32le()), crc = try r.u32le()
                guard offset <= file.count - blocksStart, length <= file.count - blocksStart - offset else {
                    return (nil, "a block lies outside the file")
                }
                let start = blocksStart + offset
                let block = SnapshotBlock(file: file, range: start..<(start + length), crc: crc, habit: id,
                                          coveredOffset: covered, repair: repair, keepsDecodedDays: keepDecodedDays)
                entries[id] = HabitEntry(meta: meta, source: block)
            }
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
            return (Snapshot(coveredOffset: covered, lastRecord: last, state: state, undoStack: undo), nil)
        } catch {
            return (nil, "\(error)")
        }
    }
}

/// Warnings that arise after opening (a damaged snapshot block found when first read).
public final class WarningSink: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String] = []
    public init() {}
    func add(_ w: String) { lock.lock(); items.append(w); lock.unlock() }
    /// Returns and forgets the warnings gathered so far.
    public func drain() -> [String] {
        lock.lock()
        defer { lock.unlock() }
        let out = items
        items = []
        return out
    }
}

extension ByteReader {
    /// A file offset stored as a u64; values no file can have are rejected, not trapped on.
    mutating func offset() throws -> Int {
        guard let v = Int(exactly: try u64le()), v <= 1 << 48 else { throw DecodeError("offset out of range") }
        return v
    }
}
