import FoundationEssentials
import HabitCore

// MARK: Today

/// The glyph and role of a habit's day on the today screen. An N-per-week habit's open day
/// is neutral (dim): it is not a miss (see `DaySummary.missed`).
func dayGlyph(_ s: HabitSummary, _ g: Glyphs) -> (String, Role) {
    dayGlyph(skipped: s.skipped, exceeded: s.exceeded, completed: s.completed, progress: s.progress,
             kind: s.habit.kind, scheduled: s.scheduled && !s.habit.schedule.isQuota, notDone: s.notDone, paused: s.paused, g)
}

/// The glyph and role of a habit's day; `scheduled` draws an open day in the missed role; a
/// day answered not done (`notDone`) has its own mark, in the missed role; a paused day
/// (`paused`, also skipped) has its own, in the skipped role.
func dayGlyph(skipped: Bool, exceeded: Bool, completed: Bool, progress: Int, kind: HabitKind, scheduled: Bool,
              notDone: Bool = false, paused: Bool = false, _ g: Glyphs) -> (String, Role) {
    if paused { return (g.paused, .skipped) }
    if skipped { return (g.skipped, .skipped) }
    if exceeded { return (g.exceeded, .exceeded) }
    if completed && (progress > 0 || kind == .limit) { return (g.done, .done) }
    if progress > 0 { return (g.partial, .partial) }
    if notDone { return (g.notDone, .missed) }
    return (g.notYet, scheduled ? .missed : .dim)
}

/// A row's progress: `5/8 glasses`, `0 ≤0` for a limit habit, `1/3 this wk` (the week's
/// successes over what it asks for) for an N-per-week habit; without the unit (`5/8`,
/// `1/3 wk`) when the row has no room for it.
func progressText(_ s: HabitSummary, _ g: Glyphs, unit withUnit: Bool = true) -> String {
    let unit = withUnit ? (s.habit.fields.unit.map { " " + $0 } ?? "") : ""
    let progress = Amount.format(s.progress), goal = Amount.format(s.habit.goal)
    let day = s.habit.kind == .build ? "\(progress)/\(goal)\(unit)" : "\(progress) \(g.atMost)\(goal)\(unit)"
    guard let done = s.weekDone, let quota = s.weekQuota else { return day }
    let week = "\(done)/\(quota) \(withUnit ? "this " : "")\(s.periodAbbreviation)"
    return s.habit.isYesNo ? week : "\(day), \(week)"
}

/// The columns of a today row, left to right. `givesWay` orders the optional ones: as the
/// screen narrows, the column with the lowest number is left out first, until the name
/// has at least `minimumNameWidth` cells. docs/ui.md ("Any width") states this order.
enum RowColumn: Hashable, CaseIterable {
    /// The selection mark, the day's state glyph, and a cell kept for the day-note mark.
    case mark, glyph, noteMark
    case icon, name, progress
    /// The unit after the progress (`5/8 glasses`; `5/8` without it).
    case unit
    case streak, strengthBar, strengthPercent, difficulty, sync
    /// The habit's recent days (`RowLayout.dayCount` of them, today at the right), after
    /// the sync icon: they take only the room left once every other column and the whole
    /// name fit, so they give way before any other column.
    case days

    /// The order in which the optional columns give way (1 first); nil: always shown.
    /// (The recent days, 0, are laid out after the others: see `RowLayout`.)
    var givesWay: Int? {
        switch self {
        case .days: 0
        case .unit: 1
        case .strengthBar: 2
        case .difficulty: 3
        case .icon: 4
        case .strengthPercent: 5
        case .sync: 6
        case .mark, .glyph, .noteMark, .name, .progress, .streak: nil
        }
    }
}

/// The fewest cells a habit's name gets on a today row (it is cut with `…` below that).
let minimumNameWidth = 12

/// The fewest recent days a today row shows; with room for fewer, it shows none.
let minimumRecentDays = 3

/// Where a today row's columns go at the screen's width: each kept column's x and width,
/// left to right; the name gets the room left, up to the longest name's width.
struct RowLayout {
    var columns: [RowColumn: (x: Int, width: Int)] = [:]
    /// How many recent days the rows show (0: none; see `RowColumn.days`). Day `i` (oldest
    /// first) stands at `dayX(i)`, with a cell before it for the week-start mark and the
    /// cursor's `[`, and one after it for the cursor's `]`.
    var dayCount = 0
    func has(_ c: RowColumn) -> Bool { columns[c] != nil }
    func dayX(_ i: Int) -> Int { (columns[.days]?.x ?? 0) + 1 + 2 * i }

