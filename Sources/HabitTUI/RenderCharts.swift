import FoundationEssentials
import HabitCore

// MARK: Detail chart pages

/// A detail page other than the calendar: a title line (the page, its view, the keys that
/// change them), then the chart drawn by `TextChart` from the series in HabitCore, in the
/// room down to the message line. Below 16 rows the title is one line.
func detailChartPage(_ b: inout ScreenBuffer, _ state: AppState, _ habit: Habit) {
    let cg = ChartGlyphs.of(ascii: state.glyphs == .ascii)
    let bottom = state.height - 4
    let width = state.width - 2
    let tall = state.height >= 16
    var y = detailChartTitle(&b, state, habit, tall: tall)
    let height = bottom - y + 1
    guard let (lines, summary) = detailChart(state, habit, width: width, height: height, tall: tall, glyphs: cg) else {
        return
    }
    if tall, let summary {
        b.put(TextWidth.fit(summary, width), x: 1, y: y, role: .normal)
        y += 1
    }
    chartLines(&b, lines, x: 1, y: y, bottom: bottom, glyphs: cg, color: ThemeColor(habitColor: habit.fields.color))
}

/// A chart page's title: "Habitto · name" on a tall screen, then the page line ("Score ·
/// last year  2/6", and the keys at the right when they fit). Returns the row below it.
private func detailChartTitle(_ b: inout ScreenBuffer, _ state: AppState, _ habit: Habit, tall: Bool) -> Int {
    let g = state.glyphs
    let width = state.width - 2
    let page = state.detailPage
    let pageNumber = "\(DetailPage.allCases.firstIndex(of: page)! + 1)/\(DetailPage.allCases.count)"
    var view: String
    var viewKeys = "[ ] "
    switch page {
    case .score: view = spanTitle(state.scoreSpan)
    case .history: view = "per \(state.historyBucket.rawValue)"
    case .weekday: view = state.weekdayGrid ? "by month" : "bars"
    default: view = ""; viewKeys = ""
    }
    let keys = "tab \(viewKeys.isEmpty ? "next page" : "page  \(viewKeys)\(page == .score ? "span" : page == .history ? "period" : "view")")"
    var y = 0
    if tall {
        var x = 1 + b.put("Habitto", x: 1, y: 0, role: .title)
        x += b.put(" \(g.separator) ", x: x, y: 0, role: .dim)
        b.put(state.label(habit, width: state.width - x - 1), x: x, y: 0, role: .header)
        y = 1
    }
    // The page line: "Score · last year  2/6" and the keys at the right when they fit.
    let head = page.title + (view.isEmpty ? "" : " \(g.separator) \(view)")
    // On a short screen the name follows, cut before its namesake tag is.
    let pageText = head + (tall ? "" : " \(g.separator) " + state.label(habit, width: max(0, width - 5 - TextWidth.of(head) - 3)))
    var x = 1 + b.put(TextWidth.fit(pageText, min(TextWidth.of(pageText), width - 5)), x: 1, y: y, role: .accent)
    x += b.put("  " + pageNumber, x: x, y: y, role: .dim)
    if x + 2 + TextWidth.of(keys) <= state.width - 1 {
        b.put(keys, x: state.width - 1 - TextWidth.of(keys), y: y, role: .dim)
    }
    return y + (tall ? 2 : 1)
}

