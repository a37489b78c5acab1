import FoundationEssentials
import HabitCore

// MARK: Detail

func detailScreen(_ b: inout ScreenBuffer, _ state: AppState, _ id: HabitID) {
    guard let habit = state.habits.habit(id) else { return }
    if state.detailPage != .calendar { return detailChartPage(&b, state, habit) }
    let s = state.habits
    let g = state.glyphs
    let today = state.today
    let unit = habit.fields.unit.map { " " + $0 } ?? ""
    let goal = habit.kind == .build ? "at least \(Amount.format(habit.goal))\(unit) a day" : "at most \(Amount.format(habit.goal))\(unit) a day"
    var info = "\(habit.kind.rawValue), \(goal), \(habit.schedule), since \(habit.startDate)"
    if let from = habit.fields.archivedFrom { info += ", archived from \(from)" }
    // Goal, unit, kind and schedule as they are since a change (the cursor's day says its own).
    if habit.hasHistory { info += ", so since \(habit.currentFrom)" }
    let icon = g.showsIcons ? (habit.fields.icon.map { $0 + " " } ?? "") : ""
    // The calendar cursor's day: what it holds, and the keys edit it.
    let cursor = max(habit.startDate, min(today, state.cursorDay))
    let history = s.history(habit, through: today, settings: state.settings)
    let byDay = Dictionary(uniqueKeysWithValues: history.map { ($0.day, $0) })
    let bottom = state.height - 4
    let width = state.width - 2
    // The cursor's month, whole: its title, the weekday names and its weeks.
    let weeks = monthWeeks(year: cursor.components.year, month: cursor.components.month)
    let dayLines = flow([[Run(dayDescription(habit, cursor, state, name: false), .accent)]], width: width)
    if 1 + dayLines.count + 2 + weeks > bottom + 1 {
        return detailBesideMonth(&b, state, habit, cursor: cursor, byDay: byDay, icon: icon, info: info)
    }
    var x = 1 + b.put("Habitto", x: 1, y: 0, role: .title)
    x += b.put(" \(g.separator) ", x: x, y: 0, role: .dim)
    // The page (the calendar, 1 of the pages tab goes through) at the right when it fits.
    let page = "Calendar 1/\(DetailPage.allCases.count)  tab charts"
    let nameRoom = state.width - x - 1
    let title = icon + state.label(habit)
    let withPage = TextWidth.of(title) + 2 + TextWidth.of(page) <= nameRoom
    b.put(icon + state.label(habit, width: nameRoom - TextWidth.of(icon)), x: x, y: 0, role: .header)
    if withPage { b.put(page, x: state.width - 1 - TextWidth.of(page), y: 0, role: .dim) }
    // The room over the calendar: the cursor's day first, then the habit's description, then
    // the figures (which give way first), then a blank line.
    var room = bottom + 1 - 1 - (2 + weeks)
    let day = Array(dayLines.prefix(room))
    room -= day.count
    let infoLines = flow(infoPhrases(info), width: width)
    let about = infoLines.count <= room ? infoLines : []
    room -= about.count
    let figures = Array(detailFigures(state, habit).flatMap { flow($0, width: width) }.prefix(max(0, room)))
    room -= figures.count
    var y = 1
    for line in about + day + figures { put(&b, line, x: 1, y: y); y += 1 }
    if room > 0 { y += 1 }
    heatMap(&b, state, habit, y: y, cursor: cursor, byDay: byDay)
}

