import FoundationEssentials
import HabitCore
import HabitStore
import HabitTUI
#if canImport(Glibc)
import Glibc
import HabitSys
#endif

/// Text and JSON output of the commands. Every line of text goes through `Sanitize.display`
/// here, so no value from outside (a name, a path, a remote's answer) can reach the terminal
/// as an escape sequence, whichever message quotes it. `raw` is for documents (JSON, CSV,
/// help), which escape or validate what they hold.
public enum Output {
    /// ASCII output (`--ascii`, or a non-UTF-8 locale; see `ASCIIText.wanted`): set once at start.
    nonisolated(unsafe) static var ascii = false

    public static func line(_ s: String) { raw(lineText(s)) }

    /// A line as `line` prints it: each part made safe, folded to ASCII when asked, with its newline.
    static func lineText(_ s: String) -> String {
        // A plain loop: the generic `joined` made every command's first line pay the
        // runtime's lookup of its associated types.
        var out = "", first = true
        for part in s.split(separator: "\n", omittingEmptySubsequences: false) {
            if !first { out += "\n" }
            first = false
            out += Sanitize.display(String(part))
        }
        out += "\n"
        return ascii ? ASCIIText.fold(out) : out
    }
    /// Text for the terminal that is already safe (help, prompts): folded to ASCII when asked.
    static func text(_ s: String) { raw(ascii ? ASCIIText.fold(s) : s) }
    /// Where output goes instead of the process's standard output and error (a command run
    /// in process by the tests); nil: the process's.
    nonisolated(unsafe) static var capture: Capture?

    /// Output kept in memory: what a command run in process printed.
    final class Capture: @unchecked Sendable {
        private let lock = Lock()
        private var out = "", err = ""
        var stdout: String { lock.lock(); defer { lock.unlock() }; return out }
        var stderr: String { lock.lock(); defer { lock.unlock() }; return err }
        func write(_ s: String, error: Bool) { lock.lock(); if error { err += s } else { out += s }; lock.unlock() }
    }

    /// Sends what was written to standard output on now (a status bar reads each line as it
    /// comes); false when it can no longer be written (the reader went away).
    static func flush() -> Bool { capture != nil || fflush(nil) == 0 }

    /// Documents (JSON, CSV), written as they are.
    static func raw(_ s: String) {
        if let capture { capture.write(s, error: false) } else { print(s, terminator: "") }
    }
    /// A habit's icon and a space, or nothing (no icons in ASCII output).
    static func icon(_ h: Habit) -> String { ascii ? "" : h.fields.icon.map { Sanitize.display($0) + " " } ?? "" }
    /// One line on standard error (a newline inside it is shown as U+FFFD).
    static func err(_ s: String) {
        let shown = Sanitize.display(s)
        let text = (ascii ? ASCIIText.fold(shown) : shown) + "\n"
        if let capture { capture.write(text, error: true); return }
        let bytes = Array(text.utf8)
        var done = 0
        while done < bytes.count {
            let n = try? bytes[done...].withUnsafeBytes { raw in try sysCall("write") { Glibc.write(2, raw.baseAddress, raw.count) } }
            guard let n, n > 0 else { break }
            done += n
        }
    }
    /// A warning on standard error, after "habitto: ".
    public static func warn(_ s: String) { err("habitto: " + s) }
    /// A `Warning`, as "habitto: warning: …".
    public static func warn(_ w: Warning) { warn(w.description) }

    static func title(_ h: Habit) -> String { "'\(Sanitize.display(h.name))'" }

    static func describeGoal(_ h: Habit) -> String {
        let unit = h.fields.unit.map { " " + Sanitize.display($0) } ?? ""
        return h.kind == .build ? "at least \(Amount.format(h.goal))\(unit) a day" : "at most \(Amount.format(h.goal))\(unit) a day"
    }

    static func difficultyName(_ v: Int) -> String { Wording.difficultyName(v) }

    static func progressText(_ s: DayLine) -> String { Wording.progress(s, atMost: glyphs.atMost) }

    /// What an intent did, in the one wording (`Outcome.sentence`) with this output's glyphs.
    static func says(_ outcome: Outcome) -> String { outcome.sentence(mark: glyph, atMost: glyphs.atMost) }

    /// `list`'s progress: the day's (`5/8 glasses`), and for an N-per-week habit the week's
    /// successes through the day over what the week asks for (`1/3 this wk`).
    static func listProgressText(_ s: HabitSummary) -> String {
        guard let done = s.weekDone, let quota = s.weekQuota else { return progressText(s.line) }
        let week = "\(done)/\(quota) this \(s.periodAbbreviation)"
        return s.habit.isYesNo ? week : "\(progressText(s.line)), \(week)"
    }

