import FoundationEssentials
import HabitCore

/// The characters a text chart draws with: Unicode block characters, or ASCII (never a
/// letter, so no cell reads as a key).
public struct ChartGlyphs: Hashable, Sendable {
    /// Eighths of a cell, empty to full (index 0 is a blank cell).
    public let eighths: [String]
    /// A sparkline's levels, lowest (0) to highest (1).
    public let spark: [String]
    /// Shades for a ratio grid: none due, 0, and up to ¼, ½, ¾, 1.
    public let shades: [String]
    public let axisV, axisTick, corner, axisH, goal, grid, levelUp: String
    /// The overview's cells (see `DayState`).
    public let states: [DayState: String]
    public let dash: String

    public static let unicode = ChartGlyphs(
        eighths: [" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"], spark: ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"],
        shades: [" ", "·", "░", "▒", "▓", "█"], axisV: "│", axisTick: "┤", corner: "└", axisH: "─", goal: "─", grid: "·",
        levelUp: "▲",
        states: [.done: "█", .partly: "▒", .missed: "×", .skipped: "~", .paused: "‖", .notDue: "·", .pending: "○", .inactive: " "],
        dash: "–")
    public static let ascii = ChartGlyphs(
        eighths: [" ", ".", ".", ":", ":", "=", "=", "#", "#"], spark: ["_", ".", "-", "-", "=", "=", "#", "#"],
        shades: [" ", ".", "-", "=", "+", "#"], axisV: "|", axisTick: "+", corner: "+", axisH: "-", goal: "-", grid: ".",
        levelUp: "^",
        states: [.done: "#", .partly: "+", .missed: "-", .skipped: "~", .paused: "&", .notDue: ".", .pending: "*", .inactive: " "],
        dash: "-")

    /// The set for ASCII output or not.
    public static func of(ascii: Bool) -> ChartGlyphs { ascii ? .ascii : .unicode }
}

/// Text charts: pure functions from a series to lines of text cells, each at most `width`
/// columns, trailing spaces removed. The command line prints them; the UI can draw them
/// into a region of its screen buffer.
public enum TextChart {
    /// The smallest size the command line draws a chart at.
    public static let minWidth = 40, minHeight = 10
    /// The smallest size any chart is drawn at (narrower or lower sizes are raised to it):
    /// the UI's chart pages have less room than the command line at 40×10.
    static let floorWidth = 24, floorHeight = 4

    /// An area chart of ratios (0–1) over dates, with a 0–100% y axis and the first, middle
    /// and last dates below. `height` counts every line (the plot gets `height − 2`).
    public static func area(_ values: [Double], first: LocalDay, last: LocalDay, width: Int, height: Int,
                            glyphs g: ChartGlyphs) -> [String] {
        let width = max(floorWidth, width), height = max(floorHeight, height)
        let rows = height - 2, plot = width - 6
        guard !values.isEmpty else { return ["(nothing to draw yet)"] }
        let column = (0..<plot).map { c -> Double in
            let i = values.count >= plot ? (c + 1) * values.count / plot - 1 : c * values.count / plot
            return min(1, max(0, values[i]))
        }
        var lines: [String] = []
        let half = rows / 2
        for r in 0..<rows {
            let fromBottom = rows - 1 - r
            let label = r == 0 ? "100%" : r == half ? " 50%" : r == rows - 1 ? "  0%" : "    "
            var line = label + " " + (label == "    " ? g.axisV : g.axisTick)
            for v in column {
                let eighths = Int((v * Double(rows * 8)).rounded()) - fromBottom * 8
                if eighths <= 0 { line += r == half ? g.grid : " " } else { line += g.eighths[min(8, eighths)] }
            }
            lines.append(line)
        }
        lines.append("     " + g.corner + String(repeating: g.axisH, count: plot))
        lines.append(dateAxis(first: first, last: last, left: 6, width: plot))
        return lines.map(trimmed)
    }

