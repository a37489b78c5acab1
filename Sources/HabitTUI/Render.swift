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

func footer(_ b: inout ScreenBuffer, _ state: AppState) {
    let y = state.height - 1
    var entries = state.keyMap.footer(for: state.mode, archived: state.selectedIsArchived)
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

func messageLine(_ b: inout ScreenBuffer, _ state: AppState) {
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
        let habit = state.habits.habit(h)
        let name = habit.map { Sanitize.display($0.name) } ?? "it"
        let question = habit?.fields.archivedFrom != nil ? "Unarchive '\(name)'? y yes, n no"
                                                         : "Archive '\(name)'? Its history stays. y yes, n no"
        b.put(question, x: 1, y: y, role: .statusWarn)
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
func amountPrompt(_ b: inout ScreenBuffer, _ state: AppState, _ p: AmountPrompt, y: Int) {
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