    init(_ rows: [HabitSummary], width: Int, glyphs g: Glyphs, tags: [HabitID: String] = [:], auto: [HabitID: AutoLast] = [:]) {
        func widest(_ text: (HabitSummary) -> String) -> Int { rows.map { TextWidth.of(text($0)) }.max() ?? 0 }
        let fullText = widest { rowProgressText($0, g) }, shortText = widest { rowProgressText($0, g, unit: false) }
        let anyIcon = g.showsIcons && rows.contains { $0.habit.fields.icon != nil }
        let streakWidth = max(3, widest { streakText($0) })
        // (column, width, gap before it): the name's width is what is left. The progress
        // column (with its unit) is as wide as its longest text, at most `progressCap`.
        func columnSpecs(progressCap: Int) -> [(RowColumn, Int, Int)] {
            let full = min(progressCap, fullText), short = min(progressCap, shortText)
            return [
                (.mark, 1, 0), (.glyph, 1, 1), (.noteMark, 1, 0),
                (.icon, anyIcon ? 2 : 0, 1), (.name, 0, 1), (.progress, max(3, short), 2), (.unit, full - short, 0),
                (.streak, streakWidth, 2), (.strengthBar, 5, 2), (.strengthPercent, 4, 1),
                (.difficulty, 2, 2), (.sync, 1, 2),
            ].filter { $0.1 > 0 || $0.0 == .name }
        }
        let rightMargin = 1
        func room(_ specs: [(RowColumn, Int, Int)]) -> Int { width - rightMargin - specs.reduce(0) { $0 + $1.1 + $1.2 } }
        // The whole progress text where the screen has room for it and the name's minimum;
        // else at most 22 cells (cut with …) before other columns give way.
        var specs = columnSpecs(progressCap: .max)
        if room(specs) < minimumNameWidth { specs = columnSpecs(progressCap: 22) }
        func nameRoom() -> Int { room(specs) }
        let optional = specs.map(\.0).filter { $0.givesWay != nil }.sorted { $0.givesWay! < $1.givesWay! }
        let every = specs.count
        for column in optional where nameRoom() < minimumNameWidth {
            specs.removeAll { $0.0 == column }
        }
        // The name takes what is left, but no more than the longest name needs (the columns
        // after it stay near it on a wide screen).
        let longest = max(minimumNameWidth, widest { $0.habit.name + namesakeTag($0.habit.id, tags) + autoTag($0, auto, g) })
        // The recent days: in the room the whole name and every other column leave, two
        // cells a day and one more for the last day's `]`, after a gap of two.
        let spare = nameRoom() - longest - 2
        if specs.count == every, (spare - 1) / 2 >= minimumRecentDays {
            dayCount = (spare - 1) / 2
            specs.append((.days, 2 * dayCount + 1, 2))
        }
        var x = 0
        for (column, w, gap) in specs {
            x += gap
            let cw = column == .name ? max(0, min(longest, nameRoom())) : w
            columns[column] = (x, cw)
            x += cw
        }
    }
}

/// " #1a2b" after the name of a habit that shares its name (see `AppState.namesakeTags`).
func namesakeTag(_ id: HabitID, _ tags: [HabitID: String]) -> String { Edits.namesakeSuffix(id, tags) }

/// " ⚙ 6" after the name of an auto habit (see `AppState.autoResults`): its mark and its
/// command's last result as the row shows it (`AutoLast.text`), at most 24 cells
/// (" [auto] 6" in ASCII).
func autoTag(_ s: HabitSummary, _ results: [HabitID: AutoLast], _ g: Glyphs) -> String {
    results[s.habit.id].map { autoMark(g) + ($0.text(on: s).isEmpty ? "" : " " + TextWidth.fit($0.text(on: s), 24)) } ?? ""
}

/// The mark alone, which a row keeps even where the result does not fit.
func autoMark(_ g: Glyphs) -> String { " " + (g.showsIcons ? "⚙" : "[auto]") }

/// A row's progress: `progressText`, "archived" for a habit archived on the row's day, or
/// "not started" for a day before its start (`v` lists both).
func rowProgressText(_ s: HabitSummary, _ g: Glyphs, unit: Bool = true) -> String {
    isArchived(s) ? "archived" : s.line.isBeforeStart ? "not started" : progressText(s, g, unit: unit)
}

/// Whether the habit is archived on the summary's day (`v` lists it).
func isArchived(_ s: HabitSummary) -> Bool { s.habit.fields.archivedFrom.map { $0 <= s.day } == true }

/// "5d", "3w" for an N-per-week habit's weeks, "4x" for an every-N-days habit's occurrences.
func streakText(_ s: HabitSummary) -> String { "\(s.streak)\(s.line.streakAbbreviation.prefix(1))" }