    /// Vertical bars (one column each, a gap between) of the last bars that fit, scaled to
    /// the largest value or goal; each bar's goal is marked where the bar does not reach it.
    /// `format` writes the y axis's top value; `labels` are each bar's name (the first and
    /// last shown are written below); `marks` puts a mark above a bar (a new level); `top`
    /// fixes the scale's top (5 for difficulty) instead of the largest value.
    public static func bars(_ values: [Double], goals: [Double?], labels: [String], width: Int, height: Int,
                            glyphs g: ChartGlyphs, format: (Double) -> String, marks: [Bool] = [],
                            top fixedTop: Double? = nil) -> [String] {
        let width = max(floorWidth, width), height = max(floorHeight, height)
        guard !values.isEmpty else { return ["(nothing to draw yet)"] }
        let top = fixedTop ?? max(values.max() ?? 0, goals.compactMap { $0 }.max() ?? 0, 1e-9)
        let topLabel = format(top), zero = format(0)
        let labelWidth = max(TextWidth.of(topLabel), TextWidth.of(zero))
        let plot = width - labelWidth - 2
        let shown = min(values.count, plot / 2)
        let from = values.count - shown
        let hasMarks = marks.contains(true)
        let rows = height - 2 - (hasMarks ? 1 : 0)
        var lines: [String] = []
        if hasMarks {
            var line = String(repeating: " ", count: labelWidth + 2)
            for i in from..<values.count { line += (i < marks.count && marks[i] ? g.levelUp : " ") + " " }
            lines.append(line)
        }
        for r in 0..<rows {
            let fromBottom = rows - 1 - r
            let label = r == 0 ? topLabel : r == rows - 1 ? zero : ""
            var line = String(repeating: " ", count: labelWidth - TextWidth.of(label)) + label + " "
                + (label.isEmpty ? g.axisV : g.axisTick)
            for i in from..<values.count {
                let eighths = Int((values[i] / top * Double(rows * 8)).rounded()) - fromBottom * 8
                var goalHere = false
                if i < goals.count, let goal = goals[i], goal > 0 {
                    let goalRow = min(rows - 1, Int(goal / top * Double(rows) - 1e-9))
                    goalHere = goalRow == fromBottom
                }
                let cell = eighths <= 0 ? (goalHere ? g.goal : " ") : g.eighths[min(8, eighths)]
                line += cell + (goalHere ? g.goal : " ")
            }
            lines.append(line)
        }
        lines.append(String(repeating: " ", count: labelWidth + 1) + g.corner + String(repeating: g.axisH, count: shown * 2))
        let firstLabel = labels.indices.contains(from) ? labels[from] : ""
        let lastLabel = labels.last ?? ""
        var axis = String(repeating: " ", count: labelWidth + 2) + firstLabel
        let room = labelWidth + 2 + shown * 2 - TextWidth.of(axis) - TextWidth.of(lastLabel)
        if shown > 1 && TextWidth.of(axis) + max(1, room) + TextWidth.of(lastLabel) <= width {
            axis += String(repeating: " ", count: max(1, room)) + lastLabel
        }
        lines.append(axis)
        return lines.map(trimmed)
    }

    /// One line per weekday, Monday first: a bar of done ÷ due, the percentage and the counts.
    public static func weekdayBars(_ counts: [WeekdayCount], width: Int, glyphs g: ChartGlyphs) -> [String] {
        let width = max(floorWidth, width)
        let names = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
        let tails = counts.map { c in c.ratio.map { Format.right(String(Int(($0 * 100).rounded())), 4) + "%  \(c.done)/\(c.due)" } ?? "   –  not due" }
        let tailWidth = tails.map(\.count).max() ?? 0
        let bar = max(4, width - 4 - 2 - tailWidth)
        return counts.enumerated().map { i, c in
            let eighths = Int(((c.ratio ?? 0) * Double(bar * 8)).rounded())
            var cells = String(repeating: g.eighths[8], count: eighths / 8)
            if eighths % 8 > 0 { cells += g.eighths[eighths % 8].replacingAll(" ", with: "") }
            let used = eighths / 8 + (eighths % 8 > 0 ? 1 : 0)
            let tail = tails[i].replacingAll("–", with: g.dash)
            return trimmed(names[i] + " " + cells + String(repeating: c.ratio == nil ? " " : g.grid, count: bar - used) + "  " + tail)
        }
    }

