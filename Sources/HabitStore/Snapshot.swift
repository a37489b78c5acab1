import Foundation
import HabitCore

/// A cache of the folded state up to a journal offset. It is never the truth: it records
/// which part of the journal it covers (offset plus the covered last record's checksum),
/// carries its own checksum, and is ignored and rebuilt when either check fails.
struct Snapshot {
    static let magic = Array("HABITTO-SNAPSHOT\u{1}".utf8)

    var coveredOffset: Int
    /// Start and payload checksum of the last covered record (nil when none is covered).
    var lastRecord: (offset: Int, crc: UInt32)?
    var state: HabitState
    var undoStack: [UndoItem]

    func encoded() -> [UInt8] {
        var w = ByteWriter(capacity: 4096)
        w.raw(Snapshot.magic)
        w.u64le(UInt64(coveredOffset))
        w.bool(lastRecord != nil)
        if let lastRecord { w.u64le(UInt64(lastRecord.offset)); w.u32le(lastRecord.crc) }
        w.raw(state.encoded())
        w.varint(UInt64(undoStack.count))
        for u in undoStack { w.undoItem(u) }
        w.u32le(CRC32C.checksum(w.bytes))
        return w.bytes
    }

    /// Decodes and checks a snapshot against the journal; nil with a reason when unusable.
    static func load(_ bytes: [UInt8], journal: Journal) -> (Snapshot?, String?) {
        guard bytes.count > magic.count + 4, bytes.starts(with: magic) else { return (nil, "unknown format") }
        var tail = ByteReader(bytes, from: bytes.count - 4)
        guard let stored = try? tail.u32le(), stored == CRC32C.checksum(bytes, 0..<(bytes.count - 4)) else {
            return (nil, "checksum mismatch")
        }
        do {
            var r = ByteReader(bytes, from: magic.count, to: bytes.count - 4)
            let covered = Int(try r.u64le())
            var last: (Int, UInt32)?
            if try r.bool() { last = (Int(try r.u64le()), try r.u32le()) }
            let state = try HabitState(decoding: &r)
            var undo: [UndoItem] = []
            for _ in 0..<(try r.count(max: 1 << 20)) { undo.append(try r.undoItem()) }
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
            return (Snapshot(coveredOffset: covered, lastRecord: last, state: state, undoStack: undo), nil)
        } catch {
            return (nil, "\(error)")
        }
    }
}