func todayScreen(_ b: inout ScreenBuffer, _ state: AppState) {
    header(&b, state)
    let g = state.glyphs
    let top = 2, bottom = state.height - 4 // rows top...bottom
    let listHeight = bottom - top + 1
    if state.rows.isEmpty {
        let text = state.habits.habits.isEmpty
            ? "No habits yet. Press a to add your first one."
            : !state.filter.isEmpty ? noMatch(state, mode: .today)
            : "Nothing is due on this day. v shows every habit."
        for (i, line) in messageLines(text, width: state.width - 4).enumerated() {
            b.put(line, x: 3, y: top + 1 + i, role: .dim)
        }
        return
    }
    let layout = RowLayout(state.rows, width: state.width, glyphs: g, tags: state.namesakeTags, auto: state.autoResults)
    let selected = state.selectedLine ?? 0
    let first = max(0, min(selected - listHeight + 1, state.lines.count - listHeight))
    let shown = state.lines[first..<min(state.lines.count, first + listHeight)]
    for (i, line) in zip(shown.indices, shown) {
        let y = top + (i - first)
        b.region(.line(i), x: 0, y: y, width: state.width)
        guard case .habit(let index) = line else { groupHeading(&b, state, line, y: y, selected: i == selected); continue }
        todayRow(&b, state, state.rows[index], layout, y: y, selected: i == selected, line: i)
    }
    if state.lines.count > listHeight {
        let range = "\(first + 1)-\(first + shown.count) of \(state.lines.count)"
        b.put(range, x: state.width - 1 - TextWidth.of(range), y: 1, role: .dim)
    }
}

/// A group's heading on the today screen: "▾ Health", or folded "▸ Health (3, 2 done)".
func groupHeading(_ b: inout ScreenBuffer, _ state: AppState, _ line: TodayLine, y: Int, selected: Bool) {
    guard case .heading(let group, let count, let done, let folded) = line else { return }
    let g = state.glyphs
    b.put(selected ? g.selected + " " : "  ", x: 0, y: y, role: .accent)
    let text = folded ? "\(g.groupFolded) \(group) (\(count), \(done) done)" : "\(g.groupOpen) \(group)"
    b.put(text, x: 2, y: y, role: .header, limit: state.width - 3)
}

/// One habit's row, its columns where `layout` puts them.
func todayRow(_ b: inout ScreenBuffer, _ state: AppState, _ s: HabitSummary, _ layout: RowLayout, y: Int, selected: Bool,
              line: Int? = nil) {
    let g = state.glyphs
    // A habit archived on this day (listed by v): a dim name and "archived" for its day.
    // A day before its start (also listed by v): dim, "not started", no figures.
    let archived = isArchived(s) || s.line.isBeforeStart
    let (glyph, role) = archived ? (s.line.isBeforeStart ? g.unscheduled : g.notYet, Role.dim) : dayGlyph(s, g)
    for (column, at) in layout.columns {
        switch column {
        case .mark:
            b.put(selected ? g.selected : " ", x: at.x, y: y, role: .accent, limit: 1)
        case .glyph:
            b.put(glyph, x: at.x, y: y, role: role, limit: 1)
            if let line { b.region(.mark(line), x: at.x, y: y, width: 1) }
        case .noteMark:
            if state.habits.note(s.habit.id, s.day) != nil { b.put(g.note, x: at.x, y: y, role: .accent, limit: 1) }
        case .unit:
            break
        case .icon:
            b.put(s.habit.fields.icon ?? "", x: at.x, y: y, role: .normal, limit: at.width)
        case .name:
            // A habit that shares its name with another gets the id prefix that picks it
            // ("Walk #1a2b"), so that the two rows differ and the command line can name it.
            let tag = namesakeTag(s.habit.id, state.namesakeTags), auto = autoTag(s, state.autoResults, g)
            let room = max(0, at.width - TextWidth.of(tag) - (auto.isEmpty ? 0 : TextWidth.of(autoMark(g))))
            b.put(TextWidth.fit(s.habit.name, room), x: at.x, y: y, role: archived ? .dim : .normal,
                  color: ThemeColor(habitColor: s.habit.fields.color))
            let nx = at.x + min(TextWidth.of(s.habit.name), room)
            if !tag.isEmpty { b.put(tag, x: nx, y: y, role: .statusWarn, limit: at.x + at.width - nx) }
            // An auto habit's mark and last result; an error in the error role.
            let ax = nx + TextWidth.of(tag)
            let failed = state.autoResults[s.habit.id]?.isFailure == true
            if !auto.isEmpty { b.put(TextWidth.fit(auto, max(0, at.x + at.width - ax)), x: ax, y: y, role: failed ? .statusError : .dim) }
        case .progress:
            let unit = layout.columns[.unit]
            let text = rowProgressText(s, g, unit: unit != nil)
            b.put(TextWidth.fit(text, at.width + (unit?.width ?? 0)), x: at.x, y: y, role: role == .dim ? .dim : .normal)
        case .streak where s.line.isBeforeStart, .strengthBar where s.line.isBeforeStart,
             .strengthPercent where s.line.isBeforeStart:
            break
        case .streak:
            b.put(streakText(s), x: at.x, y: y, role: s.streak > 0 ? .streak : .dim, limit: at.width)
        case .strengthBar:
            let filled = Int((s.strength * Double(at.width)).rounded())
            let bx = at.x + b.put(String(repeating: g.barFull, count: filled), x: at.x, y: y, role: .strength)
            b.put(String(repeating: g.barEmpty, count: at.width - filled), x: bx, y: y, role: .xpBarEmpty)
        case .strengthPercent:
            let pct = "\(Int((s.strength * 100).rounded()))%"
            b.put(pct, x: at.x + at.width - TextWidth.of(pct), y: y, role: .strength)
        case .difficulty:
            b.put(s.difficulty.map { "d\($0)" } ?? "", x: at.x, y: y, role: .dim)
        case .sync:
            let (icon, syncRole) = syncIcon(s.habit.id, state)
            b.put(icon, x: at.x, y: y, role: syncRole, limit: 1)
        case .days:
            recentDays(&b, state, s, layout, y: y, selected: selected, line: line)
        }
    }
    if selected { b.paint(x: 2, y: y, count: state.width - 2, role: .selection) }
}

