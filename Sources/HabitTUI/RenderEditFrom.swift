import HabitCore

/// The question an edit form asks when it changed goal, unit, kind or schedule of a habit
/// with days behind it: "Goal 8 → 10 glasses: from today (t) or from the start
/// 2026-11-01 (s)?". Names each rule field that changes.
func editFromQuestion(_ state: AppState, _ form: HabitForm, _ fields: HabitFields) -> String {
    guard let id = form.editing, let habit = state.habits.habit(id) else { return "" }
    let old = habit.fields
    var changed: [String] = []
    if old.kind != fields.kind { changed.append("kind \(old.kind.rawValue) → \(fields.kind.rawValue)") }
    if old.goal != fields.goal { changed.append("goal \(Amount.format(old.goal)) → \(Amount.format(fields.goal))") }
    if old.unit != fields.unit {
        changed.append("unit \(old.unit.map(Sanitize.display) ?? "none") → \(fields.unit.map(Sanitize.display) ?? "none")")
    }
    if old.schedule != fields.schedule { changed.append("schedule \(old.schedule) → \(fields.schedule)") }
    let what = changed.joined(separator: ", ")
    return "\(what.prefix(1).uppercased() + what.dropFirst()): from today (t) or from the start \(habit.startDate) (s)?"
}