/// The detail calendar on a screen too short to stack text over a month: the cursor's
/// month at the left from the top row, the name, the month, the day and the description
/// beside it.
private func detailBesideMonth(_ b: inout ScreenBuffer, _ state: AppState, _ habit: Habit, cursor: LocalDay,
                               byDay: [LocalDay: DaySummary], icon: String, info: String) {
    let bottom = state.height - 4
    monthGrid(&b, x: 1, y: -1, year: cursor.components.year, month: cursor.components.month, bottom: bottom,
              habit: habit, byDay: byDay, today: state.today, cursor: cursor, glyphs: state.glyphs,
              paused: { state.habits.isPaused(habit.id, $0) })
    let side = 24, sideWidth = state.width - side - 1
    var y = 0
    let lines = [[Run(icon + state.label(habit, width: sideWidth - TextWidth.of(icon)), .header)],
                 [Run("\(monthNames[cursor.components.month - 1]) \(cursor.components.year)", .title)]]
        + flow([[Run(dayDescription(habit, cursor, state, name: false, width: sideWidth), .accent)]], width: sideWidth)
    let about = flow(infoPhrases(info), width: sideWidth)
    for line in lines + (lines.count + about.count <= bottom + 1 ? about : []) where y <= bottom {
        put(&b, line, x: side, y: y); y += 1
    }
}

/// The heat map from row `y`: month grids, as many as fit side by side (stacked when the
/// screen is tall enough); the last one shown is today's month, or the cursor's when it
/// went further back. The habit's day notes go under it.
private func heatMap(_ b: inout ScreenBuffer, _ state: AppState, _ habit: Habit, y: Int, cursor: LocalDay,
                     byDay: [LocalDay: DaySummary]) {
    let g = state.glyphs
    let today = state.today
    let bottom = state.height - 4
    let monthWidth = 23
    let perRow = max(1, (state.width - 1) / monthWidth)
    var rowsOfMonths = max(1, (bottom - y + 1) / 9)
    // The day notes go under the heat map: a row of months gives way when they would
    // have fewer than three lines.
    let notes = dayNotes(habit, state)
    if !notes.isEmpty, rowsOfMonths > 1, bottom - (y + rowsOfMonths * 9) + 1 < 3 { rowsOfMonths -= 1 }
    // No more months than the habit has (from its start month through today's).
    let todayIndex = today.components.year * 12 + today.components.month - 1
    let startIndex = habit.startDate.components.year * 12 + habit.startDate.components.month - 1
    let shown = max(1, min(perRow * rowsOfMonths, todayIndex - startIndex + 1))
    let notesY = y + (shown + perRow - 1) / perRow * 9
    let gridBottom = notes.isEmpty || notesY > bottom - 1 ? bottom : notesY - 2
    let cursorIndex = cursor.components.year * 12 + cursor.components.month - 1
    let lastIndex = min(todayIndex, cursorIndex + shown - 1)
    for i in 0..<shown {
        let index = lastIndex - shown + 1 + i
        let mx = 1 + (i % perRow) * monthWidth
        let my = y + (i / perRow) * 9
        guard my + 1 <= gridBottom else { break }
        monthGrid(&b, x: mx, y: my, year: index / 12, month: index % 12 + 1, bottom: gridBottom, habit: habit, byDay: byDay,
                  today: today, cursor: cursor, glyphs: g, paused: { state.habits.isPaused(habit.id, $0) })
    }
    // The legend on the line after the last row of months (blank otherwise), when it is on screen.
    // "paused" only when the habit has a paused day (most have none).
    let paused = byDay.values.contains { $0.paused } || Pauses.next(habit, from: today, in: state.habits) != nil
    if notesY - 1 <= bottom { b.put(calendarLegend(g, width: state.width - 2, paused: paused), x: 1, y: notesY - 1, role: .dim) }
    if !notes.isEmpty, notesY <= bottom - 1 { notesList(&b, state, notes, y: notesY, bottom: bottom) }
}

/// A habit's day notes, newest first.
func dayNotes(_ habit: Habit, _ state: AppState) -> [(day: LocalDay, note: String)] {
    (state.habits.entries[habit.id]?.days ?? [:]).compactMap { day, rec in rec.note.map { (day, $0) } }
        .sorted { $0.day > $1.day }
}

