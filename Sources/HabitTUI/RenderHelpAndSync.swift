import Foundation
import HabitCore

// MARK: Help

/// The help text as lines: each mode's title, its bindings, a blank line (`archived`: the
/// selected habit is archived, which changes a few labels).
func helpLines(_ map: KeyMap, archived: Bool = false) -> [(text: String, label: String, isTitle: Bool)] {
    var lines: [(String, String, Bool)] = []
    for mode in Mode.allCases {
        let bindings = map.bindings(in: mode)
        guard !bindings.isEmpty else { continue }
        lines.append((modeTitle(mode), "", true))
        for b in bindings { lines.append((b.keys.map(\.description).joined(separator: " "), b.label(archived: archived), false)) }
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

func helpScreen(_ b: inout ScreenBuffer, _ state: AppState) {
    let layout = helpLayout(state)
    let page = min(state.helpPage, layout.pages - 1)
    b.put("Habitto", x: 1, y: 0, role: .title)
    var title = " · keys (set your own in the keys file of the config directory)"
    if layout.pages > 1 { title += "  page \(page + 1)/\(layout.pages), j/k turns" }
    b.put(title, x: 8, y: 0, role: .dim)
    let lines = helpLines(state.keyMap, archived: state.selectedIsArchived)
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

func syncScreen(_ b: inout ScreenBuffer, _ state: AppState) {
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

func modeTitle(_ mode: Mode) -> String {
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