/// The chart of the page shown, in the `height` rows below the title (a tall screen gives
/// one of them to the summary line), and that summary; nil for the calendar.
private func detailChart(_ state: AppState, _ habit: Habit, width: Int, height: Int, tall: Bool, glyphs cg: ChartGlyphs)
    -> (lines: [String], summary: String?)?
{
    let s = state.habits, today = state.today
    var lines: [String]
    var summary: String?
    switch state.detailPage {
    case .calendar:
        return nil
    case .score:
        let points = s.scoreSeries(habit, today: today, span: state.scoreSpan, points: max(1, width - 6))
        if let last = points.last {
            let before = s.strength(habit, asOf: today.adding(-30))
            let delta = Int(((last.score - before) * 100).rounded())
            let trend = delta > 0 ? "up \(delta)%" : delta < 0 ? "down \(-delta)%" : "steady"
            summary = "now \(Int((last.score * 100).rounded()))%, \(trend) over 30 days"
            lines = TextChart.area(points.map(\.score), first: state.scoreSpan.firstDay(today: last.day, start: habit.startDate),
                                   last: last.day, width: width, height: height - (tall ? 1 : 0), glyphs: cg)
        } else {
            lines = ["(nothing yet: it starts on \(habit.startDate))"]
        }
    case .history:
        let bucket = state.historyBucket
        let series = s.historySeries(habit, today: today, bucket: bucket, settings: state.settings)
        let isAmount = series.measure != .completions
        let unit = habit.fields.unit.map { " (\(Sanitize.display($0)))" } ?? ""
        let what = series.measure == .completions ? "days done" : (series.measure == .uses ? "uses" : "amount") + unit
        summary = "\(what) per \(bucket.rawValue), \(cg.goal) \(series.measure == .uses ? "the limit" : "the goal")"
        let format: (Double) -> String = isAmount ? { Amount.format(Int($0.rounded())) } : { String(Int($0.rounded())) }
        lines = TextChart.bars(series.buckets.map { Double($0.value) }, goals: series.buckets.map(\.goal),
                               labels: series.buckets.map { TextChart.periodLabel($0.start, bucket) },
                               width: width, height: height - (tall ? 1 : 0), glyphs: cg, format: format)
    case .weekday:
        let f = s.weekdayFrequency(habit, today: today, settings: state.settings)
        let room = height - (tall ? 1 : 0)
        let bars = TextChart.weekdayBars(f.weekdays, width: width, glyphs: cg)
        let grid = TextChart.weekdayGrid(f.months, width: width, glyphs: cg)
        summary = "share of due days done, since \(habit.startDate)"
        // The chosen view first, the other below it when both fit.
        let (one, other) = state.weekdayGrid ? (grid, bars) : (bars, grid)
        if room >= one.count + other.count {
            lines = one + (room > one.count + other.count ? [""] : []) + other
        } else if room >= one.count {
            lines = one
        } else if state.weekdayGrid {
            lines = ["(the grid needs \(state.height - room + grid.count) rows: ] shows bars)"]
        } else {
            summary = nil
            lines = TextChart.weekdayColumns(f.weekdays, height: height, glyphs: cg)
        }
    case .streaks:
        let unit = habit.schedule.period == .day ? "days" : habit.schedule.streakUnit
        let all = s.bestStreaks(habit, today: today, top: .max, settings: state.settings)
        let runs = Array(all.prefix(max(1, height - (tall ? 1 : 0))))
        let current = all.first(where: \.isCurrent).map { "current \($0.length) \($0.length == 1 ? String(unit.dropLast()) : unit) since \($0.start)" } ?? "no current run"
        summary = "the longest runs (\(unit)), longest first; \(current)"
        lines = TextChart.streakList(runs, unit: unit, width: width, glyphs: cg)
    case .difficulty:
        let weeks = s.difficultyWeeks(habit, today: today, settings: state.settings)
        if weeks.allSatisfy({ $0.average == nil }) {
            lines = ["No day of this habit is rated yet: on the calendar page", "1-5 rate the selected day (1 very easy to 5 very hard)."]
        } else {
            summary = "average per week, 1 very easy to 5 very hard"
            lines = TextChart.bars(weeks.map { $0.average ?? 0 }, goals: [], labels: weeks.map { TextChart.periodLabel($0.weekStart, .week) },
                                   width: width, height: height - (tall ? 1 : 0), glyphs: cg,
                                   format: { Format.fixed($0, places: 0) }, top: 5)
        }
    }
    return (lines, summary)
}

/// "last 3 months", "last year", "all".
func spanTitle(_ span: ChartSpan) -> String {
    switch span {
    case .threeMonths: "last 3 months"
    case .year: "last year"
    case .all: "all"
    }
}

/// Draws a chart's lines: its bars in the strength role (in the habit's colour where the
/// theme takes it), goal marks in the accent role, axes and labels dim.
func chartLines(_ b: inout ScreenBuffer, _ lines: [String], x: Int, y: Int, bottom: Int, glyphs g: ChartGlyphs,
                color: ThemeColor?) {
    for (i, line) in lines.enumerated() where y + i <= bottom {
        let isAxis = line.contains(g.corner)
        var cx = x
        for ch in line {
            let s = String(ch)
            let role: Role
            switch TextChart.ink(of: s, axisLine: isAxis, glyphs: g) {
            case .bar: role = .strength
            case .goal, .mark: role = .accent
            case .text: role = .dim
            }
            cx += b.put(s, x: cx, y: y + i, role: role, color: role == .strength ? color : nil)
        }
        if line.hasSuffix("current") { b.paint(x: cx - 7, y: y + i, count: 7, role: .streak) }
    }
}

// MARK: Overview

/// How the overview screen is laid out at the state's size.
struct OverviewLayout {
    /// Habit rows shown, the first shown (the scroll, kept in range), and the total.
    var visible: Int, first: Int, count: Int
    /// Weeks shown, the name column's width.
    var weeks: Int, nameWidth: Int
    var legend: Bool, xpChart: Bool
}

func overviewLayout(_ state: AppState) -> OverviewLayout {
    let all = state.habits.habits.filter { $0.startDate <= state.today }
    let nameWidth = TextChart.consistencyNameWidth(all.map { Sanitize.display(state.label($0)) })
    let days = state.width - 2 - nameWidth - 1
    let weeks = max(1, (days - 7) / 7 + 1)
    let count = state.habits.overviewHabits(today: state.today, weeks: weeks, settings: state.settings)
        .filter { habitMatches($0, state.filter) }.count
    // Rows 1 … height-4: the sparkline, the habits, the dates; then the legend and the XP
    // chart when there is room for them and a few habits.
    let room = state.height - 4 - 2
    let legend = room >= 7
    let xpChart = room - 1 - 8 >= min(count, 4)
    let visible = max(1, room - (legend ? 1 : 0) - (xpChart ? 8 : 0))
    let fits = min(visible, count)
    let first = max(0, min(state.overviewScroll, count - fits))
    return OverviewLayout(visible: fits, first: first, count: count, weeks: weeks, nameWidth: nameWidth,
                          legend: legend, xpChart: xpChart)
}

