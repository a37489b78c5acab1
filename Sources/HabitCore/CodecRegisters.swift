import FoundationEssentials

// MARK: Dated rule registers

extension ByteWriter {
    /// The entries' dated registers (`HabitEntry.dated`), written after everything else of
    /// a state or snapshot: the number of habits that have some, then each one's, sorted by
    /// habit, then day and field.
    public mutating func datedRegisters(_ entries: [HabitID: HabitEntry]) { datedRegisters(entries, amountScale: 1) }

    mutating func datedRegisters(_ entries: [HabitID: HabitEntry], amountScale: Int) {
        let holding = entries.filter { !$0.value.dated.isEmpty }.sorted { $0.key < $1.key }
        varint(UInt64(holding.count))
        for (id, e) in holding {
            habit(id)
            varint(UInt64(e.dated.count))
            for (key, register) in e.dated.sorted(by: { $0.key < $1.key }) {
                day(key.day); field(register.value, amountScale: amountScale); stamp(register.stamp)
            }
        }
    }
}

extension ByteReader {
    /// Reads what `ByteWriter.datedRegisters` wrote; each habit named must be in `entries`,
    /// once, with its registers in order.
    public mutating func datedRegisters(into entries: inout [HabitID: HabitEntry]) throws {
        var previous: HabitID?
        for _ in 0..<(try count(max: 1 << 24)) {
            let id = try habit()
            guard previous.map({ $0 < id }) ?? true, entries[id] != nil else { throw DecodeError("dated registers of an unknown habit") }
            previous = id
            var last: DatedField?
            var dated: [DatedField: Register<FieldValue>] = [:]
            let n = try count(max: 1 << 20)
            guard n > 0 else { throw DecodeError("an empty list of dated registers") }
            for _ in 0..<n {
                let d = try day(), f = try field(amountScale: format.amountScale), s = try stamp()
                let key = DatedField(day: d, index: f.index)
                guard HabitRule.fieldIndices.contains(f.index), last.map({ $0 < key }) ?? true else {
                    throw DecodeError("dated registers out of order")
                }
                last = key
                dated[key] = Register(value: f, stamp: s)
            }
            entries[id]!.dated = dated
        }
    }
}
