import Foundation
import HabitCore

// MARK: Today

/// The glyph and role of a habit's day.
func dayGlyph(_ s: HabitSummary, _ g: Glyphs) -> (String, Role) {
    dayGlyph(skipped: s.skipped, exceeded: s.exceeded, completed: s.completed, progress: s.progress,
             kind: s.habit.kind, scheduled: s.scheduled, g)
}

func dayGlyph(skipped: Bool, exceeded: Bool, completed: Bool, progress: Int, kind: HabitKind, scheduled: Bool,
              _ g: Glyphs) -> (String, Role) {
    if skipped { return (g.skipped, .skipped) }
    if exceeded { return (g.exceeded, .exceeded) }
    if completed && (progress > 0 || kind == .limit) { return (g.done, .done) }
    if progress > 0 { return (g.partial, .partial) }
    return (g.notYet, scheduled ? .missed : .dim)
}

func progressText(_ s: HabitSummary, _ g: Glyphs) -> String {
    let unit = s.habit.fields.unit.map { " " + $0 } ?? ""
    let progress = Amount.format(s.progress), goal = Amount.format(s.habit.goal)
    return s.habit.kind == .build ? "\(progress)/\(goal)\(unit)" : "\(progress) \(g.atMost)\(goal)\(unit)"
}

func todayScreen(_ b: inout ScreenBuffer, _ state: AppState) {
    header(&b, state)
    let g = state.glyphs
    let top = 2, bottom = state.height - 4 // rows top...bottom
    let listHeight = bottom - top + 1
    if state.rows.isEmpty {
        let text = state.habits.habits.isEmpty
            ? "No habits yet. Press a to add your first one."
            : "Nothing is due on this day. v shows every habit."
        b.put(text, x: 3, y: top + 1, role: .dim)
        return
    }
    let wide = state.width >= 72
    let progressWidth = min(18, max(9, state.rows.map { TextWidth.of(progressText($0, state.glyphs)) }.max() ?? 9))
    // Column labels.
    let selected = state.selectedIndex ?? 0
    let first = max(0, min(selected - listHeight + 1, state.rows.count - listHeight))
    let shown = state.rows[first..<min(state.rows.count, first + listHeight)]
    for (i, s) in zip(shown.indices, shown) {
        let y = top + (i - first)
        let isSelected = i == selected
        var x = 0
        x += b.put(isSelected ? g.selected + " " : "  ", x: x, y: y, role: .accent)
        // A habit archived on this day (listed by v): a dim name and "archived" for its day.
        let archived = s.habit.fields.archivedFrom.map { $0 <= s.day } == true
        let (glyph, role) = archived ? (g.notYet, Role.dim) : dayGlyph(s, g)
        x += b.put(glyph, x: x, y: y, role: role, limit: 1)
        x += 1
        if g.showsIcons {
            b.put(s.habit.fields.icon ?? "", x: x + 1, y: y, role: .normal, limit: 2)
            x += 4
        }
        // Right part, from the right edge leftwards: sync, difficulty, strength, streak, progress.
        var rx = state.width - 2
        let (syncGlyph, syncRole) = syncIcon(s.habit.id, state)
        b.put(syncGlyph, x: rx, y: y, role: syncRole, limit: 1)
        rx -= 3
        let diff = s.difficulty.map { "d\($0)" } ?? "  "
        b.put(diff, x: rx, y: y, role: .dim)
        rx -= 1
        if wide {
            let barWidth = 5
            let filled = Int((s.strength * Double(barWidth)).rounded())
            let pct = "\(Int((s.strength * 100).rounded()))%"
            rx -= 10
            var bx = rx
            bx += b.put(String(repeating: g.barFull, count: filled), x: bx, y: y, role: .strength)
            bx += b.put(String(repeating: g.barEmpty, count: barWidth - filled), x: bx, y: y, role: .xpBarEmpty)
            b.put(" " + pct, x: bx, y: y, role: .strength)
        } else {
            rx -= 5
            b.put("\(Int((s.strength * 100).rounded()))%", x: rx, y: y, role: .strength)
        }
        rx -= 7
        let streak = "\(s.streak)\(s.streakUnit == "weeks" ? "w" : "d")"
        b.put(TextWidth.fit(streak, 5), x: rx + 1, y: y, role: s.streak > 0 ? .streak : .dim)
        rx -= progressWidth + 1
        b.put(archived ? "archived" : progressText(s, g), x: rx, y: y, role: role == .dim ? .dim : .normal,
              limit: progressWidth)
        let nameRole: Role = archived ? .dim : .normal
        b.put(s.habit.name, x: x, y: y, role: nameRole, limit: max(0, rx - 1 - x))
        if isSelected { b.paint(x: 2, y: y, count: state.width - 2, role: .selection) }
    }
    if state.rows.count > listHeight {
        b.put("\(first + 1)-\(first + shown.count) of \(state.rows.count)", x: state.width - 14, y: 1, role: .dim)
    }
}

