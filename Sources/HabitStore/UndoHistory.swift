import HabitCore

/// This device's undo history, oldest first, within limits on commands and changes.
///
/// Items read from a snapshot stay encoded until one is needed (an undo, or a snapshot
/// written while they are still here, which copies their bytes as they are): start-up
/// reads only each item's sequence number and change count, so a long history does not
/// slow every command down.
struct UndoHistory: Sendable {
    private struct Slot: Sendable {
        let firstSeq: UInt64
        let changeCount: Int
        /// Where the item's encoding (`undoItem`) is, while it is not decoded: in the
        /// snapshot it was read from (not copied at start-up).
        var encoded: (file: SnapshotBytes, range: Range<Int>)?
        var item: UndoItem?

        /// The item's encoding as it was read.
        var bytes: [UInt8] { encoded.map { $0.file.bytes($0.range) } ?? [] }
    }

    private var slots: [Slot] = []
    /// The number of changes in all items.
    private(set) var changeCount = 0

    init() {}

    init(_ items: [UndoItem]) {
        for item in items { append(item) }
    }

    var count: Int { slots.count }

    mutating func append(_ item: UndoItem) {
        slots.append(Slot(firstSeq: item.firstSeq, changeCount: item.inverse.count, item: item))
        changeCount += item.inverse.count
    }

    /// Forgets the newest item reverting the entry that starts at `firstSeq` (it was undone).
    mutating func remove(firstSeq: UInt64) {
        guard let i = slots.lastIndex(where: { $0.firstSeq == firstSeq }) else { return }
        changeCount -= slots.remove(at: i).changeCount
    }

    /// Drops the oldest items until at most `limit` items and `changeLimit` changes remain.
    mutating func trim(limit: Int, changeLimit: Int) {
        var drop = 0
        while drop < slots.count && (slots.count - drop > limit || changeCount > changeLimit) {
            changeCount -= slots[drop].changeCount
            drop += 1
        }
        if drop > 0 { slots.removeFirst(drop) }
    }

    /// The item at `i`, decoded now if it was not yet.
    func item(at i: Int) throws -> UndoItem {
        let slot = slots[i]
        if let item = slot.item { return item }
        var r = ByteReader(slot.bytes)
        let item = try r.undoItem()
        guard r.isAtEnd, item.firstSeq == slot.firstSeq, item.inverse.count == slot.changeCount else {
            throw DecodeError("an undo item does not match its header")
        }
        return item
    }

    /// The newest item.
    func last() throws -> UndoItem? { slots.isEmpty ? nil : try item(at: slots.count - 1) }

    /// Every item, oldest first (decoding those still encoded).
    func items() throws -> [UndoItem] {
        try slots.indices.map { try item(at: $0) }
    }

    /// Writes the history: a count, then each item as its length, sequence number, change
    /// count and encoding. Items never decoded are copied as they were read.
    func encode(into w: inout ByteWriter) {
        w.varint(UInt64(slots.count))
        for slot in slots {
            let bytes: [UInt8]
            if let item = slot.item {
                var e = ByteWriter()
                e.undoItem(item)
                bytes = e.bytes
            } else {
                bytes = slot.bytes
            }
            w.varint(slot.firstSeq)
            w.varint(UInt64(slot.changeCount))
            w.varint(UInt64(bytes.count))
            w.raw(bytes)
        }
    }

    /// Reads what `encode` wrote into `file` at `start` (the framing only, in place: each
    /// item's encoding stays in `file` until it is needed), up to at most `end`; returns the
    /// history and where it ends. Refuses what a `ByteReader` ending at `end` refuses.
    static func decode(in file: SnapshotBytes, from start: Int, to end: Int) throws -> (UndoHistory, end: Int) {
        guard start >= 0, start <= end, end <= file.count else { throw DecodeError("truncated data") }
        return try file.withBytes(start..<end) { b in
            var history = UndoHistory()
            var position = 0
            // ByteReader's own varint and count rules, over the bytes in place.
            func varint() throws -> UInt64 {
                try ByteReader.varint(reading: {
                    guard position < b.count else { throw DecodeError("truncated data") }
                    defer { position += 1 }
                    return b[position]
                })
            }
            func count(max: Int) throws -> Int { try ByteReader.count(try varint(), max: max, remaining: b.count - position) }
            for _ in 0..<(try count(max: 1 << 20)) {
                let seq = try varint()
                let changes = try count(max: 1 << 22)
                let length = try count(max: 1 << 28)
                let range = (start + position)..<(start + position + length)
                position += length
                history.slots.append(Slot(firstSeq: seq, changeCount: changes, encoded: (file, range)))
                history.changeCount += changes
            }
            return (history, start + position)
        }
    }
}