/// The overview of every habit: the share done per day as a sparkline, one row per habit
/// (a cell per day, in the habit's colour), the dates, a legend and the XP per week with
/// the level marks.
func overviewScreen(_ b: inout ScreenBuffer, _ state: AppState) {
    let g = state.glyphs
    let cg = ChartGlyphs.of(ascii: g == .ascii)
    let layout = overviewLayout(state)
    let o = state.habits.overview(today: state.today, weeks: layout.weeks, settings: state.settings, fromFirstStart: true)
    var x = 1 + b.put("Habitto", x: 1, y: 0, role: .title)
    x += b.put(" \(g.separator) ", x: x, y: 0, role: .dim)
    // The longest title and row range that fit whole (the range shortened before the title).
    let shown = "\(layout.first + 1)-\(layout.first + layout.visible)"
    let mores = layout.count > layout.visible ? ["  \(shown) of \(layout.count)", "  \(shown)/\(layout.count)"] : [""]
    // The weeks the days shown touch (fewer than fit when the first habit started later).
    let weeks = Plural.count(o.xpWeeks.count, "week")
    let titles = ["All habits, the last \(weeks)", "All habits, \(weeks)", weeks]
    let room = state.width - x - 1
    let (title, more) = titles.flatMap { t in mores.map { (t, $0) } }
        .first { TextWidth.of($0.0) + TextWidth.of($0.1) <= room } ?? (titles[titles.count - 1], "")
    x += b.put(title, x: x, y: 0, role: .header, limit: room)
    b.put(more, x: x, y: 0, role: .dim)
    // The filter leaves its habits' rows; the share done per day and the XP stay every habit's.
    let rows = o.rows.filter { habitMatches($0.habit, state.filter) }
    guard !rows.isEmpty else {
        b.put(o.rows.isEmpty ? "No habit tracked in these weeks: a adds one." : noMatch(state, mode: .overview),
              x: 1, y: 2, role: .dim, limit: state.width - 2)
        return
    }
    let left = 1 + layout.nameWidth + 1
    let pad = String(repeating: " ", count: layout.nameWidth - 4)
    b.put("done" + pad, x: 1, y: 1, role: .dim)
    b.put(TextChart.sparkline(o.completion, glyphs: cg), x: left, y: 1, role: .strength)
    var y = 2
    let roles: [DayState: Role] = [.done: .done, .partly: .partial, .missed: .missed, .skipped: .skipped, .paused: .skipped,
                                   .notDue: .dim, .pending: .accent, .inactive: .dim]
    for row in rows.dropFirst(layout.first).prefix(layout.visible) {
        b.put(state.label(row.habit, width: layout.nameWidth), x: 1, y: y, role: .normal)
        let color = ThemeColor(habitColor: row.habit.fields.color)
        for (i, d) in row.days.enumerated() {
            let role = roles[d] ?? .dim
            b.put(cg.states[d] ?? " ", x: left + i, y: y, role: role, color: d == .done || d == .partly ? color : nil)
        }
        y += 1
    }
    b.put(TextChart.dateAxis(first: o.first, last: o.last, left: 0, width: o.completion.count), x: left, y: y, role: .dim)
    y += 1
    if layout.legend {
        // "paused" only where a paused day is drawn (most overviews have none).
        let paused: [(DayState, String)] = o.rows.contains { $0.days.contains(.paused) } ? [(.paused, "paused")] : []
        let items: [(DayState, String)] = [(.done, "done"), (.partly, "partly"), (.missed, "missed"), (.skipped, "skipped")] + paused
            + [(.notDue, "not due"), (.pending, "today")]
        var lx = 1
        for (d, label) in items where lx + 2 + TextWidth.of(label) <= state.width - 1 {
            lx += b.put(cg.states[d] ?? " ", x: lx, y: y, role: roles[d] ?? .dim)
            lx += b.put(" \(label)  ", x: lx, y: y, role: .dim)
        }
        y += 1
    }
    if layout.xpChart {
        let level = o.xpWeeks.last?.level ?? 1
        b.put(TextWidth.fit("XP per week (\(cg.levelUp) a new level; level \(level) now)", state.width - 2), x: 1, y: y, role: .header)
        if let none = o.noXPLine {
            b.put(TextWidth.fit(none, state.width - 2), x: 1, y: y + 1, role: .dim)
            return
        }
        let lines = TextChart.bars(o.xpWeeks.map { Double($0.xp) }, goals: [], labels: o.xpWeeks.map { TextChart.periodLabel($0.weekStart, .week) },
                                   width: state.width - 2, height: max(7, state.height - 4 - y), glyphs: cg,
                                   format: { String(Int($0)) },
                                   marks: o.xpWeeks.map(\.levelUp))
        chartLines(&b, lines, x: 1, y: y + 1, bottom: state.height - 4, glyphs: cg, color: nil)
    }
}