    /// Weekday × month (as Loop's frequency chart): a shade per cell for done ÷ due, the
    /// last months that fit, the years and months above, a legend below (10 lines).
    public static func weekdayGrid(_ months: [(month: LocalDay, weekdays: [WeekdayCount])], width: Int,
                                   glyphs g: ChartGlyphs) -> [String] {
        let width = max(floorWidth, width)
        let names = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
        let shown = Array(months.suffix((width - 4) / 3))
        var years = [Character](repeating: " ", count: 4 + 3 * shown.count + 2), heads = "    "
        for (i, m) in shown.enumerated() {
            let c = m.month.components
            // The year above its first month (and above the first month shown).
            if i == 0 || c.month == 1 {
                for (k, ch) in String(c.year).enumerated() where 4 + 3 * i + k < years.count { years[4 + 3 * i + k] = ch }
            }
            heads += Format.right(String(c.month), 2, pad: "0") + " "
        }
        var lines = [trimmed(String(years)), trimmed(heads)]
        for w in 0..<7 {
            var line = names[w] + " "
            for m in shown { let s = shade(m.weekdays[w].ratio, g); line += s + s + " " }
            lines.append(trimmed(line))
        }
        let legend = ["\(g.shades[1]) 0%", "\(g.shades[2]) <25%", "\(g.shades[3]) <50%", "\(g.shades[4]) <75%",
                      "\(g.shades[5]) 75%+", "blank: not due"]
        return lines + legendLines(legend, width: width, maxLines: 1)
    }

    /// The legend's shade of done ÷ due: 0%, under 25%, under 50%, under 75%, 75% and more.
    static func shade(_ ratio: Double?, _ g: ChartGlyphs) -> String {
        guard let r = ratio else { return g.shades[0] }
        if r <= 0 { return g.shades[1] }
        return g.shades[min(5, 2 + Int(r * 4))]
    }

    /// The weekdays as columns, for a low screen: the percentage on top, a bar of done ÷ due
    /// `height − 2` rows high, the weekday's name below (`–` when none was due).
    public static func weekdayColumns(_ counts: [WeekdayCount], height: Int, glyphs g: ChartGlyphs) -> [String] {
        let rows = max(1, height - 2)
        let names = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
        var lines = [counts.map { c in c.ratio.map { Format.right(String(Int(($0 * 100).rounded())), 3) + "%" } ?? "  \(g.dash) " }
            .joined(separator: " ")]
        for r in 0..<rows {
            let fromBottom = rows - 1 - r
            lines.append(counts.map { c in
                let eighths = Int(((c.ratio ?? 0) * Double(rows * 8)).rounded()) - fromBottom * 8
                let cell = eighths <= 0 ? (fromBottom == 0 && c.ratio != nil ? g.grid : " ") : g.eighths[min(8, eighths)]
                return " " + cell + cell + " "
            }.joined(separator: " "))
        }
        lines.append(names.map { " " + $0 }.joined(separator: " "))
        return lines.map(trimmed)
    }

    /// The streaks, one a line: dates, length, a bar scaled to the longest, the current one marked.
    public static func streakList(_ runs: [StreakRun], unit: String, width: Int, glyphs g: ChartGlyphs) -> [String] {
        let width = max(floorWidth, width)
        guard let longest = runs.map(\.length).max(), longest > 0 else { return ["(no streak yet)"] }
        let singular = String(unit.dropLast())
        let lengths = runs.map { "\($0.length) \($0.length == 1 ? singular : unit)" }
        let lengthWidth = lengths.map(\.count).max() ?? 0
        let compact = width < 23 + 2 + lengthWidth + 2 + 8 + 10
        return runs.enumerated().map { i, run in
            let dates = compact ? "\(run.start)" : "\(run.start) \(g.dash) \(run.end)"
            let mark = run.isCurrent ? "  current" : ""
            let left = dates + "  " + Format.left(lengths[i], lengthWidth) + "  "
            let bar = max(1, width - TextWidth.of(left) - 9)
            let filled = max(1, Int((Double(run.length) / Double(longest) * Double(bar)).rounded()))
            return trimmed(left + String(repeating: g.eighths[8], count: filled) + mark)
        }
    }

    /// A sparkline: one cell per value (0–1), blank for none.
    public static func sparkline(_ values: [Double?], glyphs g: ChartGlyphs) -> String {
        values.map { v in
            guard let v else { return " " }
            return g.spark[min(7, max(0, Int((v * 7).rounded())))]
        }.joined()
    }

