import FoundationEssentials
import HabitCore

/// The canonical export: every existing habit with its fields and recorded days, sorted,
/// without timestamps, so the same state on the same day always gives the same bytes.
public enum Export {
    public static let format = "habitto-export"
    public static let version = 1

    /// The export document for a state on `today`: habits in the user's order
    /// (`HabitState.habits`), each with its order key when it has one. A day's values are written only where
    /// local input could record them (`Edits.isRecordable`), so every export imports again;
    /// what a merge kept outside those days (before the start date, on or after the archive
    /// date, a check-in on a day after `today`) counts for nothing and is left out.
    public static func document(_ state: HabitState, today: LocalDay) -> JSON {
        let habits = ordered(state).map { habit -> JSON in
            let days = (state.entries[habit.id]?.days ?? [:]).sorted { $0.key < $1.key }.compactMap { day, rec -> JSON? in
                let values = Edits.isRecordable(habit, day, today: today)
                let progress = values ? habit.on(day).shown(progress: rec.progress) : 0
                let rating = values ? rec.rating : nil
                let note = values ? rec.note : nil
                let skipped = rec.isSkipRegisterOn && Edits.isRecordable(habit, day, today: today, skip: true)
                // A pause where it counts (days before the start or from the archive on
                // count for nothing); a day without one is written as before pauses existed.
                let paused = rec.pauseRegister?.value.flatMap { Edits.isRecordable(habit, day, today: today, skip: true) ? $0 : nil }
                // A "not done" answer only where it is one (a day without it is written as before).
                let notDone = values && rec.isAnsweredNotDone
                guard progress > 0 || skipped || rating != nil || note != nil || notDone || paused != nil else { return nil }
                var o: [String: JSON] = ["date": .string(day.description), "progress": .amount(progress),
                                         "skipped": .bool(skipped), "difficulty": .optional(rating), "note": .optional(note)]
                if notDone { o["notDone"] = .bool(true) }
                if let paused {
                    o["paused"] = .bool(true)
                    if !paused.isEmpty { o["pauseReason"] = .string(paused) }
                }
                return .object(o)
            }
            var o = fields(habit)
            o["days"] = .array(days)
            return .object(o)
        }
        return .object(["format": .string(format), "version": .int(version), "habits": .array(habits)])
    }

    /// The habits as the export lists them. Once any habit has been moved, in the user's
    /// order, each with an order key (a habit never moved gets one after the moved ones, in
    /// creation order), so that an import gives the same order; before that, by id, without
    /// keys, as exports were before habits had an order.
    static func ordered(_ state: HabitState) -> [Habit] {
        let habits = state.habits
        let unkeyed = habits.filter { $0.fields.position == nil }
        guard unkeyed.count < habits.count else { return habits.sorted { $0.id < $1.id } }
        guard !unkeyed.isEmpty, let keys = OrderKey.spread(unkeyed.count, between: habits[habits.count - unkeyed.count - 1].fields.position, nil)
        else { return habits }
        return habits.prefix(habits.count - unkeyed.count) + zip(unkeyed, keys).map { habit, key in
            var h = habit
            h.fields.position = key
            return h
        }
    }

    /// A habit's fields as JSON members; `position` only for a habit that has an order key,
    /// `reminders` (`["08:00", "20:30"]`) only for one with reminder times, and
    /// `definitions` only for one whose goal, unit, kind or schedule changed from a later
    /// day (so that the export of data without them reads as it did before those fields
    /// existed). `definitions` lists every definition oldest first, each with the day it
    /// counts from (`from`, null for the first) and its kind, goal, unit and schedule; the
    /// habit's own kind, goal, unit and schedule are the newest one's.
    public static func fields(_ habit: Habit) -> [String: JSON] {
        let f = habit.fields
        return [
            "id": .string(habit.id.rawValue), "name": .string(f.name), "icon": .optional(f.icon),
            "color": .optional(f.color), "kind": .string(f.kind.rawValue), "goal": .amount(f.goal),
            "unit": .optional(f.unit), "schedule": .string(f.schedule.description),
            "startDate": .string(f.startDate.description),
            "archivedFrom": .optional(f.archivedFrom?.description), "notes": .optional(f.notes),
            "group": .optional(f.group),
        ].merging(f.position.map { ["position": .string($0)] } ?? [:]) { a, _ in a }
         .merging(f.reminders.isEmpty ? [:] : ["reminders": .array(f.reminders.map { .string($0.description) })]) { a, _ in a }
         .merging(habit.hasHistory ? ["definitions": .array(habit.definitions.map(definition))] : [:]) { a, _ in a }
    }