/// "Notes (newest first)" and one line a note, as many as fit: the date, then the note on
/// one line (`oneLine`), cut with `…` at the screen's edge.
func notesList(_ b: inout ScreenBuffer, _ state: AppState, _ notes: [(day: LocalDay, note: String)], y: Int, bottom: Int) {
    let room = bottom - y
    let more = notes.count > room ? " (\(room) of \(notes.count) shown)" : ""
    b.put("Day notes, newest first" + more, x: 1, y: y, role: .header, limit: state.width - 2)
    for (i, item) in notes.prefix(room).enumerated() {
        let x = 1 + b.put(item.day.description + "  ", x: 1, y: y + 1 + i, role: .dim)
        b.put(TextWidth.fit(oneLine(item.note), state.width - 1 - x), x: x, y: y + 1 + i, role: .normal)
    }
}

/// The description's phrases ("build", "at least 8 glasses a day", …), kept whole when wrapped.
private func infoPhrases(_ info: String) -> [[Run]] {
    let parts = info.components(separatedBy: ", ")
    return parts.enumerated().map { i, part in [Run((i > 0 ? " " : "") + part + (i < parts.count - 1 ? "," : ""), .dim)] }
}

/// A calendar day with nothing that counts drawn as the graph draws it: a day answered not
/// done (the today row's ⊘), a miss (×), a day
/// not due (·), a limit habit's day over its limit (the today row's ✗); today while still
/// open is blank, as the days after it are. Nil for a day the heat map's lowest shade stands
/// for (an N-per-week habit's open day, which the graph draws as not due too).
func calendarMark(_ d: DaySummary, today: LocalDay, glyphs g: Glyphs) -> (String, Role)? {
    let states = ChartGlyphs.of(ascii: g == .ascii).states
    if d.exceeded { return (g.exceeded, .exceeded) }
    if d.notDone && !d.completed { return (g.notDone, .missed) }
    if d.missed { return (states[.missed] ?? "x", .missed) }
    if d.day == today && d.scheduled && !d.completed { return (" ", .dim) }
    if !d.scheduled && !d.completed { return (states[.notDue] ?? ".", .dim) }
    return nil
}

/// A day's mark in the heat map, one cell (the calendar draws it twice where `twice`): a
/// shade of how much of the goal the day holds (a limit habit's day within its limit is the
/// fullest), the skip mark, or for a day with nothing that counts `calendarMark`'s; blank
/// before the habit's start, after today and for a day without a summary. A paused day has
/// its own mark, also a day to come that is paused already (`pausedAhead`). The today
/// screen's recent days draw the same marks.
func heatMark(_ habit: Habit, _ day: LocalDay, _ d: DaySummary?, today: LocalDay, glyphs g: Glyphs, pausedAhead: Bool = false)
    -> (text: String, role: Role, color: ThemeColor?, twice: Bool) {
    if day >= habit.startDate, d?.paused ?? (pausedAhead && day > today) { return (g.paused, .skipped, nil, true) }
    guard day <= today, day >= habit.startDate, let d else { return (" ", .dim, nil, false) }
    if d.skipped { return (g.skipped, .skipped, nil, false) }
    let level = habit.kind == .limit ? (d.exceeded ? 0 : 4)
        : d.progress == 0 ? 0 : min(4, max(1, (4 * d.progress + habit.goal - 1) / max(1, habit.goal)))
    if level == 0, let (mark, role) = calendarMark(d, today: today, glyphs: g) { return (mark, role, nil, true) }
    let levels: [Role] = [.heat0, .heat1, .heat2, .heat3, .heat4]
    return (g.heat[level], levels[level], ThemeColor(habitColor: habit.fields.color), true)
}

/// The calendar's legend, one line of `width` columns at most (its items as fit).
func calendarLegend(_ g: Glyphs, width: Int, paused: Bool = false) -> String {
    let states = ChartGlyphs.of(ascii: g == .ascii).states
    var items = [(g.heat[4] + g.heat[4], "done"), (g.heat[2] + g.heat[2], "partly"), ((states[.missed] ?? "x") + (states[.missed] ?? "x"), "missed"),
                 ((states[.notDue] ?? ".") + (states[.notDue] ?? "."), "not due"), (g.exceeded + g.exceeded, "over the limit"),
                 (g.skipped, "skipped"), (g.notDone + g.notDone, "answered not done")]
    // "paused" only for a habit with a paused day, and then after "not due": the line holds
    // what fits, in order, and such a habit's pauses matter more than its limit.
    if paused { items.insert((g.paused + g.paused, "paused"), at: 4) }
    return TextChart.legendLines(items.map { "\($0.0) \($0.1)" }, width: width, maxLines: 1).first ?? ""
}

