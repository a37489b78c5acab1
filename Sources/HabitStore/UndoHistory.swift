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
        /// The item's encoding (`undoItem`), kept while it is not decoded.
        var bytes: ArraySlice<UInt8>?
        var item: UndoItem?
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
        var r = ByteReader(Array(slot.bytes ?? []))
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
            let bytes: ArraySlice<UInt8>
            if let item = slot.item {
                var e = ByteWriter()
                e.undoItem(item)
                bytes = e.bytes[...]
            } else {
                bytes = slot.bytes ?? []
            }
            w.varint(slot.firstSeq)
            w.varint(UInt64(slot.changeCount))
            w.varint(UInt64(bytes.count))
            w.raw(bytes)
        }
    }

    /// Reads what `encode` wrote, keeping each item's bytes to decode when needed.
    static func decode(from r: inout ByteReader) throws -> UndoHistory {
        var history = UndoHistory()
        for _ in 0..<(try r.count(max: 1 << 20)) {
            let seq = try r.varint()
            let changes = try r.count(max: 1 << 22)
            let length = try r.count(max: 1 << 28)
            let bytes = try r.raw(length)
            history.slots.append(Slot(firstSeq: seq, changeCount: changes, bytes: bytes))
            history.changeCount += changes
        }
        return history
    }
}