    /// One definition as `fields` lists it.
    static func definition(_ d: DatedRule) -> JSON {
        .object(["from": .optional(d.from == .earliest ? nil : d.from.description), "kind": .string(d.rule.kind.rawValue),
                 "goal": .amount(d.rule.goal), "unit": .optional(d.rule.unit), "schedule": .string(d.rule.schedule.description)])
    }

    // MARK: CSV

    /// The CSV export: `habits.csv` (one row per habit, by id) and `checkins.csv` (one row per
    /// habit-day with anything recorded), each with its header line, RFC 4180 quoted, with
    /// CRLF line ends. Text a person wrote (names, units, icons, colours, groups, notes) is
    /// kept from being taken for a formula (`csvField`); numbers, dates and ids are written
    /// as they are.
    public static func csv(_ state: HabitState) -> (habits: String, checkins: String) {
        var h = "id,name,kind,goal,unit,schedule,start_date,archived_from,icon,color,group,notes,reminders\r\n"
        var c = "habit_id,habit,date,progress,skipped,difficulty,note\r\n"
        for habit in state.habits.sorted(by: { $0.id < $1.id }) {
            let f = habit.fields
            let name = csvField(f.name, text: true)
            h += [habit.id.rawValue, name, f.kind.rawValue, csvField(Amount.format(f.goal)), csvField(f.unit ?? "", text: true),
                  csvField(f.schedule.description), f.startDate.description, f.archivedFrom?.description ?? "",
                  csvField(f.icon ?? "", text: true), csvField(f.color ?? "", text: true), csvField(f.group ?? "", text: true),
                  csvField(f.notes ?? "", text: true), csvField(ReminderTime.format(f.reminders))].joined(separator: ",") + "\r\n"
            for (day, rec) in (state.entries[habit.id]?.days ?? [:]).sorted(by: { $0.key < $1.key })
            where rec.progress > 0 || rec.isSkipped || rec.rating != nil || rec.note != nil {
                c += [habit.id.rawValue, name, day.description, csvField(Amount.format(habit.shown(progress: rec.progress))),
                      rec.isSkipped ? "true" : "false", rec.rating.map(String.init) ?? "",
                      csvField(rec.note ?? "", text: true)].joined(separator: ",") + "\r\n"
            }
        }
        return (h, c)
    }

    /// One CSV field: quoted when it holds a comma, quote or line break, quotes doubled (RFC
    /// 4180). A `text` field that begins with `=`, `+`, `-`, `@`, a tab or a carriage return
    /// gets a `'` in front, so that a spreadsheet shows it as text instead of running it as
    /// a formula (OWASP's rule against CSV injection).
    public static func csvField(_ s: String, text: Bool = false) -> String {
        var s = s
        if text, let first = s.unicodeScalars.first, formulaStarts.contains(first) { s = "'" + s }
        // By scalar: a CRLF inside is one Character, equal to neither "\r" nor "\n".
        guard s.unicodeScalars.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return s }
        return "\"" + s.replacingAll("\"", with: "\"\"") + "\""
    }

    /// What a spreadsheet may read as the start of a formula.
    static let formulaStarts: Set<Unicode.Scalar> = ["=", "+", "-", "@", "\t", "\r"]
}
