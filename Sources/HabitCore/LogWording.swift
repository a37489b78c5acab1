/// How `habitto log` words one operation of the journal: the change as undo messages word it
/// (`Change.describe`), with a field's values and, where a merge let a later write of another
/// device win over it, that write ("edit 'Water': goal 8 → 10, replaced by device 9b1c3f2a's 12").
public enum LogWording {
    /// The words for `op`, naming habits as `state` (which holds every operation) knows them.
    /// `before`: the field's value before the write, as the device that made it saw it (a
    /// change of this device's records it to undo it), nil when unknown. `device` names a device.
    public static func change(_ op: HabitOperation, in state: HabitState, before: FieldValue? = nil,
                              device: (DeviceID) -> String) -> String {
        let said = op.change.describe(in: state)
        switch op.change {
        case .set(let h, .name(let new)):
            // The name before, when known (what `describe` takes from the state is the name now).
            var words = "rename to \(Sanitize.quoted(new))"
            if case .name(let old)? = before { words = "rename \(Sanitize.quoted(old)) to \(Sanitize.quoted(new))" }
            let now = state.entries[h]?.fields.name ?? new
            return words + replaced(op, in: state, device: device) + (now == new ? "" : " (now \(Sanitize.quoted(now)))")
        case .set(_, .archivedFrom), .set(_, .position):
            return said
        case .set(_, let value), .setFrom(_, _, let value):
            let from = before.map { $0.index == value.index ? $0.valueText + " → " : "→ " } ?? "→ "
            return said + ": \(value.fieldName) \(from)\(value.valueText)" + replaced(op, in: state, device: device)
        case .clearFrom(_, _, let index):
            return said + ": \(FieldValue.current(index: index, of: HabitFields(name: "", startDate: .earliest)).fieldName) as before that day"
        case .skip, .rate, .note, .notDone:
            return said + replaced(op, in: state, device: device)
        default:
            return said
        }
    }

    /// ", replaced by device 9b1c3f2a's 12": the register `op` wrote is held by a later write
    /// of another device with another value (last writer wins); empty otherwise.
    static func replaced(_ op: HabitOperation, in state: HabitState, device: (DeviceID) -> String) -> String {
        guard let winner = winner(of: op, in: state), winner.stamp > op.stamp, winner.stamp.device != op.id.device,
              winner.value != written(op) else { return "" }
        return ", replaced by \(device(winner.stamp.device))'s \(winner.value)"
    }

    /// What `op` wrote into its register, as `winner` words a register's value.
    static func written(_ op: HabitOperation) -> String? {
        switch op.change {
        case .set(_, let v), .setFrom(_, _, let v): return v.valueText
        case .skip(_, _, let on): return on ? "skip" : "unskip"
        case .rate(_, _, let r): return r.map { "rating \($0)" } ?? "cleared rating"
        case .note(_, _, let n): return n == nil ? "cleared note" : "note"
        case .notDone(_, _, let on): return on ? "not-done answer" : "withdrawn not-done answer"
        default: return nil
        }
    }

    /// The write that holds the register `op` wrote, with its value worded as `written` words it.
    static func winner(of op: HabitOperation, in state: HabitState) -> (stamp: Stamp, value: String)? {
        guard let entry = state.entries[op.change.habit] else { return nil }
        func day<V>(_ register: Register<V>?, _ word: (V) -> String) -> (Stamp, String)? {
            register.map { ($0.stamp, word($0.value)) }
        }
        switch op.change {
        case .set(_, let v):
            guard let stamp = entry.fieldStamps[v.index] else { return nil }
            return (stamp, FieldValue.current(index: v.index, of: entry.fields).valueText)
        case .setFrom(_, let d, let v):
            guard let register = entry.dated[DatedField(day: d, index: v.index)] else { return nil }
            return (register.stamp, register.value?.valueText ?? "the setting before")
        case .skip(_, let d, _): return day(entry.peekRecord(d)?.skip) { $0 ? "skip" : "unskip" }
        case .rate(_, let d, _): return day(entry.peekRecord(d)?.difficulty) { $0.map { "rating \($0)" } ?? "cleared rating" }
        case .note(_, let d, _): return day(entry.peekRecord(d)?.noteRegister) { $0 == nil ? "cleared note" : "note" }
        case .notDone(_, let d, _): return day(entry.peekRecord(d)?.notDoneRegister) { $0 ? "not-done answer" : "withdrawn not-done answer" }
        default: return nil
        }
    }
}

extension FieldValue {
    /// The field's name in words: "goal", "start date".
    public var fieldName: String {
        switch self {
        case .name: "name"
        case .icon: "icon"
        case .color: "color"
        case .kind: "kind"
        case .goal: "goal"
        case .unit: "unit"
        case .schedule: "schedule"
        case .startDate: "start date"
        case .archivedFrom: "archived from"
        case .notes: "notes"
        case .group: "group"
        case .position: "position"
        case .reminders: "reminders"
        }
    }

    /// The value in words, safe for a terminal: "10", "daily", "'glasses'", "none".
    public var valueText: String {
        func text(_ s: String?) -> String { s.map(Sanitize.quoted) ?? "none" }
        switch self {
        case .name(let v): return Sanitize.quoted(v)
        case .icon(let v): return text(v)
        case .color(let v): return text(v)
        case .kind(let v): return v.rawValue
        case .goal(let v): return Amount.format(v)
        case .unit(let v): return text(v)
        case .schedule(let v): return v.description
        case .startDate(let v): return v.description
        case .archivedFrom(let v): return v?.description ?? "none"
        case .notes(let v): return v == nil ? "none" : "new text"
        case .group(let v): return text(v)
        case .position(let v): return v ?? "creation order"
        case .reminders(let v): return v.isEmpty ? "none" : ReminderTime.format(v)
        }
    }
}
