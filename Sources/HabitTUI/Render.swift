import Foundation
import HabitCore

/// The smallest screen the UI draws; below it, a "too small" notice.
public let minimumWidth = 40
public let minimumHeight = 10

/// The view: the whole screen as a function of the state. Colours are roles, so the theme
/// (applied by the terminal driver) never changes what is drawn, only how.
public func render(_ state: AppState) -> ScreenBuffer {
    var b = ScreenBuffer(width: state.width, height: state.height)
    guard state.width >= minimumWidth, state.height >= minimumHeight else {
        tooSmall(&b, state)
        return b
    }
    switch state.screen {
    case .today: todayScreen(&b, state)
    case .detail(let id): detailScreen(&b, state, id)
    case .week: weekScreen(&b, state)
    case .help: helpScreen(&b, state)
    case .sync: syncScreen(&b, state)
    case .catchUp: catchUpScreen(&b, state)
    }
    statusBar(&b, state)
    messageLine(&b, state)
    footer(&b, state)
    if case .form(let form) = state.overlay { formBox(&b, state, form) }
    return b
}

// MARK: Pieces

private func tooSmall(_ b: inout ScreenBuffer, _ state: AppState) {
    let x = state.glyphs.times
    let lines = ["Terminal too small", "need \(minimumWidth)\(x)\(minimumHeight), have \(state.width)\(x)\(state.height)", "q quits"]
    for (i, line) in lines.enumerated() {
        let y = max(0, state.height / 2 - 1) + i
        let w = TextWidth.of(line)
        b.put(line, x: max(0, (state.width - w) / 2), y: y, role: i == 0 ? .statusWarn : .dim)
    }
}

private let weekdayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
private let monthNames = ["January", "February", "March", "April", "May", "June", "July", "August",
                          "September", "October", "November", "December"]

private func dateTitle(_ date: LocalDay, today: LocalDay) -> (String, String?) {
    let c = date.components
    let text = "\(weekdayNames[date.weekday.rawValue - 1]) \(c.day) \(monthNames[c.month - 1].prefix(3)) \(c.year)"
    let back = date.days(to: today)
    switch back {
    case 0: return (text, nil)
    case 1: return (text, "yesterday")
    case 2...: return (text, "\(back) days ago")
    default: return (text, "in the future")
    }
}

private func header(_ b: inout ScreenBuffer, _ state: AppState) {
    var x = 1 + b.put("Habitto", x: 1, y: 0, role: .title)
    x += b.put(" \(state.glyphs.separator) ", x: x, y: 0, role: .dim)
    let (title, marker) = dateTitle(state.date, today: state.today)
    x += b.put(title, x: x, y: 0, role: .header)
    if let marker {
        // Clearly not today: an arrow back to it and how far back this is.
        x += b.put("  \(state.glyphs.showsIcons ? "◀" : "<") \(marker)", x: x, y: 0, role: .statusWarn)
    }
    // Level, XP bar into the next level, XP today, right-aligned.
    let level = state.stats.level
    let barWidth = state.width >= 70 ? 12 : 6
    let filled = level.xpForNextLevel > 0 ? min(barWidth, barWidth * level.xpIntoLevel / level.xpForNextLevel) : 0
    let left = "Lv \(level.level) "
    // Provisional XP (today's limit habits, settled when the day ends) in brackets.
    let provisional = state.stats.xpProvisional > 0 ? " (+\(state.stats.xpProvisional))" : ""
    var right = " \(level.xpIntoLevel)/\(level.xpForNextLevel) XP  +\(state.stats.xpToday) today\(provisional)"
    if state.width - 1 - (TextWidth.of(left) + barWidth + TextWidth.of(right)) <= x + 1 {
        right = " \(level.xpIntoLevel)/\(level.xpForNextLevel) XP  +\(state.stats.xpToday) today"
    }
    let total = TextWidth.of(left) + barWidth + TextWidth.of(right)
    var rx = state.width - 1 - total
    guard rx > x + 1 else {
        // Narrow: the level and XP without the bar, or just the level.
        for short in ["Lv \(level.level) \(level.xpIntoLevel)/\(level.xpForNextLevel) +\(state.stats.xpToday)", "Lv \(level.level)"] {
            let sx = state.width - 1 - TextWidth.of(short)
            if sx > x + 1 { b.put(short, x: sx, y: 0, role: .header); return }
        }
        return
    }
    rx += b.put(left, x: rx, y: 0, role: .header)
    rx += b.put(String(repeating: state.glyphs.barFull, count: filled), x: rx, y: 0, role: .xpBar)
    rx += b.put(String(repeating: state.glyphs.barEmpty, count: barWidth - filled), x: rx, y: 0, role: .xpBarEmpty)
    b.put(right, x: rx, y: 0, role: .header)
}

