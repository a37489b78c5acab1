import FoundationEssentials
import HabitCore
import HabitStore
import HabitTUI
#if canImport(Glibc)
import Glibc
import HabitSys
#endif

/// The chart commands: `show HABIT --chart KIND` and `graph`. The series come from
/// HabitCore (Charts.swift), the drawing from HabitTUI (`TextChart`).
enum ChartKind: String, CaseIterable {
    case score, history, weekday, streaks, difficulty
}

extension Specs {
    /// The options `show` takes for its charts.
    static let chartOptions: [OptionSpec] = [
        OptionSpec(name: "--chart", value: "KIND", help: "print a chart: score, history, weekday, streaks or difficulty",
                   completes: .words(ChartKind.allCases.map(\.rawValue))),
        OptionSpec(name: "--span", value: "SPAN", help: "3m, 1y or all (default: 1y for score, all for the others)",
                   completes: .words(ChartSpan.allCases.map(\.rawValue))),
        OptionSpec(name: "--by", value: "PERIOD", help: "history bars per week, month (default), quarter or year",
                   completes: .words(ChartBucket.allCases.map(\.rawValue))),
    ]
}


/// The width charts are drawn at: the terminal's when standard output is one (its size, or
/// $COLUMNS), else 80; never below `TextChart.minWidth`.
enum ChartWidth {
    static func current() -> Int {
        guard isatty(1) == 1 else { return 80 }
        var size = winsize()
        if (try? sysCall("ioctl") { ioctl(1, UInt(TIOCGWINSZ), &size) }) != nil, size.ws_col > 0 { return max(TextChart.minWidth, Int(size.ws_col)) }
        if let c = ProcessEnvironment.value("COLUMNS").flatMap(Int.init), c > 0 {
            return max(TextChart.minWidth, c)
        }
        return 80
    }
}

/// Colour on the charts when standard output is a terminal and NO_COLOR is not set
/// (https://no-color.org): bars and done days green, partly yellow, missed red, skipped
/// cyan, the goal line and level marks bold yellow, the current streak bold. Piped output
/// stays plain text.
enum ChartColor {
    static let enabled = isatty(1) == 1 && (ProcessEnvironment.value("NO_COLOR") ?? "").isEmpty

    /// The SGR parameters of a day's state.
    static func code(_ state: DayState) -> String? {
        switch state {
        case .done: "32"
        case .partly: "33"
        case .missed: "31"
        case .skipped, .paused: "36"
        case .pending: "1"
        case .notDue, .inactive: nil
        }
    }

    /// A cell of `area`, `bars`, `weekdayBars` or `streakList`.
    static func chartCell(_ line: String, _ column: Int, _ cell: String, _ g: ChartGlyphs) -> String? {
        if line.hasPrefix("(") { return nil }
        if line.hasSuffix("  current") && column >= TextWidth.of(line) - 7 { return "1" }
        switch TextChart.ink(of: cell, axisLine: line.contains(g.corner), glyphs: g) {
        case .bar: return "32"
        case .goal, .mark: return "33;1"
        case .text: return nil
        }
    }

    /// A cell of the weekday × month grid: none done red, some green.
    static func gridCell(_ line: String, _ cell: String, _ g: ChartGlyphs) -> String? {
        guard ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"].contains(String(line.prefix(3))), cell != " " else { return nil }
        if cell == g.shades[1] { return "31" }
        return g.shades.dropFirst(2).contains(cell) ? "32" : nil
    }

    /// Prints chart lines (safe for the terminal, as `Output.line`), each cell in the colour
    /// `code` gives it (line index, line, display column, cell) when colour is on.
    static func print(_ lines: [String], _ code: (Int, String, Int, String) -> String?) {
        guard enabled else { lines.forEach(Output.line); return }
        for (i, raw) in lines.enumerated() {
            let line = Sanitize.display(raw)
            var out = "", open: String?, column = 0
            for ch in line {
                // A blank keeps the colour it is in (fewer escapes between bars).
                let want = ch == " " ? open : code(i, line, column, String(ch))
                if want != open {
                    if open != nil { out += "\u{1B}[0m" }
                    if let want { out += "\u{1B}[\(want)m" }
                    open = want
                }
                out.append(ch)
                column += TextWidth.of(ch)
            }
            if open != nil { out += "\u{1B}[0m" }
            Output.text(out + "\n")
        }
    }
}

extension Command {
    /// One of a fixed set of words for an option, or a usage error that lists them.
    func choice<T: RawRepresentable & CaseIterable>(_ option: OptionName, _ type: T.Type) throws -> T? where T.RawValue == String {
        guard let text = invocation.value(option) else { return nil }
        guard let v = T(rawValue: text.lowercased()) else {
            let all = T.allCases.map(\.rawValue)
            throw CLIError.usage(.notAChoice(option: option, text: text, choices: all, nearest: Suggest.nearest(text, among: all)))
        }
        return v
    }
}

