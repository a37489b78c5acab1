import FoundationEssentials
import HabitCore

// MARK: Week

func weekScreen(_ b: inout ScreenBuffer, _ state: AppState) {
    let g = state.glyphs
    let end = state.weekEnd
    let days = state.weekDays
    var x = 1 + b.put("Habitto", x: 1, y: 0, role: .title)
    x += b.put(" \(g.separator) ", x: x, y: 0, role: .dim)
    b.put("the \(days.count) days to \(end)", x: x, y: 0, role: .header)
    let gridX = state.weekGridX
    for (i, d) in days.enumerated() {
        let label = String(weekdayNames[d.weekday.rawValue - 1].prefix(2))
        let role: Role = d == state.cursorDay ? .header : d == state.today ? .accent : .dim
        b.put(label, x: gridX + i * 3, y: 2, role: role)
        b.put(String(d.components.day), x: gridX + i * 3, y: 3, role: role)
    }
    let habits = state.weekHabits
    // The last line of the list area tells what the selected cell holds.
    let bottom = state.height - 5
    let visible = max(1, bottom - 4 + 1)
    let cursor = habits.firstIndex { $0.id == state.cursorHabit }
    let first = max(0, min((cursor ?? 0) - visible + 1, habits.count - visible))
    for (row, habit) in habits.enumerated().dropFirst(first).prefix(visible) {
        let y = 4 + row - first
        let selected = row == cursor
        // A click on the name selects the habit on the cursor's day; on a cell, that day.
        b.region(.weekCell(habit.id, state.cursorDay), x: 0, y: y, width: state.width)
        b.put(selected ? g.selected : " ", x: 0, y: y, role: .accent)
        b.put(state.label(habit, width: gridX - 2), x: 1, y: y, role: selected ? .header : .normal)
        let history = state.habits.history(habit, through: min(end, state.today), today: state.today,
                                           settings: state.settings)
        let byDay = Dictionary(uniqueKeysWithValues: history.suffix(days.count).map { ($0.day, $0) })
        for (i, d) in days.enumerated() {
            b.region(.weekCell(habit.id, d), x: gridX + i * 3 - 1, y: y, width: 3)
            if selected && d == state.cursorDay {
                b.put("[", x: gridX + i * 3 - 1, y: y, role: .accent)
                b.put("]", x: gridX + i * 3 + 1, y: y, role: .accent)
            }
            guard let s = byDay[d] else {
                // A day to come that is paused already shows it.
                if d > state.today, d >= habit.startDate, state.habits.isPaused(habit.id, d) {
                    b.put(g.paused, x: gridX + i * 3, y: y, role: .skipped, color: ThemeColor(habitColor: habit.fields.color))
                }
                continue
            }
            // An N-per-week habit's open day is neutral (blank) unless its week fell short.
            let open = habit.on(d).schedule.isQuota ? s.missed : s.scheduled
            let (glyph, role) = dayGlyph(skipped: s.skipped, exceeded: s.exceeded, completed: s.completed,
                                         progress: s.progress, kind: habit.kind, scheduled: open, notDone: s.notDone,
                                         paused: s.paused, g)
            b.put(open || s.progress > 0 || s.skipped || s.notDone ? glyph : g.unscheduled, x: gridX + i * 3, y: y,
                  role: role, color: ThemeColor(habitColor: habit.fields.color))
        }
    }
    if habits.count > visible {
        b.put("\(first + 1)-\(first + min(visible, habits.count - first)) of \(habits.count)", x: 1, y: 1, role: .dim)
    }
    if habits.isEmpty {
        b.put(state.filter.isEmpty ? "No habits yet." : noMatch(state, mode: .week), x: 3, y: 5, role: .dim, limit: state.width - 4)
    } else if let id = state.cursorHabit, let habit = state.habits.habit(id) {
        let text = dayDescription(habit, state.cursorDay, state, width: state.width - 2)
        b.put(TextWidth.fit(text, state.width - 2), x: 1, y: bottom + 1, role: .normal)
    }
}

/// "Drink water · Thu 19 Nov 2026: 5/8 glasses · difficulty 3 · “note”": what a day of a
/// habit holds, for the week grid's and the calendar's cursor. Within `width`, the name,
/// then the note and the year give way (the shortest form is returned when none fits).
func dayDescription(_ habit: Habit, _ day: LocalDay, _ state: AppState, name: Bool = true, width: Int = .max) -> String {
    let s = state.habits.summary(habit, on: day, today: state.today, settings: state.settings)
    let sep = " \(state.glyphs.separator) "
    // The day's goal and unit: those in force on it.
    let defined = s.habit
    let unit = defined.fields.unit.map { " " + Sanitize.display($0) } ?? ""
    var what = defined.kind == .build ? "\(Amount.format(s.progress))/\(Amount.format(defined.goal))\(unit)"
                                      : "\(Amount.format(s.progress)) (at most \(Amount.format(defined.goal)))\(unit)"
    if s.paused {
        what += state.habits.record(habit.id, day)?.pauseReason.map { ", paused (\(Sanitize.display($0)))" } ?? ", paused"
    } else if s.skipped { what += ", skipped" }
    if let done = s.weekDone, let quota = s.weekQuota {
        what += " (\(done)/\(quota) that \(s.habit.schedule.period == .month ? "month" : "week"))"
    }
    if day < habit.startDate { what = "before it starts (\(habit.startDate))" }
    let rating = s.difficulty.map { sep + "difficulty \($0)" } ?? ""
    let note = state.habits.note(habit.id, day).map { sep + Sanitize.display($0).replacingAll("\n", with: " / ") } ?? ""
    let title = dateTitle(day, today: state.today).0
    let named = "\(Sanitize.display(state.label(habit)))\(sep)\(title)"
    let candidates = (name ? ["\(named): \(what)\(rating)\(note)"] : []) + [
        "\(title): \(what)\(rating)\(note)", "\(title): \(what)\(rating)", "\(shortDate(day)): \(what)\(rating)",
    ]
    return candidates.first { TextWidth.of($0) <= width } ?? candidates.last ?? ""
}
