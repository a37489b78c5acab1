import HabitCore

/// The add/edit habit form: text fields the user types into, checked as they type.
public struct HabitForm: Hashable, Sendable {
    public enum Field: Int, CaseIterable, Hashable, Sendable {
        case name, icon, kind, goal, unit, schedule, start, color, group, reminders, notes

        public var label: String {
            switch self {
            case .name: "Name"
            case .icon: "Icon"
            case .kind: "Kind"
            case .goal: "Goal per day"
            case .unit: "Unit"
            case .schedule: "Schedule"
            case .start: "Start date"
            case .color: "Colour"
            case .group: "Group"
            case .reminders: "Reminders"
            case .notes: "Notes"
            }
        }

        public var hint: String {
            switch self {
            case .name: "1-64 characters"
            case .icon: "one character or emoji, optional"
            case .kind: "space switches, b build (at least), l limit (at most)"
            case .goal: "an amount, up to 3 decimals"
            case .unit: "e.g. glasses, optional"
            case .schedule: "daily, weekdays, weekends, mon,wed,fri, every:3, 3/week"
            case .start: "YYYY-MM-DD, -3 for 3 days ago, yesterday, mon… (past days can be filled in)"
            case .color: "#RRGGBB or a name, optional"
            case .group: "e.g. Health, optional; right/left: existing groups"
            case .reminders: "HH:MM, e.g. 08:00,20:00, up to 8 (habitto remind)"
            case .notes: "optional free text"
            }
        }
    }

    /// The habit being edited, or nil for a new one.
    public let editing: HabitID?
    public var values: [Field: String]
    public var kind: HabitKind
    public var focus: Field = .name
    /// Set after a failed save: the message of the whole form (e.g. a duplicate name).
    public var formError: String?
    /// The focused field still shows what it had when it got the focus (a pre-filled value
    /// or one typed before): the first character typed replaces it (typing 8 into a goal of 1
    /// gives 8, not 18; `w` into a schedule of `daily` gives `w`), while backspace first
    /// edits it. Every field but the kind behaves so.
    public var replacesOnType = false
    /// `esc` was pressed on a form with changes: the form asks "Discard the changes?" and
    /// `y` closes it, any other key goes back to it as it was.
    public var asksDiscard = false
    /// The fields as the form was opened, to tell whether anything was changed.
    private var opened: [Field: String] = [:]
    private var openedKind: HabitKind = .build

    init(editing: HabitID?, values: [Field: String], kind: HabitKind, today: LocalDay?) {
        self.editing = editing; self.values = values; self.kind = kind; self.today = today
        opened = values; openedKind = kind
        replacesOnType = !(values[.name] ?? "").isEmpty
    }

    /// Whether any field differs from what the form was opened with (what `esc` would throw away).
    public var hasChanges: Bool {
        kind != openedKind || Field.allCases.contains { $0 != .kind && text($0) != (opened[$0] ?? "") }
    }

    /// A field's label, as the kind reads it: a limit habit's goal is "At most per day".
    public func label(_ field: Field) -> String {
        field == .goal && kind == .limit ? "At most per day" : field.label
    }
    /// The day the form was opened on, for a start date typed as days ago (`-3`).
    public var today: LocalDay?

    /// An empty form for a new habit starting `today`.
    public static func new(today: LocalDay) -> HabitForm {
        HabitForm(editing: nil, values: [.goal: "1", .schedule: "daily", .start: today.description], kind: .build, today: today)
    }

    /// A form filled with a habit's fields, opened on `today` (for a start date typed as
    /// `-3` or `mon`; without it only `YYYY-MM-DD` is read).
    public static func edit(_ habit: Habit, today: LocalDay? = nil) -> HabitForm {
        let f = habit.fields
        return HabitForm(editing: habit.id, values: [
            .name: f.name, .icon: f.icon ?? "", .goal: Amount.format(f.goal), .unit: f.unit ?? "",
            .schedule: f.schedule.description, .start: f.startDate.description, .color: f.color ?? "",
            .group: f.group ?? "", .reminders: ReminderTime.format(f.reminders), .notes: f.notes ?? "",
        ], kind: f.kind, today: today)
    }

    public func text(_ field: Field) -> String { field == .kind ? kind.rawValue : values[field] ?? "" }