extension ShowCommand {
    /// `show HABIT --chart KIND`: true when the invocation asks for a chart (and it was printed).
    @MainActor func showChart() async throws -> Bool {
        let kind = try choice(.chart, ChartKind.self)
        let spanOption = try choice(.span, ChartSpan.self)
        let by = try choice(.by, ChartBucket.self)
        guard let kind else {
            if spanOption != nil || by != nil { throw CLIError.usage(.spanOrByWithoutChart) }
            return false
        }
        if by != nil && kind != .history { throw CLIError.usage(.byWithoutHistory) }
        let repo = try openRepository()
        let state = await repo.state
        let habit = try Edits.find(invocation.arguments[0], in: state)
        let span = spanOption ?? (kind == .score ? .year : .all)
        let width = ChartWidth.current()
        let g = ChartGlyphs.of(ascii: Output.ascii)
        let json = invocation.flag(.json)
        var doc: [String: JSON] = ["id": .string(habit.id.description), "name": .string(habit.name),
                                   "chart": .string(kind.rawValue), "date": .string(today.description)]
        let chart = HabitChart(state: state, habit: habit, today: today, span: span, settings: settings, width: width, g: g, json: json)
        var lines = chart.lines(kind, by: by, &doc)
        if json { Output.raw(JSON.object(doc).serialized()); return true }
        if habit.startDate > today { lines = [lines[0], "(nothing yet: it starts on \(habit.startDate))"] }
        for l in GraphCommand.wrapped(lines[0], width: width) { Output.line(l) }
        let gridFrom = kind == .weekday ? lines.firstIndex(of: "By weekday and month:") : nil
        ChartColor.print(Array(lines.dropFirst())) { i, line, column, cell in
            if let gridFrom, i + 1 > gridFrom { return ChartColor.gridCell(line, cell, g) }
            return ChartColor.chartCell(line, column, cell, g)
        }
        return true
    }
}

/// The text and JSON of one habit's chart (`show HABIT --chart KIND`): each kind's lines
/// (a title, then the chart) and the fields it adds to the JSON document.
struct HabitChart {
    let state: HabitState
    let habit: Habit
    let today: LocalDay
    let span: ChartSpan
    let settings: RuleSettings
    let width: Int
    let g: ChartGlyphs
    let json: Bool
    var spanText: String { "since \(span.firstDay(today: today, start: habit.startDate))" }
    /// The habit as the title names it: 'Walk', or 'Walk #fb80' when it shares its name.
    var named: String { "'\(Sanitize.display(Edits.label(habit, tags: Edits.namesakeTags(state.habits))))'" }

    /// The lines of a chart of `kind`, adding its fields to `doc`.
    func lines(_ kind: ChartKind, by: ChartBucket?, _ doc: inout [String: JSON]) -> [String] {
        switch kind {
        case .score: return score(&doc)
        case .history: return history(by ?? .month, &doc)
        case .weekday: return weekday(&doc)
        case .streaks: return streaks(&doc)
        case .difficulty: return difficulty(&doc)
        }
    }

    /// Loop's habit strength over the span.
    func score(_ doc: inout [String: JSON]) -> [String] {
        var lines: [String] = []
        doc["span"] = .string(span.rawValue)
        let points = state.scoreSeries(habit, today: today, span: span, points: json ? Int.max : width - 6)
        doc["points"] = .array(points.map { .object(["date": .string($0.day.description), "score": .double(JSON.rounded($0.score, 4))]) })
        lines = ["Score of \(named), \(spanText) (Loop's habit strength; now \(Output.strengthText(points.last?.score ?? 0)))"]
        if let last = points.last {
            // The first column stands for the span's first day onwards.
            let first = span.firstDay(today: last.day, start: habit.startDate)
            lines += TextChart.area(points.map(\.score), first: first, last: last.day, width: width, height: 12, glyphs: g)
        }
        return lines
    }

