import HabitCore

/// What this device can undo: the inverse of one of its own journal entries.
public struct UndoItem: Hashable, Sendable {
    /// The first sequence number of the entry it reverts (its identity).
    public let firstSeq: UInt64
    /// The changes that revert it.
    public let inverse: [Change]
    /// A short description of the original change ("check Water +1 on 2026-11-21").
    public let label: String
}

/// One journal record: the operations of one command, written and fsync'd together, with
/// what is needed to undo them.
public struct JournalEntry: Hashable, Sendable {
    public var ops: [HabitOperation]
    /// Changes that revert this entry; empty when it cannot be undone (pulled or undo entries).
    public var inverse: [Change]
    /// For an undo: the first sequence number of the entry it reverts.
    public var undoes: UInt64?
    public var label: String

    public init(ops: [HabitOperation], inverse: [Change] = [], undoes: UInt64? = nil, label: String = "") {
        self.ops = ops; self.inverse = inverse; self.undoes = undoes; self.label = label
    }

    static let version: UInt8 = 1

    /// The payload bytes of the record.
    public func encoded() -> [UInt8] {
        var w = ByteWriter(capacity: 64 * ops.count + 32)
        w.u8(JournalEntry.version)
        w.varint(UInt64(ops.count))
        for op in ops { w.operation(op) }
        w.varint(UInt64(inverse.count))
        for c in inverse { w.change(c) }
        w.bool(undoes != nil); if let undoes { w.varint(undoes) }
        w.string(label)
        return w.bytes
    }

    /// Reads a record payload; throws `DecodeError` on anything unexpected.
    public init(decoding bytes: [UInt8]) throws {
        var r = ByteReader(bytes)
        guard try r.u8() == JournalEntry.version else { throw DecodeError("unknown record version") }
        let n = try r.count(max: 1 << 22)
        ops = []
        ops.reserveCapacity(n)
        for _ in 0..<n { ops.append(try r.operation()) }
        let m = try r.count(max: 1 << 22)
        inverse = []
        for _ in 0..<m { inverse.append(try r.change()) }
        undoes = try r.bool() ? try r.varint() : nil
        label = try r.string()
        guard r.isAtEnd else { throw DecodeError("trailing bytes in record") }
    }
}

extension ByteWriter {
    mutating func undoItem(_ u: UndoItem) {
        varint(u.firstSeq)
        varint(UInt64(u.inverse.count))
        for c in u.inverse { change(c) }
        string(u.label)
    }
}

extension ByteReader {
    mutating func undoItem() throws -> UndoItem {
        let seq = try varint()
        var inv: [Change] = []
        for _ in 0..<(try count(max: 1 << 22)) { inv.append(try change()) }
        return UndoItem(firstSeq: seq, inverse: inv, label: try string())
    }
}