    /// What is wrong with one field as typed, or nil.
    public func problem(_ field: Field, in state: HabitState) -> String? {
        let v = text(field)
        do {
            switch field {
            case .name:
                try Validate.name(v)
                try Edits.ensureUnique(v, in: state, except: editing)
            case .icon: if !v.isEmpty { try Validate.icon(v) }
            case .kind:
                if kind == .limit, let s = try? Schedule(parsing: text(.schedule)), s.isQuota {
                    return "a limit habit cannot use an N/\(s.period == .month ? "month" : "week") schedule"
                }
            case .goal:
                try Validate.goal(try Amount.parse(v), kind: kind)
            case .unit: if !v.isEmpty { try Validate.unit(v) }
            case .schedule: _ = try Schedule(parsing: v)
            case .start: if startDate == nil { return today == nil ? "use YYYY-MM-DD" : "use YYYY-MM-DD, today, yesterday, -N, +N or a weekday such as mon" }
            case .color: if !v.isEmpty { try Validate.color(v) }
            case .group: if !v.isEmpty { try Validate.group(v) }
            case .reminders: _ = try ReminderTime.parseList(v)
            case .notes: try Validate.notes(v)
            }
        } catch let e as CoreError {
            return e.description
        } catch {
            return "\(error)"
        }
        return nil
    }

    /// The fields the form describes, or the first problem.
    public func fields(base: HabitFields?, in state: HabitState) -> Result<HabitFields, CoreError> {
        for f in Field.allCases { if let p = problem(f, in: state) { return .failure(.formField(label: label(f), problem: p)) } }
        guard let start = startDate else { return .failure(.formField(label: "Start date", problem: "use YYYY-MM-DD")) }
        var fields = base ?? HabitFields(name: "", startDate: start)
        fields.name = text(.name)
        fields.icon = text(.icon).isEmpty ? nil : text(.icon)
        fields.kind = kind
        guard let goal = try? Amount.parse(text(.goal)) else { return .failure(.formField(label: label(.goal), problem: "not an amount")) }
        fields.goal = goal
        fields.unit = text(.unit).isEmpty ? nil : text(.unit)
        fields.schedule = (try? Schedule(parsing: text(.schedule))) ?? .daily
        fields.startDate = start
        fields.color = text(.color).isEmpty ? nil : text(.color).lowercased()
        fields.group = text(.group).isEmpty ? nil : text(.group)
        guard let reminders = try? ReminderTime.parseList(text(.reminders)) else { return .failure(.formField(label: label(.reminders), problem: "use HH:MM times")) }
        fields.reminders = reminders
        fields.notes = text(.notes).allSatisfy(\.isWhitespace) ? nil : text(.notes)
        do { try fields.validate() } catch let e as CoreError { return .failure(e) } catch { return .failure(.formField(label: label(.name), problem: "\(error)")) }
        return .success(fields)
    }

    /// The start date as typed, in any of `TypedDay`'s forms counted from the day the form
    /// was opened (only `YYYY-MM-DD` in a form opened without one).
    public var startDate: LocalDay? {
        let v = text(.start).trimmingBlanks
        return today.map { TypedDay.parse(v, today: $0) } ?? LocalDay(v)
    }

    /// Types a character into the focused field. In the kind field space switches, `b`
    /// makes a build habit and `l` a limit habit; the goal stays (1 unless typed, as with
    /// `habitto add --limit`), but a build habit's goal 0 becomes 1.
    public mutating func type(_ c: Character) {
        formError = nil
        if focus == .kind {
            if c == " " || c == "b" || c == "l" { kind = c == "b" ? .build : c == "l" ? .limit : (kind == .build ? .limit : .build) }
            if kind == .build, values[.goal] == "0" { values[.goal] = "1" }
            return
        }
        let current = replacesOnType ? "" : values[focus] ?? ""
        replacesOnType = false
        guard current.count < (focus == .notes ? 2001 : 200) else { return }
        values[focus] = current + String(c)
    }

    /// Erases the last character of the focused field.
    public mutating func erase() {
        formError = nil
        replacesOnType = false
        guard focus != .kind, var v = values[focus], !v.isEmpty else { return }
        v.removeLast()
        values[focus] = v
    }

    /// Whether the focused field would be replaced by the next character typed: it shows
    /// a value it had when it got the focus.
    public var showsReplaceable: Bool { replacesOnType && focus != .kind && !text(focus).isEmpty }

    /// Puts the next (or, with a negative step, the previous) of `groups` into the group
    /// field: the first one that starts with what is typed, then each in turn.
    public mutating func pickGroup(_ groups: [String], _ step: Int) {
        guard focus == .group, !groups.isEmpty else { return }
        formError = nil
        replacesOnType = false
        let v = text(.group)
        if let i = groups.firstIndex(of: v) {
            values[.group] = groups[(i + step % groups.count + groups.count) % groups.count]
        } else {
            values[.group] = groups.first { !v.isEmpty && $0.lowercased().hasPrefix(v.lowercased()) }
                ?? (step < 0 ? groups.last! : groups[0])
        }
    }

    /// Moves the focus to the next (or previous) field; its value, if any, is then replaced
    /// by the first character typed (`replacesOnType`).
    public mutating func move(_ step: Int) {
        let all = Field.allCases
        focus = all[(focus.rawValue + step + all.count) % all.count]
        replacesOnType = focus != .kind && !text(focus).isEmpty
    }
}