    /// Bars per period against the goal.
    func history(_ bucket: ChartBucket, _ doc: inout [String: JSON]) -> [String] {
        var lines: [String] = []
        let series = state.historySeries(habit, today: today, bucket: bucket, span: span, settings: settings)
        doc["span"] = .string(span.rawValue)
        doc["by"] = .string(bucket.rawValue)
        doc["measure"] = .string(series.measure.rawValue)
        let isAmount = series.measure != .completions
        doc["buckets"] = .array(series.buckets.map { b in
            .object(["start": .string(b.start.description), "end": .string(b.end.description),
                     "value": isAmount ? .amount(b.value) : .int(b.value),
                     "goal": isAmount ? .amount(Int(b.goal.rounded())) : .double(JSON.rounded(b.goal, 2)),
                     "done": .int(b.done), "due": .int(b.due), "skipped": .int(b.skipped), "amount": .amount(b.amount)])
        })
        let what: String
        switch series.measure {
        case .completions: what = "days done"
        case .amount: what = "amount" + (habit.fields.unit.map { " (\($0))" } ?? "")
        case .uses: what = "uses" + (habit.fields.unit.map { " (\($0))" } ?? "")
        }
        let goalName = series.measure == .uses ? "the limit" : "the goal"
        lines = ["History of \(named) per \(bucket.rawValue), \(spanText): \(what), \(g.goal) \(goalName)"]
        let format: (Double) -> String = isAmount ? { Amount.format(Int($0.rounded())) } : { String(Int($0.rounded())) }
        lines += TextChart.bars(series.buckets.map { Double($0.value) }, goals: series.buckets.map { $0.goal },
                                labels: series.buckets.map { TextChart.periodLabel($0.start, bucket) }, width: width, height: 12,
                                glyphs: g, format: format)
        return lines
    }

    /// Days done by weekday, and by weekday and month.
    func weekday(_ doc: inout [String: JSON]) -> [String] {
        var lines: [String] = []
        let f = state.weekdayFrequency(habit, today: today, span: span, settings: settings)
        doc["span"] = .string(span.rawValue)
        doc["weekdays"] = .array(f.weekdays.enumerated().map { weekdayJSON($0.offset, $0.element) })
        doc["months"] = .array(f.months.map { m in
            .object(["month": .string(String(m.month.description.prefix(7))),
                     "weekdays": .array(m.weekdays.enumerated().map { weekdayJSON($0.offset, $0.element) })])
        })
        lines = ["Days done by weekday, \(named), \(spanText) (done / due)"]
        lines += TextChart.weekdayBars(f.weekdays, width: width, glyphs: g)
        lines.append("")
        lines.append("By weekday and month:")
        lines += TextChart.weekdayGrid(f.months, width: width, glyphs: g)
        return lines
    }

    /// The best streaks.
    func streaks(_ doc: inout [String: JSON]) -> [String] {
        var lines: [String] = []
        let unit = habit.schedule.period == .day ? "days" : habit.schedule.streakUnit
        let runs = state.bestStreaks(habit, today: today, top: 10, settings: settings)
        doc["unit"] = .string(unit)
        doc["streaks"] = .array(runs.map { r in
            .object(["start": .string(r.start.description), "end": .string(r.end.description),
                     "length": .int(r.length), "current": .bool(r.isCurrent)])
        })
        lines = ["Best streaks of \(named) (\(unit))"]
        lines += TextChart.streakList(runs, unit: unit, width: width, glyphs: g)
        return lines
    }

    /// The average difficulty per week.
    func difficulty(_ doc: inout [String: JSON]) -> [String] {
        var lines: [String] = []
        let weeks = state.difficultyWeeks(habit, today: today, span: span, settings: settings)
        doc["span"] = .string(span.rawValue)
        doc["weeks"] = .array(weeks.map { w in
            .object(["weekStart": .string(w.weekStart.description), "average": .optional(w.average, places: 2),
                     "rated": .int(w.rated)])
        })
        lines = ["Difficulty of \(named) per week, \(spanText) (1 very easy … 5 very hard)"]
        if weeks.allSatisfy({ $0.average == nil }) {
            lines.append("(no day rated yet: 'habitto rate HABIT 1-5' or 'check --difficulty')")
        } else {
            lines += TextChart.bars(weeks.map { $0.average ?? 0 }, goals: [], labels: weeks.map { TextChart.periodLabel($0.weekStart, .week) },
                                    width: width, height: 10, glyphs: g, format: { Format.fixed($0, places: 0) }, top: 5)
        }
        return lines
    }

    func weekdayJSON(_ i: Int, _ c: WeekdayCount) -> JSON {
        .object(["weekday": .string(["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"][i]), "done": .int(c.done),
                 "due": .int(c.due), "ratio": .optional(c.ratio, places: 4)])
    }
}

/// `habitto graph [--weeks N]`: every habit over the last weeks.
struct GraphCommand: Command {
    let context: Context

    static var spec: CommandSpec {
        CommandSpec(
            name: "graph", arguments: [],
            summary: "Show every habit's days over the last weeks, the share done per day and the XP per week.",
            options: [OptionSpec(name: "--weeks", value: "N", help: "how many weeks, 1 to 520 (default: as many as fit)"), Specs.json],
            notes: "Cells: done, partly, missed, skipped, not due, today (not done yet); see the legend below the graph.")
    }

