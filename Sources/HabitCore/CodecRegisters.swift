import FoundationEssentials

// MARK: Dated rule registers

extension ByteWriter {
    /// The entries' dated registers (`HabitEntry.dated`), written after everything else of
    /// a state or snapshot: the number of habits that have some, then each one's, sorted by
    /// habit, then day and field: its day, its value as a field (see `field(_:)`) or, for a
    /// cleared register, `clearedMark` plus the field's index, then its stamp. A state
    /// without cleared registers is written as before they existed.
    public mutating func datedRegisters(_ entries: [HabitID: HabitEntry]) { datedRegisters(entries, amountScale: 1) }

    mutating func datedRegisters(_ entries: [HabitID: HabitEntry], amountScale: Int) {
        let holding = entries.filter { !$0.value.dated.isEmpty }.sorted { $0.key < $1.key }
        varint(UInt64(holding.count))
        for (id, e) in holding {
            habit(id)
            varint(UInt64(e.dated.count))
            for (key, register) in e.dated.sorted(by: { $0.key < $1.key }) {
                day(key.day)
                if let value = register.value { field(value, amountScale: amountScale) } else {
                    u8(DatedField.clearedMark + UInt8(truncatingIfNeeded: key.index))
                }
                stamp(register.stamp)
            }
        }
    }
}

extension ByteReader {
    /// Reads what `ByteWriter.datedRegisters` wrote; each habit named must be in `entries`,
    /// once, with its registers in order, and a cleared register only in a format that has
    /// them (`StateFormat.clearedRegisters`).
    public mutating func datedRegisters(into entries: inout [HabitID: HabitEntry]) throws {
        var previous: HabitID?
        for _ in 0..<(try count(max: 1 << 24)) {
            let id = try habit()
            guard previous.map({ $0 < id }) ?? true, entries[id] != nil else { throw DecodeError("dated registers of an unknown habit") }
            previous = id
            var last: DatedField?
            var dated: [DatedField: Register<FieldValue?>] = [:]
            let n = try count(max: 1 << 20)
            guard n > 0 else { throw DecodeError("an empty list of dated registers") }
            for _ in 0..<n {
                let d = try day(), (index, value) = try datedValue(), s = try stamp()
                let key = DatedField(day: d, index: index)
                guard HabitRule.fieldIndices.contains(index), last.map({ $0 < key }) ?? true else {
                    throw DecodeError("dated registers out of order")
                }
                last = key
                dated[key] = Register(value: value, stamp: s)
            }
            entries[id]!.dated = dated
        }
    }

    /// A dated register's field index and value, nil for a cleared register.
    private mutating func datedValue() throws -> (Int, FieldValue?) {
        let byte = try u8()
        guard byte >= DatedField.clearedMark else {
            let f = try field(index: byte, amountScale: format.amountScale)
            return (f.index, f)
        }
        guard format.clearedRegisters else { throw DecodeError("a cleared dated register in a format without them") }
        return (Int(byte - DatedField.clearedMark), nil)
    }
}

extension DatedField {
    /// What a cleared register is written with in place of its value's field index: this
    /// plus the index (a field's index is always below it).
    static let clearedMark: UInt8 = 0x80
}