    /// The state glyph: done, partly done, not yet, answered not done, limit exceeded, skipped, paused.
    static func glyph(_ s: DayLine) -> String {
        if s.isBeforeStart { return glyphs.unscheduled }
        if s.paused { return glyphs.paused }
        if s.skipped { return glyphs.skipped }
        if s.exceeded { return glyphs.exceeded }
        if s.habit.kind == .limit || s.completed { return glyphs.done }
        if s.progress > 0 { return glyphs.partial }
        return s.notDone ? glyphs.notDone : glyphs.notYet
    }

    /// The glyph set of the output (the UI's, so both read the same).
    static var glyphs: Glyphs { ascii ? .ascii : .unicode }

    /// A value from outside, safe to print and, in ASCII output, folded to ASCII (so columns
    /// are measured as they will print).
    static func shown(_ s: String) -> String { ascii ? ASCIIText.fold(Sanitize.display(s)) : Sanitize.display(s) }

    static func dayLabel(_ date: LocalDay, today: LocalDay) -> String {
        let names = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
        let name = names[date.weekday.rawValue - 1]
        switch date.days(to: today) {
        case 0: return "Today, \(name) \(date)"
        case 1: return "Yesterday, \(name) \(date)"
        case ..<0: return "\(name) \(date) (in \(Plural.count(today.days(to: date), "day")); figures as of today)"
        default: return "\(name) \(date) (not today)"
        }
    }

    /// The list's first line: the day, then the level and XP as of that day (`stats` are
    /// computed with the day as today; a past day has ended, so what it would add as it
    /// stands, the provisional XP, is what it added).
    static func header(date: LocalDay, today: LocalDay, stats: Stats) -> String {
        let past = date < today
        let level = past ? LevelInfo(xp: stats.xp + stats.xpProvisional) : stats.level
        let earned = stats.xpToday + (past ? stats.xpProvisional : 0)
        return "\(dayLabel(date, today: today)) · level \(level.level) · \(level.xpIntoLevel)/\(level.xpForNextLevel) XP · "
            + "+\(earned) XP \(past ? "that day" : "today")"
            + (!past && stats.xpProvisional > 0 ? " (+\(stats.xpProvisional) provisional)" : "")
    }

    static func checkLine(_ s: DayLine, today: LocalDay) -> String {
        Wording.day(s, today: today, mark: glyph(s), atMost: glyphs.atMost)
    }

    static func strengthText(_ v: Double) -> String { "\(Int((v * 100).rounded()))%" }

    /// The list's rows; a habit that shares its name with another is named with the id prefix
    /// that picks it (`Walk #1a2b`, from `tags`, see `Edits.namesakeTags`).
    static func table(_ rows: [HabitSummary], tags: [HabitID: String] = [:]) -> [String] {
        func named(_ h: Habit) -> String { shown(Edits.label(h, tags: tags)) }
        let nameWidth = min(32, max(8, rows.map { TextWidth.of(named($0.habit)) }.max() ?? 8))
        let progressWidth = max(8, rows.map { TextWidth.of(shown(listProgressText($0))) }.max() ?? 8)
        return rows.map { s in
            let icon = ascii ? "" : (s.habit.fields.icon.map { TextWidth.fit(Sanitize.display($0), 2) } ?? "  ") + " "
            // A cut name's … is one column in ASCII too (the line's fold would spell it "...").
            let name = TextWidth.fit(named(s.habit), nameWidth)
            var line = "\(glyph(s.line)) \(icon)\(ascii ? name.replacingAll("…", with: ".") : name)  "
            // A day before the start: nothing is judged, so no figures (`list --all --date`).
            if s.line.isBeforeStart { return (line + "not started (starts \(s.habit.startDate))").trimmingTrailingWhitespace }
            line += TextWidth.fit(shown(listProgressText(s)), progressWidth)
            line += "  streak " + TextWidth.fit("\(s.streak) \(s.line.streakAbbreviation)", 6)
            line += "  strength " + TextWidth.fit(strengthText(s.strength), 4)
            line += s.difficulty.map { "  difficulty \($0)" } ?? ""
            if s.habit.fields.archivedFrom.map({ $0 <= s.day }) == true { line += "  (archived)" }
            return line.trimmingTrailingWhitespace
        }
    }