/// A today row's recent days (`AppState.recentDays`): each day's heat-map mark (`heatMark`;
/// a day not due is blank, as in the week grid), the week-start mark before the first day
/// of a week, and on the selected row `[ ]` round the day shown (the day the day keys act on).
func recentDays(_ b: inout ScreenBuffer, _ state: AppState, _ s: HabitSummary, _ layout: RowLayout, y: Int, selected: Bool,
                line: Int?) {
    let g = state.glyphs
    let habit = state.habits.habit(s.habit.id) ?? s.habit
    let days = state.recentDays(layout.dayCount)
    guard let first = days.first else { return }
    let history = state.habits.history(habit, through: state.today, today: state.today, settings: state.settings)
    let byDay = Dictionary(uniqueKeysWithValues: history.drop { $0.day < first }.map { ($0.day, $0) })
    for (i, day) in days.enumerated() {
        let x = layout.dayX(i)
        if i > 0, day > habit.startDate, day == day.startOfWeek(state.settings.weekStart) {
            b.put(g.weekStart, x: x - 1, y: y, role: .dim)
        }
        var mark = heatMark(habit, day, byDay[day], today: state.today, glyphs: g)
        // A day not due (an N-per-week habit's open day unless its week fell short): blank.
        if let d = byDay[day], !(habit.on(day).schedule.isQuota ? d.missed : d.scheduled), d.progress == 0, !d.skipped, !d.notDone {
            mark.text = g.unscheduled
        }
        b.put(mark.text, x: x, y: y, role: mark.role, limit: 1, color: mark.color)
        if let line { b.region(.day(line: line, day), x: x, y: y, width: 2) }
        if selected && day == state.date {
            b.put("[", x: x - 1, y: y, role: .accent)
            b.put("]", x: x + 1, y: y, role: .accent)
        }
    }
}

// MARK: Catching up