    @MainActor func run() async throws {
        let width = ChartWidth.current()
        let repo = try openRepository()
        let state = await repo.state
        // Without --weeks: the weeks that fit, from the first habit's start at the earliest
        // (no empty days before it).
        let thisWeek = today.startOfWeek(settings.weekStart)
        let started = state.habits.map(\.startDate).min().map { $0.startOfWeek(settings.weekStart).days(to: thisWeek) / 7 + 1 }
        let fitting = min(max(1, (width - 17) / 7), max(1, started ?? .max))
        let asked = try invocation.value(.weeks).map { try wholeNumber($0, .weeks, 1...520) }
        // As the UI's overview, from the first start when the weeks are not asked for.
        let o = state.overview(today: today, weeks: asked ?? fitting, settings: settings, fromFirstStart: asked == nil)
        if invocation.flag(.json) {
            Output.raw(JSON.object([
                "first": .string(o.first.description), "last": .string(o.last.description),
                "habits": .array(o.rows.map { r in
                    .object(["id": .string(r.habit.id.description), "name": .string(r.habit.name),
                             "days": .array(r.days.map { .string($0.rawValue) })])
                }),
                "completion": .array(o.completion.enumerated().map { i, v in
                    .object(["date": .string(o.first.adding(i).description), "ratio": .optional(v, places: 4)])
                }),
                "xpWeeks": .array(o.xpWeeks.map { w in
                    .object(["weekStart": .string(w.weekStart.description), "xp": .int(w.xp), "totalXP": .int(w.totalXP),
                             "level": .int(w.level), "levelUp": .bool(w.levelUp)])
                }),
            ]).serialized())
            return
        }
        let g = ChartGlyphs.of(ascii: Output.ascii)
        guard !o.rows.isEmpty else { Output.line("No habit tracked in these weeks: 'habitto add NAME' adds one."); return }
        for l in Self.wrapped("Every habit, \(o.first) \(g.dash) \(o.last) (top: share of due days done)", width: width) {
            Output.line(l)
        }
        let tags = Edits.namesakeTags(state.habits)
        let names = o.rows.map { Output.shown(Edits.label($0.habit, tags: tags)) }
        let cells = TextChart.consistencyNameWidth(names) + 1
        let states = Dictionary(g.states.map { ($0.value, $0.key) }, uniquingKeysWith: { a, _ in a })
        ChartColor.print(TextChart.consistency(names: names, rows: o.rows.map(\.days), completion: o.completion, first: o.first,
                                               width: width, height: max(TextChart.minHeight, o.rows.count + 4), glyphs: g)) {
            i, line, column, cell in
            guard column >= cells, i <= o.rows.count, !line.hasPrefix("(") else { return nil }
            return i == 0 ? "32" : states[cell].flatMap(ChartColor.code)
        }
        Output.line("")
        let level = o.xpWeeks.last?.level ?? 1
        for l in Self.wrapped("XP per week (\(g.levelUp) a new level; level \(level) now)", width: width) { Output.line(l) }
        if let none = o.noXPLine {
            for l in Self.wrapped(none, width: width) { Output.line(l) }
            return
        }
        ChartColor.print(TextChart.bars(o.xpWeeks.map { Double($0.xp) }, goals: [],
                                        labels: o.xpWeeks.map { TextChart.periodLabel($0.weekStart, .week) },
                                        width: width, height: 10, glyphs: g, format: { String(Int($0)) },
                                        marks: o.xpWeeks.map(\.levelUp))) { _, line, column, cell in
            ChartColor.chartCell(line, column, cell, g)
        }
    }

    /// A chart's title (or a paragraph) in lines of at most `width` columns, broken between
    /// phrases (before a parenthesis, after a comma, colon or semicolon outside one) so that a phrase stays whole; a
    /// phrase longer than a line is broken between its words.
    static func wrapped(_ title: String, width: Int) -> [String] {
        var phrases: [String] = [], current = "", depth = 0
        for word in title.split(separator: " ").map(String.init) {
            if !current.isEmpty, depth == 0, word.hasPrefix("(") || [",", ":", ";"].contains(where: current.hasSuffix) {
                phrases.append(current)
                current = ""
            }
            current += (current.isEmpty ? "" : " ") + word
            depth = max(0, depth + word.filter { $0 == "(" }.count - word.filter { $0 == ")" }.count)
        }
        if !current.isEmpty { phrases.append(current) }
        var lines: [String] = [], line = ""
        for phrase in phrases {
            let whole = TextWidth.of(Output.shown(phrase)) <= width
            for w in whole ? [phrase] : phrase.split(separator: " ").map(String.init) {
                if !line.isEmpty && TextWidth.of(line) + 1 + TextWidth.of(Output.shown(w)) > width { lines.append(line); line = "" }
                line += (line.isEmpty ? "" : " ") + w
            }
        }
        return lines + [line]
    }
}