    static func json(_ s: HabitSummary) -> JSON {
        var o = Export.fields(s.habit)
        o["reminders"] = .array(s.habit.fields.reminders.map { .string($0.description) })
        o.removeValue(forKey: "notes")
        o.removeValue(forKey: "color")
        o["date"] = .string(s.day.description)
        o["archived"] = .bool(s.habit.fields.archivedFrom.map { $0 <= s.day } ?? false)
        o["scheduled"] = .bool(s.scheduled)
        o["progress"] = .amount(s.progress)
        o["completed"] = .bool(s.completed)
        o["exceeded"] = .bool(s.exceeded)
        o["skipped"] = .bool(s.skipped)
        o["notDone"] = .bool(s.notDone)
        o["paused"] = .bool(s.paused)
        o["difficulty"] = .optional(s.difficulty)
        o["streak"] = .int(s.streak)
        o["bestStreak"] = .int(s.bestStreak)
        o["streakUnit"] = .string(s.streakUnit)
        o["strength"] = .double(JSON.rounded(s.strength, 6))
        o["weekDone"] = .optional(s.weekDone)
        o["weekQuota"] = .optional(s.weekQuota)
        o["syncStatus"] = .string("local")
        return .object(o)
    }

    static func showText(_ s: HabitSummary, history: [DaySummary], checkIns: (days: Int, amount: Int), beforeStart: Int = 0,
                         avg7: Double?, avg30: Double?, today: LocalDay) -> [String] {
        let h = s.habit
        var lines = ["\(icon(h))\(Sanitize.display(h.name))  (id \(h.id))"]
        lines.append("  \(h.kind.rawValue) habit, \(describeGoal(h)), \(h.schedule), since \(h.startDate)"
                     + (h.fields.archivedFrom.map { ", archived from \($0)" } ?? ""))
        lines.append("  today: \(progressText(s.line))\(s.paused ? " (paused)" : s.skipped ? " (skipped)" : s.notDone ? " (answered not done)" : "") · streak \(s.line.streakText), best \(s.bestStreak) · strength \(strengthText(s.strength))")
        func avg(_ v: Double?) -> String { v.map { Format.fixed($0, places: 1) } ?? "–" }
        // Days, and for a habit with an amount the amount in its own unit (never added to others').
        let amount = h.isYesNo ? "" : ", \(Amount.format(checkIns.amount))\(h.fields.unit.map { " " + Sanitize.display($0) } ?? "") in all"
        lines.append("  check-ins: \(Plural.count(checkIns.days, "day"))\(amount)"
                     + (beforeStart > 0 ? " (and \(Plural.count(beforeStart, "day")) before the start, not counted)" : ""))
        lines.append("  difficulty: last 7 rated days \(avg(avg7)), last 30 \(avg(avg30))")
        if let group = h.fields.group { lines.append("  group: " + Sanitize.display(group)) }
        if !h.fields.reminders.isEmpty { lines.append("  reminders: " + h.fields.reminders.map(\.description).joined(separator: ", ")) }
        if let notes = h.fields.notes { lines.append("  notes: " + Sanitize.display(notes.replacingAll("\n", with: " / "))) }
        let recent = history.suffix(28)
        if !recent.isEmpty {
            // The graph's marks: a miss and a day not due apart; today, while open, blank.
            let g = glyphs, states = ChartGlyphs.of(ascii: ascii).states
            func mark(_ d: DaySummary) -> String {
                if d.paused { return g.paused }
                if d.skipped { return g.skipped }
                if d.exceeded { return g.exceeded }
                if d.completed && (d.progress > 0 || h.kind == .limit) { return g.done }
                if d.progress > 0 { return g.partial }
                if d.notDone { return g.notDone }
                if d.missed { return states[.missed] ?? "x" }
                return d.day == today && d.scheduled ? " " : states[.notDue] ?? "."
            }
            let marks = recent.map(mark)
            lines.append("  last \(Plural.count(recent.count, "day")) (oldest first): " + marks.joined())
            lines.append("    \(g.done) done  \(g.partial) partly  \(states[.missed] ?? "x") missed  \(states[.notDue] ?? ".") not due  "
                         + "\(g.exceeded) over the limit  \(g.skipped) skipped")
            // A day answered not done is rare: its legend, on a line of its own (the first
            // would pass 80 columns), only where the graph shows one.
            if marks.contains(g.notDone) { lines.append("    \(g.notDone) answered not done") }
            if marks.contains(g.paused) { lines.append("    \(g.paused) paused") }
        }
        return lines
    }
}

