import HabitCore

/// This device's undo history, oldest first, within limits on commands and changes.
///
/// Items read from a snapshot stay encoded until one is needed (an undo, or a snapshot
/// written while they are still here, which copies their bytes as they are): start-up
/// reads only each item's sequence number and change count, so a long history does not
/// slow every command down.
struct UndoHistory: Sendable {
    /// 32 bytes: a long history read from a snapshot is a thousand of them at start-up.
    private struct Slot: Sendable {
        let firstSeq: UInt64
        /// Where the item's encoding (`undoItem`) is in `source`, while it is not decoded
        /// (not copied at start-up); its length is `encodedLength`.
        let encodedStart: Int
        let changeCount: UInt32
        let encodedLength: UInt32
        /// The item, for one made by this process (not read from a snapshot).
        let made: Made?

        init(firstSeq: UInt64, changeCount: Int, encoded: Range<Int>) {
            self.firstSeq = firstSeq; self.changeCount = UInt32(changeCount)
            encodedStart = encoded.lowerBound; encodedLength = UInt32(encoded.count); made = nil
        }

        init(_ item: UndoItem) {
            firstSeq = item.firstSeq; changeCount = UInt32(item.inverse.count)
            encodedStart = 0; encodedLength = 0; made = Made(item)
        }

        var encoded: Range<Int> { encodedStart..<(encodedStart + Int(encodedLength)) }
    }

    /// An item held out of line, so that a slot stays small.
    private final class Made: Sendable {
        let item: UndoItem
        init(_ item: UndoItem) { self.item = item }
    }

    private var slots: [Slot] = []
    /// The snapshot the encoded items were read from (one reference for them all).
    private var source: SnapshotBytes?
    /// The number of changes in all items.
    private(set) var changeCount = 0

    init() {}

    init(_ items: [UndoItem]) {
        for item in items { append(item) }
    }

    var count: Int { slots.count }

    /// A slot's encoding as it was read.
    private func bytes(of slot: Slot) -> [UInt8] {
        guard slot.made == nil, let source else { return [] }
        return source.bytes(slot.encoded)
    }

    mutating func append(_ item: UndoItem) {
        slots.append(Slot(item))
        changeCount += item.inverse.count
    }

    /// Forgets the newest item reverting the entry that starts at `firstSeq` (it was undone).
    mutating func remove(firstSeq: UInt64) {
        guard let i = slots.lastIndex(where: { $0.firstSeq == firstSeq }) else { return }
        changeCount -= Int(slots.remove(at: i).changeCount)
    }

    /// Drops the oldest items until at most `limit` items and `changeLimit` changes remain.
    mutating func trim(limit: Int, changeLimit: Int) {
        var drop = 0
        while drop < slots.count && (slots.count - drop > limit || changeCount > changeLimit) {
            changeCount -= Int(slots[drop].changeCount)
            drop += 1
        }
        if drop > 0 { slots.removeFirst(drop) }
    }

    /// The item at `i`, decoded now if it was not yet.
    func item(at i: Int) throws -> UndoItem {
        let slot = slots[i]
        if let made = slot.made { return made.item }
        var r = ByteReader(bytes(of: slot))
        let item = try r.undoItem()
        guard r.isAtEnd, item.firstSeq == slot.firstSeq, item.inverse.count == Int(slot.changeCount) else {
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
            if let made = slot.made {
                var e = ByteWriter()
                e.undoItem(made.item)
                bytes = e.bytes
            } else {
                bytes = self.bytes(of: slot)
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
            history.source = file
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
            let itemCount = try count(max: 1 << 20)
            // Room for what comes before the next snapshot: an item for each record replayed
            // after this one (fewer than a snapshot interval) and for the command about to
            // run. Growing a long history's list would copy it into new pages; room never
            // written costs nothing.
            history.slots.reserveCapacity(itemCount + HabitRepository.snapshotInterval + 1)
            for _ in 0..<itemCount {
                let seq = try varint()
                let changes = try count(max: 1 << 22)
                let length = try count(max: 1 << 28)
                let range = (start + position)..<(start + position + length)
                position += length
                history.slots.append(Slot(firstSeq: seq, changeCount: changes, encoded: range))
                history.changeCount += changes
            }
            return (history, start + position)
        }
    }
}