private func statusBar(_ b: inout ScreenBuffer, _ state: AppState) {
    let y = state.height - 2
    b.paint(x: 0, y: y, count: state.width, role: .footer)
    let g = state.glyphs
    var x = 1
    let (icon, label, role) = syncSummary(state)
    let doneCount = state.rows.filter { $0.scheduled && !$0.skipped && $0.completed && ($0.progress > 0 || $0.habit.kind == .limit) }.count
    let due = state.rows.filter { $0.scheduled && !$0.skipped }.count
    // The sync part has priority: the right part shortens, then goes, to make room for it.
    let syncWidth = TextWidth.of("\(icon) \(label)")
    var right = "\(doneCount)/\(due) done  \(g.separator)  theme \(state.themeName)"
    if syncWidth + TextWidth.of(right) + 4 > state.width - x { right = "\(doneCount)/\(due) done" }
    if syncWidth + TextWidth.of(right) + 4 > state.width - x && state.sync.lastError != nil { right = "" }
    let rightX = state.width - 1 - TextWidth.of(right)
    // The sync part first (an error in it is cut with … to the room there is).
    x += b.put(TextWidth.of("\(icon) \(label)") > rightX - x - 2 ? TextWidth.fit("\(icon) \(label)", max(0, rightX - x - 2)) : "\(icon) \(label)",
               x: x, y: y, role: role)
    b.put(right, x: max(x + 2, rightX), y: y, role: .footer)
    // Where the data lives (or goes), in the room left (cut with … when long).
    let room = rightX - x - 4
    let place = state.sync.remote ?? state.location
    if room >= 8 { b.put("  " + TextWidth.fit(place, room).trimmingCharacters(in: .whitespaces), x: x, y: y, role: .footer) }
}

/// "just now", "12s", "5m", "3h", "2d".
func span(_ seconds: Double) -> String {
    let s = max(0, Int(seconds.rounded()))
    if s < 60 { return "\(s)s" }
    if s < 3600 { return "\(s / 60)m" }
    if s < 86400 { return "\(s / 3600)h" }
    return "\(s / 86400)d"
}

/// The status bar's sync part: icon, words, role.
func syncSummary(_ state: AppState) -> (String, String, Role) {
    let g = state.glyphs, sync = state.sync
    var parts: [String] = []
    let icon: String, role: Role
    switch sync.mode {
    case "online": icon = g.syncSynced; role = .syncSynced; parts.append("online")
    case "offline": icon = g.syncPending; role = .statusWarn; parts.append("offline")
    case "unreachable":
        icon = g.syncFailed; role = .statusWarn; parts.append("unreachable")
        if let next = sync.nextRetryAt { parts.append("retry in \(span(next.timeIntervalSince(state.now)))") }
    case "failed": icon = g.syncFailed; role = .syncFailed; parts.append("sync failed")
    default: return (g.syncLocal, "local only", .syncLocal)
    }
    if sync.inFlight > 0 { parts.append("\(g.syncSyncing) syncing \(sync.inFlight)") }
    else if sync.pulling { parts.append("\(g.syncSyncing) pulling") }
    parts.append("queue \(sync.pending)")
    if let last = sync.lastSyncAt { parts.append("synced \(span(state.now.timeIntervalSince(last))) ago") }
    if let error = sync.lastError { parts.append(error) }
    else if !sync.remoteProblems.isEmpty { parts.append("remote entries skipped (y)") }
    return (icon, parts.joined(separator: " \(g.separator) "), role)
}