/// The number of week rows a month's calendar takes.
func monthWeeks(year: Int, month: Int) -> Int {
    guard let first = LocalDay(year: year, month: month, day: 1) else { return 6 }
    let days = first.days(to: first.addingMonths(1))
    return (first.weekday.rawValue - 1 + days + 6) / 7
}

/// The detail screen's figures: streak, strength and its trend, done rates, difficulty,
/// reminder times, notes; each a list of phrases that are wrapped whole.
func detailFigures(_ state: AppState, _ habit: Habit) -> [[[Run]]] {
    let s = state.habits
    let g = state.glyphs
    let today = state.today
    let dot = "  \(g.separator)  "
    let summary = s.summary(habit, on: today, today: today, settings: state.settings)
    let now = summary.strength
    let before = s.strength(habit, asOf: today.adding(-30))
    let delta = Int(((now - before) * 100).rounded())
    let trend = delta > 0 ? "up \(delta)%" : delta < 0 ? "down \(-delta)%" : "steady"
    var out: [[[Run]]] = [[
        [Run("Streak ", .normal), Run(summary.line.streakText, .streak), Run("  best \(summary.bestStreak)", .normal)],
        [Run(dot + "strength ", .normal), Run("\(Int((now * 100).rounded()))%", .strength)],
        [Run("  (\(trend) over 30 days)", .dim)],
    ]]
    let history = s.history(habit, through: today, settings: state.settings)
    func rate(_ days: Int) -> String {
        let window = history.suffix(days).filter { $0.scheduled && !$0.skipped && $0.day <= today }
        guard !window.isEmpty else { return "–" }
        let done = window.filter { $0.completed && ($0.progress > 0 || habit.kind == .limit) }.count
        return "\(Int((Double(done) * 100 / Double(window.count)).rounded()))%"
    }
    out.append([[Run("Done on due days: 7 days \(rate(7))", .normal)], [Run(dot + "30 days \(rate(30))", .normal)],
                [Run(dot + "365 days \(rate(365))", .normal)]])
    func avg(_ v: Double?) -> String { v.map { Format.fixed($0, places: 1) } ?? "–" }
    let a7 = s.difficultyAverage(habit, asOf: today, count: 7), a30 = s.difficultyAverage(habit, asOf: today, count: 30)
    out.append([[Run("Difficulty", .normal)], [Run(" (1 very easy … 5 very hard):", .normal)],
                [Run(" last 7 rated days \(avg(a7))", .normal)],
                [Run(dot + "last 30 \(avg(a30))", .normal)]])
    if !habit.fields.reminders.isEmpty {
        out.append([[Run("Reminders: " + habit.fields.reminders.map(\.description).joined(separator: ", "), .dim)],
                    [Run(" (habitto remind)", .dim)]])
    }
    if let notes = habit.fields.notes {
        out.append([[Run("Notes: " + oneLine(notes), .dim)]])
    }
    return out
}

func monthGrid(_ b: inout ScreenBuffer, x: Int, y: Int, year: Int, month: Int, bottom: Int, habit: Habit,
                       byDay: [LocalDay: DaySummary], today: LocalDay, cursor: LocalDay, glyphs g: Glyphs,
                       paused: (LocalDay) -> Bool) {
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
    while day.components.month == month {
        let col = day.weekday.rawValue - 1
        guard row <= bottom else { return }
        let cellX = x + col * 3
        if row >= y + 2 { // (else a week scrolled away to show the cursor's)
            let mark = heatMark(habit, day, byDay[day], today: today, glyphs: g, pausedAhead: day > today && paused(day))
            b.put(mark.twice ? mark.text + mark.text : mark.text, x: cellX, y: row, role: mark.role, color: mark.color)
            if day <= today, day >= habit.startDate { b.region(.calendarDay(day), x: cellX - 1, y: row, width: 3) }
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