    /// The consistency graph: a completion sparkline, one row per habit (a cell per day, the
    /// most recent days that fit), the dates below and a legend. Rows beyond `height` are
    /// left out with a note.
    public static func consistency(names: [String], rows: [[DayState]], completion: [Double?], first: LocalDay,
                                   width: Int, height: Int, glyphs g: ChartGlyphs) -> [String] {
        let width = max(floorWidth, width), height = max(floorHeight, height)
        let nameWidth = consistencyNameWidth(names)
        let days = min(completion.count, width - nameWidth - 1)
        let from = completion.count - days
        let pad = String(repeating: " ", count: nameWidth - 4)
        var lines = ["done" + pad + " " + sparkline(Array(completion[from...]), glyphs: g)]
        // "paused" only where a paused day is drawn (most graphs have none).
        let paused: [(DayState, String)] = rows.contains { $0.contains(.paused) } ? [(.paused, "paused")] : []
        let legend: [(DayState, String)] = [(.done, "done"), (.partly, "partly"), (.missed, "missed"), (.skipped, "skipped")] + paused
            + [(.notDue, "not due"), (.pending, "today")]
        let legendText = legendLines(legend.map { "\(g.states[$0.0] ?? " ") \($0.1)" }, width: width, maxLines: 2)
        let room = height - 3 - legendText.count
        let fits = rows.count <= room ? rows.count : room - 1
        for i in 0..<fits {
            let cells = rows[i][from...].map { g.states[$0] ?? " " }.joined()
            lines.append(TextWidth.fit(names[i], nameWidth) + " " + cells)
        }
        if fits < rows.count { lines.append("(\(rows.count - fits) more habits: a taller terminal shows them)") }
        lines.append(dateAxis(first: first.adding(from), last: first.adding(completion.count - 1), left: nameWidth + 1, width: days))
        return (lines + legendText).map(trimmed)
    }

    /// A period's label under a bar chart: `11-16` (a week's first day), `2026-11`, `2026-Q4`, `2026`.
    public static func periodLabel(_ start: LocalDay, _ bucket: ChartBucket) -> String {
        let c = start.components
        switch bucket {
        case .week: return String(start.description.dropFirst(5))
        case .month: return String(start.description.prefix(7))
        case .quarter: return "\(c.year)-Q\((c.month - 1) / 3 + 1)"
        case .year: return String(c.year)
        }
    }

    /// What a cell of a drawn chart is, for colouring it: a bar (or area) cell, a goal
    /// mark, a new level's mark, or text (axes, labels). `axisLine`: the cell is on
    /// the line under the plot (where the goal glyph is the axis).
    public enum Ink: Sendable { case bar, goal, mark, text }

    /// The ink of one cell (a glyph) of a line of `area`, `bars`, `weekdayBars`,
    /// `weekdayColumns` or `streakList`.
    public static func ink(of cell: String, axisLine: Bool, glyphs g: ChartGlyphs) -> Ink {
        if cell == " " { return .text }
        if cell == g.levelUp { return .mark }
        if g == .unicode, g.eighths.dropFirst().contains(cell) { return .bar }
        if g == .ascii, cell == "#" || cell == ":" || cell == "=" { return .bar }
        if !axisLine && cell == g.goal { return .goal }
        return .text
    }

    /// The width of the consistency graph's name column (its cells start one column after).
    public static func consistencyNameWidth(_ names: [String]) -> Int {
        min(16, max(4, names.map(TextWidth.of).max() ?? 4))
    }

    /// A line with the first date at `left`, the last at the right end of `width` columns
    /// after it, and the middle one when there is room (month-day when a full date does not fit).
    static func dateAxis(first: LocalDay, last: LocalDay, left: Int, width: Int) -> String {
        let full = width >= 2 * 10 + 2
        func label(_ d: LocalDay) -> String { full ? d.description : String(d.description.dropFirst(5)) }
        let a = label(first), b = label(last)
        var cells = Array(repeating: Character(" "), count: max(width, a.count))
        func put(_ s: String, at i: Int) {
            for (k, ch) in s.enumerated() where i + k >= 0 && i + k < cells.count { cells[i + k] = ch }
        }
        put(a, at: 0)
        if first != last && width >= a.count + b.count + 1 { put(b, at: width - b.count) }
        if width >= 3 * a.count + 4 {
            let mid = first.adding(first.days(to: last) / 2)
            put(label(mid), at: width / 2 - a.count / 2)
        }
        return String(repeating: " ", count: left) + String(cells)
    }

    /// Legend items two spaces apart, wrapped at `width` into at most `maxLines` lines
    /// (items that do not fit then are left out).
    static func legendLines(_ items: [String], width: Int, maxLines: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for item in items {
            if line.isEmpty { line = item; continue }
            if TextWidth.of(line) + 2 + TextWidth.of(item) <= width { line += "  " + item; continue }
            lines.append(line)
            line = item
            if lines.count == maxLines { return lines }
        }
        if !line.isEmpty && TextWidth.of(line) <= width { lines.append(line) }
        return lines
    }

    static func trimmed(_ s: String) -> String {
        var s = s
        while s.last == " " { s.removeLast() }
        return s
    }
}