/// A habit's sync icon and role.
func syncIcon(_ id: HabitID, _ state: AppState) -> (String, Role) {
    let g = state.glyphs
    guard state.sync.remote != nil else { return (g.syncLocal, .syncLocal) }
    switch state.sync.habitStatus[id] {
    case "pending"?: return (g.syncPending, .syncPending)
    case "syncing"?: return (g.syncSyncing, .syncPending)
    case "failed"?: return (g.syncFailed, .syncFailed)
    default: return (g.syncSynced, .syncSynced)
    }
}

private func footer(_ b: inout ScreenBuffer, _ state: AppState) {
    let y = state.height - 1
    var entries = state.keyMap.footer(for: state.mode)
    // The last entries (help, quit) always stay: drop from the middle when it is too narrow.
    func width(_ e: [(key: String, label: String)]) -> Int { e.reduce(1) { $0 + TextWidth.of($1.key) + TextWidth.of($1.label) + 3 } }
    while entries.count > 2 && width(entries) > state.width { entries.remove(at: entries.count - 3) }
    var x = 1
    for (key, label) in entries {
        guard x + TextWidth.of(key) + TextWidth.of(label) + 1 <= state.width else { break }
        x += b.put(key, x: x, y: y, role: .key)
        x += b.put(" " + label + "  ", x: x, y: y, role: .footer)
    }
}

private func messageLine(_ b: inout ScreenBuffer, _ state: AppState) {
    let y = state.height - 3
    switch state.overlay {
    case .rating(let h, _)?:
        let name = state.habits.habit(h).map { Sanitize.display($0.name) } ?? "it"
        var x = 1 + b.put("How hard was \(name)? ", x: 1, y: y, role: .accent)
        for (key, label) in state.keyMap.footer(for: .rating) {
            x += b.put(key, x: x, y: y, role: .key)
            x += b.put(" \(label)  ", x: x, y: y, role: .normal)
        }
        return
    case .amount(let p)?:
        amountPrompt(&b, state, p, y: y)
        return
    case .confirmArchive(let h)?:
        let name = state.habits.habit(h).map { Sanitize.display($0.name) } ?? "it"
        b.put("Archive '\(name)'? Its history stays. y yes, n no", x: 1, y: y, role: .statusWarn)
        return
    case .confirmDelete(let h)?:
        let name = state.habits.habit(h).map { Sanitize.display($0.name) } ?? "it"
        b.put("Delete '\(name)' and all its history? Type y to delete (u undoes it), any other key keeps it", x: 1, y: y, role: .statusError)
        return
    default:
        break
    }
    guard let m = state.message else {
        if state.screen == .today, let hint = catchUpHint(state.missed, today: state.today) {
            b.put(hint, x: 1, y: y, role: .statusWarn, limit: state.width - 2)
        }
        return
    }
    let role: Role = m.kind == .error ? .statusError : m.kind == .warning ? .statusWarn : .statusOk
    let lines = messageLines(m.text, width: state.width - 2)
    for (i, line) in lines.enumerated() {
        let row = y - (lines.count - 1) + i
        b.put(String(repeating: " ", count: state.width), x: 0, y: row, role: .normal)
        b.put(line, x: 1, y: row, role: role, limit: state.width - 2)
    }
}

/// "Drink water: add  3_ glasses  3 adds · -2 takes back · =8 sets the day's total"
private func amountPrompt(_ b: inout ScreenBuffer, _ state: AppState, _ p: AmountPrompt, y: Int) {
    guard let habit = state.habits.habit(p.habit) else { return }
    let on = p.day == state.today ? "" : " on \(p.day)"
    var x = 1 + b.put("\(Sanitize.display(habit.name))\(on): add  ", x: 1, y: y, role: .accent, limit: state.width / 2)
    x += b.put(p.text + "_", x: x, y: y, role: .selection)
    if let unit = habit.fields.unit { x += b.put(" " + Sanitize.display(unit), x: x, y: y, role: .normal, limit: max(0, state.width - x - 1)) }
    let hint = p.error ?? "-2 takes back, =8 sets the total"
    b.put("  " + hint, x: x, y: y, role: p.error == nil ? .dim : .statusError, limit: max(0, state.width - x - 1))
}