/// "3 habits not recorded yesterday · c to catch up" or "5 habit-days not recorded from
/// Tue 17 Nov to yesterday · …", or nil when nothing is missed; a shorter form ("5 not
/// recorded before today · c to catch up", then "5 open before today · …") when that does
/// not fit in `width`. It counts the days before today, as the catch-up screen's title
/// does (which gives today's apart).
func catchUpHint(_ missed: [CatchUpItem], today: LocalDay, width: Int = .max, separator sep: String = "·") -> String? {
    guard let first = missed.first else { return nil }
    let yesterday = today.adding(-1)
    let full = missed.allSatisfy({ $0.day == yesterday })
        ? "\(Plural.count(missed.count, "habit")) not recorded yesterday \(sep) c to catch up"
        : "\(Plural.count(missed.count, "habit-day")) not recorded from \(shortDate(first.day)) to yesterday \(sep) c to catch up"
    return [full, "\(missed.count) not recorded before today \(sep) c to catch up", "\(missed.count) open before today \(sep) c to catch up"]
        .first { TextWidth.of($0) <= width } ?? "\(missed.count) open before today"
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
    // The days before today (what the today screen's hint counted) and today's, told apart;
    // open: nothing recorded yet (no progress, skip or "not done" answer).
    let open = items.filter {
        s.progress($0.habit.id, $0.day) == 0 && !s.isSkipped($0.habit.id, $0.day) && !s.isAnsweredNotDone($0.habit.id, $0.day)
    }.count
    let onToday = items.filter { $0.day == state.today }.count, before = items.count - onToday
    let titles = ["catching up: \(Plural.count(before, "habit-day")) before today, \(onToday) today · \(open) open",
                  "\(before) before today, \(onToday) today · \(open) open", "\(open) of \(items.count) open"]
    b.put(titles.first { TextWidth.of($0) <= state.width - x - 1 } ?? "", x: x, y: 0, role: .header)
    let top = 2, bottom = state.height - 4
    let listHeight = bottom - top + 1
    let selected = state.catchUpIndex
    let first = max(0, min(selected - listHeight + 1, items.count - listHeight))
    // As the screen narrows, the unit, then the icons, then the weekday and month give way
    // (the name keeps `minimumNameWidth` cells).
    let shownItems = Array(items[first..<min(items.count, first + listHeight)])
    func rightText(_ item: CatchUpItem, unit: Bool) -> String {
        guard let habit = s.habit(item.habit.id) else { return "" }
        let progress = habit.shown(progress: s.progress(habit.id, item.day))
        let u = unit ? (habit.fields.unit.map { " " + $0 } ?? "") : ""
        return (s.isSkipped(habit.id, item.day) ? "skipped" : s.isAnsweredNotDone(habit.id, item.day) ? "not done"
                    : "\(Amount.format(progress))/\(Amount.format(habit.goal))\(u)")
            + (s.difficulty(habit.id, item.day).map { "  d\($0)" } ?? "    ")
    }
    let variants: [(unit: Bool, icons: Bool, dateWidth: Int)] = [(true, g.showsIcons, 11), (false, g.showsIcons, 11),
                                                                 (false, false, 11), (false, false, 6)]
    let layout = variants.first { v in
        let right = min(24, shownItems.map { TextWidth.of(rightText($0, unit: v.unit)) }.max() ?? 0)
        return state.width - 3 - right - (2 + v.dateWidth + 1 + 2 + (v.icons ? 4 : 0)) >= minimumNameWidth
    } ?? variants[variants.count - 1]
    let rw = min(24, shownItems.map { TextWidth.of(rightText($0, unit: layout.unit)) }.max() ?? 0)
    for i in first..<min(items.count, first + listHeight) {
        let item = items[i], y = top + (i - first)
        guard let habit = s.habit(item.habit.id) else { continue }
        let progress = habit.shown(progress: s.progress(habit.id, item.day))
        let skipped = s.isSkipped(habit.id, item.day)
        let completed = !skipped && habit.succeeds(progress: progress)
        b.region(.catchUpItem(i), x: 0, y: y, width: state.width)
        var x = b.put(i == selected ? g.selected + " " : "  ", x: 0, y: y, role: .accent)
        let date = layout.dateWidth < 11 ? "\(weekdayNames[item.day.weekday.rawValue - 1]) \(item.day.components.day)" : shortDate(item.day)
        x += b.put(TextWidth.fit(date, layout.dateWidth), x: x, y: y, role: item.day == state.today ? .accent : .dim) + 1
        let (glyph, role) = dayGlyph(skipped: skipped, exceeded: false, completed: completed, progress: progress,
                                     kind: habit.kind, scheduled: true, notDone: s.isAnsweredNotDone(habit.id, item.day), g)
        x += b.put(glyph, x: x, y: y, role: role, limit: 1) + 1
        if layout.icons {
            b.put(habit.fields.icon ?? "", x: x + 1, y: y, role: .normal, limit: 2)
            x += 4
        }
        let right = rightText(item, unit: layout.unit)
        b.put(TextWidth.fit(right, rw), x: state.width - 2 - rw, y: y, role: role == .dim ? .dim : .normal)
        b.put(state.label(habit, width: max(0, state.width - 3 - rw - x)), x: x, y: y, role: .normal)
        if i == selected { b.paint(x: 2, y: y, count: state.width - 2, role: .selection) }
    }
    if items.count > listHeight {
        let range = "\(first + 1)-\(min(items.count, first + listHeight)) of \(items.count)"
        b.put(range, x: state.width - 1 - TextWidth.of(range), y: 1, role: .dim)
    }
}