// MARK: Catching up

/// "3 habits not recorded yesterday · c to catch up", or nil when nothing is missed.
func catchUpHint(_ missed: [CatchUpItem], today: LocalDay) -> String? {
    guard let first = missed.first else { return nil }
    let yesterday = today.adding(-1)
    if missed.allSatisfy({ $0.day == yesterday }) {
        return "\(missed.count) habit\(missed.count == 1 ? "" : "s") not recorded yesterday · c to catch up"
    }
    return "\(missed.count) habit-day\(missed.count == 1 ? "" : "s") not recorded since \(shortDate(first.day)) · c to catch up"
}

/// "Wed 18 Nov".
func shortDate(_ day: LocalDay) -> String {
    "\(weekdayNames[day.weekday.rawValue - 1]) \(day.components.day) \(monthNames[day.components.month - 1].prefix(3))"
}

func catchUpScreen(_ b: inout ScreenBuffer, _ state: AppState) {
    let g = state.glyphs
    let s = state.habits
    let items = state.catchUp
    var x = 1 + b.put("Habitto", x: 1, y: 0, role: .title)
    x += b.put(" \(g.separator) ", x: x, y: 0, role: .dim)
    let open = items.filter { s.progress($0.habit.id, $0.day) == 0 && !s.isSkipped($0.habit.id, $0.day) }.count
    b.put("catching up: \(open) of \(items.count) habit-days with nothing recorded", x: x, y: 0, role: .header)
    let top = 2, bottom = state.height - 4
    let listHeight = bottom - top + 1
    let selected = state.catchUpIndex
    let first = max(0, min(selected - listHeight + 1, items.count - listHeight))
    for i in first..<min(items.count, first + listHeight) {
        let item = items[i], y = top + (i - first)
        guard let habit = s.habit(item.habit.id) else { continue }
        let progress = habit.shown(progress: s.progress(habit.id, item.day))
        let skipped = s.isSkipped(habit.id, item.day)
        let completed = !skipped && habit.succeeds(progress: progress)
        var x = b.put(i == selected ? g.selected + " " : "  ", x: 0, y: y, role: .accent)
        x += b.put(TextWidth.fit(shortDate(item.day), 11), x: x, y: y, role: item.day == state.today ? .accent : .dim) + 1
        let (glyph, role) = dayGlyph(skipped: skipped, exceeded: false, completed: completed, progress: progress,
                                     kind: habit.kind, scheduled: true, g)
        x += b.put(glyph, x: x, y: y, role: role, limit: 1) + 1
        if g.showsIcons {
            b.put(habit.fields.icon ?? "", x: x + 1, y: y, role: .normal, limit: 2)
            x += 4
        }
        let unit = habit.fields.unit.map { " " + $0 } ?? ""
        let right = (skipped ? "skipped" : "\(Amount.format(progress))/\(Amount.format(habit.goal))\(unit)")
            + (s.difficulty(habit.id, item.day).map { "  d\($0)" } ?? "    ")
        let rw = min(24, TextWidth.of(right))
        b.put(right, x: state.width - 2 - rw, y: y, role: role == .dim ? .dim : .normal, limit: rw)
        b.put(habit.name, x: x, y: y, role: .normal, limit: max(0, state.width - 3 - rw - x))
        if i == selected { b.paint(x: 2, y: y, count: state.width - 2, role: .selection) }
    }
    if items.count > listHeight {
        b.put("\(first + 1)-\(min(items.count, first + listHeight)) of \(items.count)", x: state.width - 14, y: 1, role: .dim)
    }
}
