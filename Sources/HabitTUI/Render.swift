import FoundationEssentials
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
    case .overview: overviewScreen(&b, state)
    case .timer: timerScreen(&b, state)
    }
    statusBar(&b, state)
    messageLine(&b, state)
    footer(&b, state)
    if case .form(let form) = state.overlay { formBox(&b, state, form) }
    if case .editFrom(let form, _) = state.overlay { formBox(&b, state, form) }
    if case .palette(let palette) = state.overlay { paletteBox(&b, state, palette) }
    return b
}

// MARK: Pieces

func tooSmall(_ b: inout ScreenBuffer, _ state: AppState) {
    let x = state.glyphs.times
    let lines = ["Terminal too small", "need \(minimumWidth)\(x)\(minimumHeight), have \(state.width)\(x)\(state.height)", "q quits"]
    for (i, line) in lines.enumerated() {
        let y = max(0, state.height / 2 - 1) + i
        let w = TextWidth.of(line)
        b.put(line, x: max(0, (state.width - w) / 2), y: y, role: i == 0 ? .statusWarn : .dim)
    }
}

let weekdayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
let monthNames = ["January", "February", "March", "April", "May", "June", "July", "August",
                          "September", "October", "November", "December"]

func dateTitle(_ date: LocalDay, today: LocalDay) -> (String, String?) {
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

func header(_ b: inout ScreenBuffer, _ state: AppState) {
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

func statusBar(_ b: inout ScreenBuffer, _ state: AppState) {
    let y = state.height - 2
    b.paint(x: 0, y: y, count: state.width, role: .footer)
    let g = state.glyphs
    var x = 1
    let (icon, label, role) = syncSummary(state)
    let doneCount = state.dayDone, due = state.dayDue
    // The sync part has priority: the right part shortens, then goes, to make room for it.
    let syncWidth = TextWidth.of("\(icon) \(label)")
    var right = "\(doneCount)/\(due) done  \(g.separator)  theme \(state.themeName)"
    if syncWidth + TextWidth.of(right) + 4 > state.width - x { right = "\(doneCount)/\(due) done" }
    if syncWidth + TextWidth.of(right) + 4 > state.width - x && state.sync.lastError != nil { right = "" }
    let rightX = state.width - 1 - TextWidth.of(right)
    // The sync part first: without an error its last parts give way whole; an error is cut
    // with … to the room there is.
    var parts = label.components(separatedBy: " \(g.separator) ")
    while parts.count > 1 && state.sync.lastError == nil && TextWidth.of("\(icon) " + parts.joined(separator: " \(g.separator) ")) > rightX - x - 2 {
        parts.removeLast()
    }
    let sync = "\(icon) " + parts.joined(separator: " \(g.separator) ")
    x += b.put(TextWidth.of(sync) > rightX - x - 2 ? TextWidth.fit(sync, max(0, rightX - x - 2)) : sync, x: x, y: y, role: role)
    b.put(right, x: max(x + 2, rightX), y: y, role: .footer)
    // Where the data lives (or goes), in the room left (cut with … when long).
    let room = rightX - x - 4
    let place = state.sync.remote ?? state.location
    if room >= 12 { b.put("  " + TextWidth.fit(place, room).trimmingBlanks, x: x, y: y, role: .footer) }
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
    case .online: icon = g.syncSynced; role = .syncSynced; parts.append("online")
    case .offline: icon = g.syncPending; role = .statusWarn; parts.append("offline")
    case .unreachable:
        icon = g.syncFailed; role = .statusWarn; parts.append("unreachable")
        if let next = sync.nextRetryAt { parts.append("retry in \(span(next.timeIntervalSince(state.now)))") }
    case .failed: icon = g.syncFailed; role = .syncFailed; parts.append("sync failed")
    case .local: return (g.syncLocal, "local only", .syncLocal)
    }
    if sync.inFlight > 0 { parts.append("\(g.syncSyncing) syncing \(sync.inFlight)") }
    else if sync.pulling { parts.append("\(g.syncSyncing) pulling") }
    parts.append("queue \(sync.pending)")
    // When this device last heard from the remote: the end of its last round that reached it.
    if let last = sync.lastSyncAt { parts.append("checked \(span(max(0, state.now.timeIntervalSince(last)))) ago") }
    if let error = sync.lastError { parts.append(error) }
    else if !sync.remoteProblems.isEmpty { parts.append("remote entries skipped (y)") }
    return (icon, parts.joined(separator: " \(g.separator) "), role)
}

/// A habit's sync icon and role.
func syncIcon(_ id: HabitID, _ state: AppState) -> (String, Role) {
    let g = state.glyphs
    guard state.sync.remote != nil else { return (g.syncLocal, .syncLocal) }
    switch state.sync.habitStatus[id] {
    case .pending?: return (g.syncPending, .syncPending)
    case .syncing?: return (g.syncSyncing, .syncPending)
    case .failed?: return (g.syncFailed, .syncFailed)
    case nil: return (g.syncSynced, .syncSynced)
    }
}

/// Whether a footer key does something here: the help's previous page not on its first
/// page, its next page not on its last.
func footerApplies(_ command: Command, _ state: AppState) -> Bool {
    guard state.mode == .help, command == .moveUp || command == .moveDown else { return true }
    let layout = helpLayout(state), page = min(state.helpPage, layout.pages - 1)
    return command == .moveUp ? page > 0 : page < layout.pages - 1
}

func footer(_ b: inout ScreenBuffer, _ state: AppState) {
    let y = state.height - 1
    var entries = state.keyMap.footer(for: state.mode, archived: state.selectedIsArchived, applies: { footerApplies($0, state) })
    // The last entries (help, quit) always stay: drop from the middle when it is too narrow.
    // Each entry is "key label" and a gap of two; the last needs no gap after it.
    func width(_ e: [(key: String, label: String)]) -> Int { e.reduce(1 - 2) { $0 + TextWidth.of($1.key) + TextWidth.of($1.label) + 3 } }
    while entries.count > 2 && width(entries) > state.width { entries.remove(at: entries.count - 3) }
    var x = 1
    for (key, label) in entries {
        guard x + TextWidth.of(key) + TextWidth.of(label) + 1 <= state.width else { break }
        let start = x
        x += b.put(key, x: x, y: y, role: .key)
        x += b.put(" " + label + "  ", x: x, y: y, role: .footer)
        // A click on the entry presses its key.
        if let k = Key(name: key) { b.region(.key(k), x: start, y: y, width: x - start - 2) }
    }
}

/// The delete question in `width` columns: the longest wording that fits whole with the
/// name (cut with … only when even the shortest does not fit). Each says that y deletes.
func deleteQuestion(_ name: String, width: Int) -> String {
    let tails = ["' and all its history? Type y to delete (u undoes it), any other key keeps it",
                 "' and its history? y deletes (u undoes), other keys keep it",
                 "'? y deletes (u undoes), other keys keep it", "'? y deletes, other keys keep it", "'? y deletes it"]
    let tail = tails.first { TextWidth.of("Delete '" + name + $0) <= width } ?? tails[tails.count - 1]
    let room = max(1, width - TextWidth.of("Delete '" + tail))
    return "Delete '" + (TextWidth.of(name) <= room ? name : TextWidth.fit(name, room)) + tail
}

func messageLine(_ b: inout ScreenBuffer, _ state: AppState) {
    let y = state.height - 3
    switch state.overlay {
    case .rating(let h, _)?:
        // The question, then the answers that fit whole (the footer lists them too).
        let habit = state.habits.habit(h)
        let name = habit.map { Sanitize.display(state.label($0)) } ?? "it"
        let answers = state.keyMap.footer(for: .rating)
        let room = state.width - 2 - TextWidth.of("How hard was ? ")
        let all = answers.reduce(0) { $0 + TextWidth.of($1.key) + TextWidth.of($1.label) + 3 }
        let nameWidth = min(TextWidth.of(name), max(minimumNameWidth, room - all))
        let shown = habit.map { state.label($0, width: nameWidth) } ?? name
        var x = 1 + b.put("How hard was \(shown)? ", x: 1, y: y, role: .accent)
        for (key, label) in answers {
            guard x + TextWidth.of(key) + 1 + TextWidth.of(label) <= state.width - 1 else { break }
            x += b.put(key, x: x, y: y, role: .key)
            x += b.put(" \(label)  ", x: x, y: y, role: .normal)
        }
        return
    case .amount(let p)?:
        amountPrompt(&b, state, p, y: y)
        return
    case .note(let p)?:
        notePrompt(&b, state, p, y: y)
        return
    case .pause(let p)?:
        pausePrompt(&b, state, p, y: y)
        return
    case .timerDuration(let p)?:
        timerPrompt(&b, state, p, y: y)
        return
    case .stopTimer?:
        b.put(stopTimerQuestion(state), x: 1, y: y, role: .statusWarn, limit: state.width - 2)
        return
    case .filter?:
        filterLine(&b, state, y: y)
        return
    case .palette?:
        return
    case .confirmArchive(let h)?:
        let habit = state.habits.habit(h)
        let name = habit.map { Sanitize.display(state.label($0)) } ?? "it"
        let question = habit?.fields.archivedFrom != nil ? "Unarchive '\(name)'? y yes, n no"
                                                         : "Archive '\(name)'? Its history stays. y yes, n no"
        b.put(question, x: 1, y: y, role: .statusWarn)
        return
    case .editFrom(let form, let fields)?:
        b.put(editFromQuestion(state, form, fields), x: 1, y: y, role: .statusWarn, limit: state.width - 2)
        return
    case .confirmDelete(let h)?:
        b.put(deleteQuestion(state.habits.habit(h).map { Sanitize.display(state.label($0)) } ?? "it", width: state.width - 2),
              x: 1, y: y, role: .statusError)
        return
    default:
        break
    }
    guard let m = state.message else {
        if filterLine(&b, state, y: y) { return }
        if state.screen == .today, let hint = catchUpHint(state.missed, today: state.today, width: state.width - 2,
                                                                   separator: state.glyphs.separator) {
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

/// "Drink water: add  3_ glasses  -2 takes back, =8 sets the total": the name gives way
/// (cut with `…`) to the typed amount and its unit; the hint shows when it fits whole; an
/// error always shows, on the message line with the prompt moved above it when both do not fit.
func amountPrompt(_ b: inout ScreenBuffer, _ state: AppState, _ p: AmountPrompt, y: Int) {
    guard let habit = state.habits.habit(p.habit) else { return }
    let on = p.day == state.today ? "" : " on \(p.day)"
    let name = Sanitize.display(state.label(habit))
    let unit = habit.fields.unit.map { " " + TextWidth.fit(Sanitize.display($0), min(12, TextWidth.of($0))) } ?? ""
    let room = state.width - 2 - TextWidth.of("\(on): add  \(p.text)_\(unit)")
    let hint = "  " + (p.error ?? "-2 takes back, =8 sets the total")
    let promptWidth = TextWidth.of("\(on): add  \(p.text)_\(unit)") + min(TextWidth.of(name), max(minimumNameWidth, room))
    var errorLines: [String] = []
    if let error = p.error, promptWidth + TextWidth.of(hint) > state.width - 2 {
        errorLines = messageLines(error, width: state.width - 2)
    }
    let py = y - errorLines.count
    var x = 1 + b.put("\(state.label(habit, width: min(TextWidth.of(name), max(minimumNameWidth, room))))\(on): add  ",
                      x: 1, y: py, role: .accent)
    x += b.put(p.text + "_", x: x, y: py, role: .selection)
    x += b.put(unit, x: x, y: py, role: .normal, limit: max(0, state.width - x - 1))
    if errorLines.isEmpty && TextWidth.of(hint) <= state.width - 1 - x {
        b.put(hint, x: x, y: py, role: p.error == nil ? .dim : .statusError)
    }
    for (i, line) in errorLines.enumerated() {
        b.put(String(repeating: " ", count: state.width), x: 0, y: py + 1 + i, role: .normal)
        b.put(line, x: 1, y: py + 1 + i, role: .statusError)
    }
}

/// "Read on 2026-11-20, note: Felt good_  enter saves · empty clears · esc cancels": the end
/// of the note is shown when it is longer than the line (typing happens there).
func notePrompt(_ b: inout ScreenBuffer, _ state: AppState, _ p: NotePrompt, y: Int) {
    guard let habit = state.habits.habit(p.habit) else { return }
    let on = p.day == state.today ? "" : " on \(p.day)"
    // The habit and the day when they fit a third of the line (the screen shows them too).
    let name = Sanitize.display(state.label(habit))
    let label = ["\(name)\(on), note: ", "\(name), note: ", "Note: "].first { TextWidth.of($0) <= state.width / 3 } ?? "Note: "
    var x = 1 + b.put(label, x: 1, y: y, role: .accent)
    let hint = p.error ?? "enter saves \(state.glyphs.separator) empty clears \(state.glyphs.separator) esc cancels"
    // The hint gets the room the note leaves, but the note keeps at least half the line.
    let room = state.width - 1 - x
    let hintWidth = min(TextWidth.of(hint) + 2, max(0, room - max(room / 2, TextWidth.of(oneLine(p.text)) + 1)))
    x += b.put(tail(oneLine(p.text), room - hintWidth - 1) + "_", x: x, y: y, role: .selection)
    if hintWidth > 2 {
        b.put(TextWidth.fit("  " + hint, max(0, state.width - x - 1)), x: x, y: y, role: p.error == nil ? .dim : .statusError)
    }
}

/// "Read: pause 2026-12-06 +7_  first last [reason] · end ends it · esc cancels": the end of
/// the text is shown when it is longer than the line.
func pausePrompt(_ b: inout ScreenBuffer, _ state: AppState, _ p: PausePrompt, y: Int) {
    guard let habit = state.habits.habit(p.habit) else { return }
    let name = Sanitize.display(state.label(habit))
    let label = ["\(name): pause ", "Pause "].first { TextWidth.of($0) <= state.width / 3 } ?? "Pause "
    var x = 1 + b.put(label, x: 1, y: y, role: .accent)
    let sep = state.glyphs.separator
    let hint = p.error ?? "first last [reason] \(sep) end ends it \(sep) esc cancels"
    let room = state.width - 1 - x
    let text = Sanitize.display(p.text)
    let hintWidth = min(TextWidth.of(hint) + 2, max(0, room - max(room / 2, TextWidth.of(text) + 1)))
    x += b.put(tail(text, room - hintWidth - 1) + "_", x: x, y: y, role: .selection)
    if hintWidth > 2 {
        b.put(TextWidth.fit("  " + hint, max(0, state.width - x - 1)), x: x, y: y, role: p.error == nil ? .dim : .statusError)
    }
}

/// A note on one line: sanitised (`Sanitize.display`), line breaks shown as ` / `.
func oneLine(_ note: String) -> String {
    Sanitize.display(note.replacingAll("\r\n", with: "\n").replacingAll("\n", with: " / "))
}

/// The end of `s` that fits in `width` columns, with `…` in front when cut.
func tail(_ s: String, _ width: Int) -> String {
    guard TextWidth.of(s) > width else { return s }
    guard width > 1 else { return "" }
    var out = "", used = 1
    for ch in s.reversed() {
        let w = TextWidth.of(ch)
        if used + w > width { break }
        out.insert(ch, at: out.startIndex)
        used += w
    }
    return "…" + out
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
        lines[2] = TextWidth.fit(lines[2] + " …", width).trimmingBlanks
    }
    return lines.map { TextWidth.of($0) > width ? TextWidth.fit($0, width) : $0 }
}

// MARK: Wrapping

/// A piece of text in one role.
struct Run: Hashable {
    var text: String
    var role: Role
    init(_ text: String, _ role: Role) { self.text = text; self.role = role }
}

/// Lays phrases out in rows of at most `width` cells. A phrase (its runs) is kept whole on
/// one row when it fits, else its words are; the leading spaces (and separator) of a phrase
/// that starts a row are dropped. Only a single word wider than a row is cut, with `…`.
func flow(_ phrases: [[Run]], width: Int) -> [[Run]] {
    var rows: [[Run]] = [], row: [Run] = [], used = 0
    func w(_ p: [Run]) -> Int { p.reduce(0) { $0 + TextWidth.of($1.text) } }
    func trimmedLead(_ p: [Run]) -> [Run] {
        // The spaces and the separator (`·`, `|`) that lead a phrase go when it starts a row
        // (a separator alone only on a row after the first: on the first it may be a glyph).
        var p = p
        while let first = p.first {
            var t = Substring(first.text).drop { $0 == " " }
            if let sep = t.first, sep == "·" || sep == "|", t.dropFirst().first == " " || (t.count == 1 && !rows.isEmpty) {
                t = t.dropFirst().drop { $0 == " " }
            }
            if t.isEmpty { p.removeFirst() } else { p[0].text = String(t); break }
        }
        return p
    }
    func place(_ p: [Run]) {
        let pw = w(p)
        if used > 0 && used + pw <= width { row += p; used += pw; return }
        let start = trimmedLead(p)
        if used > 0 { rows.append(row); row = []; used = 0 }
        let sw = w(start)
        if sw <= width { row = start; used = sw; return }
        // Wider than a row: word by word.
        for word in words(start) {
            let ww = w(word)
            if used > 0 && used + ww <= width { row += word; used += ww; continue }
            if used > 0 { rows.append(row); row = []; used = 0 }
            let bare = trimmedLead(word)
            if w(bare) <= width { row = bare; used = w(bare) } else {
                row = [Run(TextWidth.fit(bare.map(\.text).joined(), width), bare.first?.role ?? .normal)]; used = width
            }
        }
    }
    for p in phrases where !p.isEmpty { place(p) }
    if !row.isEmpty { rows.append(row) }
    return rows
}

/// A phrase cut into words, each keeping its leading space.
private func words(_ p: [Run]) -> [[Run]] {
    var out: [[Run]] = [], word: [Run] = []
    for run in p {
        var current = ""
        for ch in run.text {
            if ch == " " && !current.trimmingBlanks.isEmpty {
                word.append(Run(current, run.role)); out.append(word); word = []; current = ""
            }
            current.append(ch)
        }
        if !current.isEmpty { word.append(Run(current, run.role)) }
    }
    if !word.isEmpty { out.append(word) }
    return out
}

/// Draws one row of runs from `x`.
func put(_ b: inout ScreenBuffer, _ runs: [Run], x: Int, y: Int) {
    var x = x
    for r in runs { x += b.put(r.text, x: x, y: y, role: r.role) }
}