/// A message cut into at most three lines at spaces (the last one ends with … if more
/// was left), so a long error keeps its point: what failed and what to do.
func messageLines(_ text: String, width: Int) -> [String] {
    guard width > 4, TextWidth.of(text) > width else { return [text] }
    var lines: [String] = [], current = ""
    for word in text.split(separator: " ", omittingEmptySubsequences: false).map(String.init) {
        let candidate = current.isEmpty ? word : current + " " + word
        if TextWidth.of(candidate) <= width || current.isEmpty {
            current = candidate
        } else {
            lines.append(current)
            current = word
        }
    }
    lines.append(current)
    if lines.count > 3 {
        lines = Array(lines.prefix(3))
        lines[2] = TextWidth.fit(lines[2] + " …", width).trimmingCharacters(in: .whitespaces)
    }
    return lines.map { TextWidth.of($0) > width ? TextWidth.fit($0, width) : $0 }
}

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

private func todayScreen(_ b: inout ScreenBuffer, _ state: AppState) {
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
        let (glyph, role) = dayGlyph(s, g)
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
        b.put(progressText(s, g), x: rx, y: y, role: role == .dim ? .dim : .normal, limit: progressWidth)
        let nameRole: Role = s.habit.fields.archivedFrom.map { $0 <= s.day } == true ? .dim : .normal
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
private func shortDate(_ day: LocalDay) -> String {
    "\(weekdayNames[day.weekday.rawValue - 1]) \(day.components.day) \(monthNames[day.components.month - 1].prefix(3))"
}

private func catchUpScreen(_ b: inout ScreenBuffer, _ state: AppState) {
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

// MARK: Detail

private func detailScreen(_ b: inout ScreenBuffer, _ state: AppState, _ id: HabitID) {
    guard let habit = state.habits.habit(id) else { return }
    let s = state.habits
    let g = state.glyphs
    let today = state.today
    var x = 1 + b.put("Habitto", x: 1, y: 0, role: .title)
    x += b.put(" \(g.separator) ", x: x, y: 0, role: .dim)
    let icon = g.showsIcons ? (habit.fields.icon.map { $0 + " " } ?? "") : ""
    b.put(icon + habit.name, x: x, y: 0, role: .header, limit: state.width - x - 1)
    let unit = habit.fields.unit.map { " " + $0 } ?? ""
    let goal = habit.kind == .build ? "at least \(Amount.format(habit.goal))\(unit) a day" : "at most \(Amount.format(habit.goal))\(unit) a day"
    var info = "\(habit.kind.rawValue), \(goal), \(habit.schedule), since \(habit.startDate)"
    if let from = habit.fields.archivedFrom { info += ", archived from \(from)" }
    b.put(info, x: 1, y: 1, role: .dim)
    // The calendar cursor's day: what it holds, and the keys edit it.
    let cursor = max(habit.startDate, min(today, state.cursorDay))
    b.put(dayDescription(habit, cursor, state, name: false), x: 1, y: 2, role: .accent, limit: state.width - 2)
    // Short screens leave the figures out so the calendar keeps its room.
    let bottom = state.height - 4
    let compact = bottom - 7 < 8
    var y = 3
    if !compact { detailFigures(&b, state, habit, &y) }
    // Heat map: month grids, as many as fit side by side (at least three months shown,
    // stacked when the screen is narrow and tall enough); the last one shown is today's
    // month, or the cursor's when it went further back.
    let history = s.history(habit, through: today, settings: state.settings)
    let byDay = Dictionary(uniqueKeysWithValues: history.map { ($0.day, $0) })
    let monthWidth = 23
    let perRow = max(1, (state.width - 1) / monthWidth)
    let rowsOfMonths = max(1, (bottom - y + 1) / 9)
    let shown = perRow * rowsOfMonths
    let todayIndex = today.components.year * 12 + today.components.month - 1
    let cursorIndex = cursor.components.year * 12 + cursor.components.month - 1
    let lastIndex = min(todayIndex, cursorIndex + shown - 1)
    for i in 0..<shown {
        let index = lastIndex - shown + 1 + i
        let mx = 1 + (i % perRow) * monthWidth
        let my = y + (i / perRow) * 9
        guard my + 1 <= bottom else { break }
        monthGrid(&b, x: mx, y: my, year: index / 12, month: index % 12 + 1, bottom: bottom, habit: habit, byDay: byDay,
                  today: today, cursor: cursor, glyphs: g)
    }
}

/// The detail screen's figures: streak, strength and its trend, done rates, difficulty, notes.
private func detailFigures(_ b: inout ScreenBuffer, _ state: AppState, _ habit: Habit, _ y: inout Int) {
    let s = state.habits
    let g = state.glyphs
    let today = state.today
    let summary = s.summary(habit, on: today, today: today, settings: state.settings)
    let now = summary.strength
    let before = s.strength(habit, asOf: today.adding(-30))
    let delta = Int(((now - before) * 100).rounded())
    let trend = delta > 0 ? "up \(delta)%" : delta < 0 ? "down \(-delta)%" : "steady"
    var lx = 1
    lx += b.put("Streak ", x: lx, y: y, role: .normal)
    let streakUnit = summary.streak == 1 ? String(summary.streakUnit.dropLast()) : summary.streakUnit
    lx += b.put("\(summary.streak) \(streakUnit)", x: lx, y: y, role: .streak)
    lx += b.put("  best \(summary.bestStreak)  \(g.separator)  strength ", x: lx, y: y, role: .normal)
    lx += b.put("\(Int((now * 100).rounded()))%", x: lx, y: y, role: .strength)
    b.put("  (\(trend) over 30 days)", x: lx, y: y, role: .dim)
    y += 1
    let history = s.history(habit, through: today, settings: state.settings)
    func rate(_ days: Int) -> String {
        let window = history.suffix(days).filter { $0.scheduled && !$0.skipped && $0.day <= today }
        guard !window.isEmpty else { return "–" }
        let done = window.filter { $0.completed && ($0.progress > 0 || habit.kind == .limit) }.count
        return "\(Int((Double(done) * 100 / Double(window.count)).rounded()))%"
    }
    b.put("Done on due days: 7 days \(rate(7))  \(g.separator)  30 days \(rate(30))  \(g.separator)  365 days \(rate(365))", x: 1, y: y, role: .normal)
    y += 1
    func avg(_ v: Double?) -> String { v.map { String(format: "%.1f", $0) } ?? "–" }
    let a7 = s.difficultyAverage(habit, asOf: today, count: 7), a30 = s.difficultyAverage(habit, asOf: today, count: 30)
    b.put("Difficulty (1 very easy … 5 very hard): last 7 rated days \(avg(a7))  \(g.separator)  last 30 \(avg(a30))", x: 1, y: y, role: .normal)
    y += 1
    if let notes = habit.fields.notes {
        b.put("Notes: " + notes.replacingOccurrences(of: "\n", with: " / "), x: 1, y: y, role: .dim, limit: state.width - 2)
        y += 1
    }
    y += 1
}

private func monthGrid(_ b: inout ScreenBuffer, x: Int, y: Int, year: Int, month: Int, bottom: Int, habit: Habit,
                       byDay: [LocalDay: DaySummary], today: LocalDay, cursor: LocalDay, glyphs g: Glyphs) {
    b.put("\(monthNames[month - 1]) \(year)", x: x, y: y, role: .header)
    b.put("Mo Tu We Th Fr Sa Su", x: x, y: y + 1, role: .dim)
    guard let first = LocalDay(year: year, month: month, day: 1) else { return }
    var day = first
    var row = y + 2
    // When the month does not fit, its first weeks give way to the cursor's week.
    if cursor.components.month == month && cursor.components.year == year {
        let cursorRow = (first.weekday.rawValue - 1 + cursor.components.day - 1) / 7
        row -= max(0, cursorRow - (bottom - (y + 2)))
    }
    let levels: [Role] = [.heat0, .heat1, .heat2, .heat3, .heat4]
    let shades = g.showsIcons ? ["·", "░", "▒", "▓", "█"] : [".", "-", "o", "O", "#"]
    while day.components.month == month {
        let col = day.weekday.rawValue - 1
        guard row <= bottom else { return }
        let cellX = x + col * 3
        if row < y + 2 {
            // A week scrolled away to show the cursor's.
        } else if day > today || day < habit.startDate {
            b.put(" ", x: cellX, y: row, role: .dim)
        } else if let d = byDay[day] {
            let level: Int
            if d.skipped { level = -1 }
            else if habit.kind == .limit { level = d.exceeded ? 0 : 4 }
            else { level = d.progress == 0 ? 0 : min(4, max(1, (4 * d.progress + habit.goal - 1) / max(1, habit.goal))) }
            if level < 0 {
                b.put(g.skipped, x: cellX, y: row, role: .skipped)
            } else {
                b.put(shades[level] + shades[level], x: cellX, y: row, role: levels[level])
            }
        } else {
            b.put(" ", x: cellX, y: row, role: .dim)
        }
        if day == cursor && row >= y + 2 {
            b.put("[", x: cellX - 1, y: row, role: .accent)
            b.put("]", x: cellX + 2, y: row, role: .accent)
            b.paint(x: cellX, y: row, count: 2, role: .selection)
        }
        if col == 6 { row += 1 }
        day = day.adding(1)
    }
}

// MARK: Week

private func weekScreen(_ b: inout ScreenBuffer, _ state: AppState) {
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
        b.put(selected ? g.selected : " ", x: 0, y: y, role: .accent)
        b.put(habit.name, x: 1, y: y, role: selected ? .header : .normal, limit: gridX - 2)
        let history = state.habits.history(habit, through: min(end, state.today), settings: state.settings)
        let byDay = Dictionary(uniqueKeysWithValues: history.suffix(days.count).map { ($0.day, $0) })
        for (i, d) in days.enumerated() {
            if selected && d == state.cursorDay {
                b.put("[", x: gridX + i * 3 - 1, y: y, role: .accent)
                b.put("]", x: gridX + i * 3 + 1, y: y, role: .accent)
            }
            guard let s = byDay[d] else { continue }
            let (glyph, role) = dayGlyph(skipped: s.skipped, exceeded: s.exceeded, completed: s.completed,
                                         progress: s.progress, kind: habit.kind, scheduled: s.scheduled, g)
            b.put(s.scheduled || s.progress > 0 || s.skipped ? glyph : g.unscheduled, x: gridX + i * 3, y: y,
                  role: role)
        }
    }
    if habits.count > visible {
        b.put("\(first + 1)-\(first + min(visible, habits.count - first)) of \(habits.count)", x: 1, y: 1, role: .dim)
    }
    if habits.isEmpty {
        b.put("No habits yet.", x: 3, y: 5, role: .dim)
    } else if let id = state.cursorHabit, let habit = state.habits.habit(id) {
        b.put(dayDescription(habit, state.cursorDay, state), x: 1, y: bottom + 1, role: .normal, limit: state.width - 2)
    }
}

/// "Drink water · Thu 19 Nov 2026: 5/8 glasses · difficulty 3 · “note”": what a day of a
/// habit holds, for the week grid's and the calendar's cursor.
func dayDescription(_ habit: Habit, _ day: LocalDay, _ state: AppState, name: Bool = true) -> String {
    let s = state.habits.summary(habit, on: day, today: state.today, settings: state.settings)
    var parts: [String] = []
    let title = dateTitle(day, today: state.today).0
    parts.append(name ? "\(Sanitize.display(habit.name)) \(state.glyphs.separator) \(title)" : title)
    let unit = habit.fields.unit.map { " " + Sanitize.display($0) } ?? ""
    var what = habit.kind == .build ? "\(Amount.format(s.progress))/\(Amount.format(habit.goal))\(unit)"
                                    : "\(Amount.format(s.progress)) (at most \(Amount.format(habit.goal)))\(unit)"
    if s.skipped { what += ", skipped" }
    if day < habit.startDate { what = "before it starts (\(habit.startDate))" }
    var line = parts.joined() + ": " + what
    if let d = s.difficulty { line += " \(state.glyphs.separator) difficulty \(d)" }
    if let note = state.habits.note(habit.id, day) {
        line += " \(state.glyphs.separator) " + Sanitize.display(note).replacingOccurrences(of: "\n", with: " / ")
    }
    return line
}

// MARK: Help

/// The help text as lines: each mode's title, its bindings, a blank line.
func helpLines(_ map: KeyMap) -> [(text: String, label: String, isTitle: Bool)] {
    var lines: [(String, String, Bool)] = []
    for mode in Mode.allCases {
        let bindings = map.bindings(in: mode)
        guard !bindings.isEmpty else { continue }
        lines.append((modeTitle(mode), "", true))
        for b in bindings { lines.append((b.keys.map(\.description).joined(separator: " "), b.label, false)) }
        lines.append(("", "", false))
    }
    return lines
}

/// How the help screen is laid out: columns of `rows` lines, `columns` of them per page.
func helpLayout(_ state: AppState) -> (rows: Int, columns: Int, pages: Int) {
    let rows = max(1, state.height - 4 - 2 + 1)
    let columns = max(1, (state.width - 1) / 38)
    let total = helpLines(state.keyMap).count
    let pages = max(1, (total + rows * columns - 1) / (rows * columns))
    return (rows, columns, pages)
}

private func helpScreen(_ b: inout ScreenBuffer, _ state: AppState) {
    let layout = helpLayout(state)
    let page = min(state.helpPage, layout.pages - 1)
    b.put("Habitto", x: 1, y: 0, role: .title)
    var title = " · keys (set your own in the keys file of the config directory)"
    if layout.pages > 1 { title += "  page \(page + 1)/\(layout.pages), j/k turns" }
    b.put(title, x: 8, y: 0, role: .dim)
    let lines = helpLines(state.keyMap)
    let perPage = layout.rows * layout.columns
    for (n, line) in lines.dropFirst(page * perPage).prefix(perPage).enumerated() {
        let x = 1 + (n / layout.rows) * 38
        let y = 2 + n % layout.rows
        if line.isTitle {
            b.put(line.text, x: x, y: y, role: .header)
        } else {
            b.put(line.text, x: x + 1, y: y, role: .key, limit: 13)
            b.put(line.label, x: x + 15, y: y, role: .normal, limit: 22)
        }
    }
}

private func syncScreen(_ b: inout ScreenBuffer, _ state: AppState) {
    let sync = state.sync
    var x = 1 + b.put("Habitto", x: 1, y: 0, role: .title)
    x += b.put(" \(state.glyphs.separator) ", x: x, y: 0, role: .dim)
    b.put("sync", x: x, y: 0, role: .header)
    let bottom = state.height - 4
    var y = 2
    func line(_ text: String, _ role: Role = .normal, indent: Int = 1) {
        guard y <= bottom else { return }
        b.put(text, x: indent, y: y, role: role, limit: state.width - indent - 1)
        y += 1
    }
    guard let remote = sync.remote else {
        line("No remote: data stays on this machine.")
        line("Connect one from a shell: habitto remote set dir:/path/to/shared/folder", .dim)
        return
    }
    let (icon, label, role) = syncSummary(state)
    line("\(icon) \(label)", role)
    line("Remote: \(remote)", .dim)
    if let e = sync.lastError { line("Last error: \(e)", .statusError) }
    if sync.attempts > 0 { line("Failed attempts in a row: \(sync.attempts)", .statusWarn) }
    if !sync.remoteProblems.isEmpty {
        // What the last pull skipped on the remote, listed once (the rest of the screen keeps room).
        line("Skipped on the remote (remove or fix these there):", .statusWarn)
        let room = max(1, (bottom - y) / 3)
        for p in sync.remoteProblems.prefix(room) { line(p, .statusWarn, indent: 3) }
        if sync.remoteProblems.count > room { line("… and \(sync.remoteProblems.count - room) more: habitto status lists them all", .dim, indent: 3) }
    }
    y += 1
    line("Queue (\(sync.pending) waiting, oldest first)", .header)
    if sync.queue.isEmpty && sync.pending == 0 { line("empty: everything made here is on the remote", .dim, indent: 3) }
    for item in sync.queue.prefix(max(1, (bottom - y) / 2)) {
        // Attempts and the last error are per batch, so they are the same for every item.
        let tried = sync.attempts > 0 ? "  tried \(sync.attempts)×, \(sync.lastError ?? "failed")" : ""
        line("\(TextWidth.fit(item.habit, 24)) \(TextWidth.fit(item.kind, 12)) \(TextWidth.fit(span(state.now.timeIntervalSince(item.madeAt)) + " old", 8))\(tried)",
             sync.attempts > 0 ? .statusWarn : .normal, indent: 3)
    }
    if sync.pending > sync.queue.count { line("… and \(sync.pending - sync.queue.count) more", .dim, indent: 3) }
    y += 1
    line("Recent attempts", .header)
    for a in sync.history.suffix(4).reversed() {
        let result = a.error.map { "failed: \($0)" } ?? "ok, sent \(a.pushed), received \(a.pulled)"
        line("\(span(state.now.timeIntervalSince(a.at))) ago  \(result)", a.error == nil ? .normal : .statusWarn, indent: 3)
    }
    y += 1
    line("Devices seen", .header)
    if sync.devices.isEmpty { line("none yet", .dim, indent: 3) }
    for d in sync.devices {
        let skew = d.aheadSeconds.map { "  clock \(span($0)) ahead" } ?? ""
        line("\(d.id.prefix(8))  last seen \(span(state.now.timeIntervalSince(d.lastSeen))) ago\(skew)", d.aheadSeconds == nil ? .normal : .statusWarn, indent: 3)
    }
}

private func modeTitle(_ mode: Mode) -> String {
    switch mode {
    case .sync: "Sync screen"
    case .today: "Today"
    case .detail: "Habit details"
    case .week: "Week overview"
    case .help: "Help"
    case .rating: "How hard was it?"
    case .form: "Add / edit form"
    case .confirm: "Questions"
    case .amount: "Amount prompt"
    case .catchUp: "Catching up"
    }
}

// MARK: Form

private func formBox(_ b: inout ScreenBuffer, _ state: AppState, _ form: HabitForm) {
    let fields = HabitForm.Field.allCases
    let w = min(state.width - 2, 76)
    let h = min(state.height - 2, fields.count * 2 + 4)
    let x0 = (state.width - w) / 2, y0 = max(0, (state.height - h) / 2 - 1)
    for y in y0..<(y0 + h) {
        b.put(String(repeating: " ", count: w), x: x0, y: y, role: .normal)
    }
    let border = state.glyphs.showsIcons ? ("┌", "┐", "└", "┘", "─", "│") : ("+", "+", "+", "+", "-", "|")
    b.put(border.0 + String(repeating: border.4, count: w - 2) + border.1, x: x0, y: y0, role: .accent)
    b.put(border.2 + String(repeating: border.4, count: w - 2) + border.3, x: x0, y: y0 + h - 1, role: .accent)
    for y in (y0 + 1)..<(y0 + h - 1) {
        b.put(border.5, x: x0, y: y, role: .accent)
        b.put(border.5, x: x0 + w - 1, y: y, role: .accent)
    }
    b.put(form.editing == nil ? " New habit " : " Edit habit ", x: x0 + 2, y: y0, role: .title)
    let compact = h < fields.count * 2 + 4
    var y = y0 + 1
    for field in fields {
        guard y < y0 + h - 2 else { break }
        let focused = field == form.focus
        let label = TextWidth.fit(form.label(field), 15)
        b.put(focused ? state.glyphs.selected : " ", x: x0 + 1, y: y, role: .accent)
        b.put(label, x: x0 + 3, y: y, role: focused ? .header : .dim)
        let value = form.text(field) + (focused && field != .kind ? "_" : "")
        b.put(value, x: x0 + 19, y: y, role: focused ? .selection : .normal, limit: w - 21)
        let problem = form.problem(field, in: state.habits)
        let note = problem ?? (focused ? field.hint : "")
        if !compact {
            y += 1
            b.put(note, x: x0 + 19, y: y, role: problem == nil ? .dim : .statusError, limit: w - 21)
        } else if let problem {
            b.put(" " + problem, x: x0 + 19 + TextWidth.of(value), y: y, role: .statusError,
                  limit: max(0, w - 21 - TextWidth.of(value)))
        }
        y += 1
    }
    if let error = form.formError {
        b.put(error, x: x0 + 2, y: y0 + h - 2, role: .statusError, limit: w - 4)
    } else {
        b.put("enter saves · tab next field · esc cancels", x: x0 + 2, y: y0 + h - 2, role: .dim, limit: w - 4)
    }
}
