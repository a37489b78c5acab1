extension Edits {
    /// An undo's changes with the dated registers that only repeated the definition it
    /// restores carried along. Undoing a dated edit sets the day's register to what the day
    /// read before (a register equal to the one in force before it, which changes nothing);
    /// undoing the edit before it then changes that earlier definition, and the repeating
    /// register would keep the value no command set. So for each rule-field change of an
    /// undo, in order, every later register of the field that holds the value being
    /// replaced, up to the first that holds another, is set to the restored value too. The
    /// registers are followed as the undo's own changes leave them (a later change of the
    /// undo wins over a register carried along before it).
    public static func undoChanges(_ inverse: [Change], in state: HabitState) -> [Change] {
        var out: [Change] = []
        // The rule fields' registers as the undo leaves them so far, per habit.
        var registers: [HabitID: [DatedField: FieldValue]] = [:]
        var bases: [HabitID: HabitFields] = [:]
        for change in inverse {
            out.append(change)
            let (id, day, value): (HabitID, LocalDay?, FieldValue)
            switch change {
            case .set(let h, let v) where HabitRule.fieldIndices.contains(v.index): (id, day, value) = (h, nil, v)
            case .setFrom(let h, let d, let v): (id, day, value) = (h, d, v)
            default: continue
            }
            guard let entry = state.entries[id] else { continue }
            var dated = registers[id] ?? entry.dated.mapValues(\.value)
            var base = bases[id] ?? entry.fields
            let index = value.index
            let keys = dated.keys.filter { $0.index == index }.sorted()
            // What the change replaces: the day's register, the value the day read, or the base.
            let replaced: FieldValue
            if let day {
                replaced = dated[DatedField(day: day, index: index)]
                    ?? keys.last(where: { $0.day <= day }).flatMap { dated[$0] } ?? FieldValue.current(index: index, of: base)
                dated[DatedField(day: day, index: index)] = value
            } else {
                replaced = FieldValue.current(index: index, of: base)
                value.apply(to: &base)
            }
            if replaced != value {
                for key in keys where key.day > (day ?? .earliest) {
                    guard dated[key] == replaced else { break }
                    dated[key] = value
                    out.append(.setFrom(id, key.day, value))
                }
            }
            registers[id] = dated
            bases[id] = base
        }
        return out
    }
}
