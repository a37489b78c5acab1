import FoundationEssentials
import HabitCore

// MARK: Help

/// One row of the help screen: a title, or a key column and a label column.
struct HelpLine: Hashable {
    var keys: String
    var label: String
    var isTitle: Bool
}

/// The help screen's column width and its key column's.
let helpColumnWidth = 38, helpKeyWidth = 13

/// The help text as rows: the legend of the glyphs (in the set in use), then each mode's
/// title, its bindings, a blank line. Keys and labels too long for their column wrap onto
/// more rows at spaces, so no word is cut.
/// `archived`: the selected habit is archived, which changes a few labels. `filter` (what
/// `/` typed on the help) keeps the symbols and keys whose words hold it (a binding's label
/// or command, or a key named exactly so), under their titles; none kept, one line says so.
func helpLines(_ map: KeyMap, _ g: Glyphs, archived: Bool = false, labelWidth: Int = helpColumnWidth - helpKeyWidth - 3,
               filter: String = "") -> [HelpLine] {
    var lines: [HelpLine] = []
    let query = filter.trimmingBlanks
    func kept(_ words: String...) -> Bool { query.isEmpty || words.contains { Find.contains($0, query) } }
    func kept(_ b: Binding) -> Bool {
        kept(b.label(archived: archived), b.command.rawValue) || b.keys.contains { $0.description == query }
    }
    func entry(_ keys: String, _ label: String) {
        let k = flow(keys.split(separator: " ").map { [Run(" " + $0, .key)] }, width: helpKeyWidth)
        let l = flow(label.split(separator: " ").map { [Run(" " + $0, .normal)] }, width: labelWidth)
        for i in 0..<max(k.count, l.count) {
            lines.append(HelpLine(keys: i < k.count ? k[i].map(\.text).joined() : "",
                                  label: i < l.count ? l[i].map(\.text).joined() : "", isTitle: false))
        }
    }
    let legend = g.legend.filter { kept($0.meaning) }
    if !legend.isEmpty {
        lines.append(HelpLine(keys: "What the symbols mean", label: "", isTitle: true))
        for item in legend { entry(item.glyph, item.meaning) }
        lines.append(HelpLine(keys: "", label: "", isTitle: false))
    }
    // Typed in a field rather than bound (they are text in the other fields).
    let kindKeys = "in the kind field: switch, build, limit"
    for mode in Mode.allCases {
        let bindings = map.bindings(in: mode).filter(kept)
        let extra = mode == .form && kept(kindKeys)
        guard !bindings.isEmpty || extra else { continue }
        lines.append(HelpLine(keys: modeTitle(mode), label: "", isTitle: true))
        for b in bindings { entry(b.keys.map(\.description).joined(separator: " "), b.label(archived: archived)) }
        if extra { entry("space b l", kindKeys) }
        lines.append(HelpLine(keys: "", label: "", isTitle: false))
    }
    if lines.isEmpty { lines.append(HelpLine(keys: "No keys match '\(Sanitize.display(query))'", label: "", isTitle: true)) }
    return lines
}

/// How the help screen is laid out: columns of `rows` lines, `columns` of them per page.
func helpLayout(_ state: AppState) -> (rows: Int, columns: Int, pages: Int) {
    let rows = max(1, state.height - 4 - 2 + 1)
    let columns = max(1, (state.width - 1) / helpColumnWidth)
    let total = helpLines(state.keyMap, state.glyphs, archived: state.selectedIsArchived, filter: state.helpFilter).count
    let pages = max(1, (total + rows * columns - 1) / (rows * columns))
    return (rows, columns, pages)
}

/// Opens the help on its first page (the legend of the glyphs); `esc` goes back to `mode`.
func openHelp(from mode: Mode, _ state: inout AppState) {
    state.screen = .help(from: mode)
    state.helpPage = 0
}

func helpScreen(_ b: inout ScreenBuffer, _ state: AppState) {
    let layout = helpLayout(state)
    let page = min(state.helpPage, layout.pages - 1)
    let x = 1 + b.put("Habitto", x: 1, y: 0, role: .title)
    // The longest title that fits whole.
    let pages = layout.pages > 1 ? ["  page \(page + 1)/\(layout.pages), j/k turns", "  \(page + 1)/\(layout.pages)"] : [""]
    let titles = [" · keys (set your own in the keys file of the config directory)", " · keys (your own: the keys file)", " · keys"]
    let title = titles.flatMap { t in pages.map { t + $0 } }.first { TextWidth.of($0) <= state.width - x - 1 } ?? ""
    b.put(title, x: x, y: 0, role: .dim)
    let lines = helpLines(state.keyMap, state.glyphs, archived: state.selectedIsArchived, filter: state.helpFilter)
    let perPage = layout.rows * layout.columns
    for (n, line) in lines.dropFirst(page * perPage).prefix(perPage).enumerated() {
        let x = 1 + (n / layout.rows) * helpColumnWidth
        let y = 2 + n % layout.rows
        if line.isTitle {
            b.put(line.keys, x: x, y: y, role: .header)
        } else {
            b.put(line.keys, x: x + 1, y: y, role: .key)
            b.put(line.label, x: x + helpKeyWidth + 2, y: y, role: .normal)
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
        // Wrapped at spaces (a continuation indented two more), so no word is cut.
        let rows = flow(text.split(separator: " ", omittingEmptySubsequences: false).enumerated().map { i, word in
            [Run((i > 0 ? " " : "") + word, role)]
        }, width: state.width - indent - 3)
        for (i, row) in (rows.isEmpty ? [[]] : rows).enumerated() {
            guard y <= bottom else { return }
            put(&b, row, x: indent + (i > 0 ? 2 : 0), y: y)
            y += 1
        }
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
        // Its newest change this device holds, then when its folder was last listed.
        let change = d.lastChange.map { "last change \(span(max(0, state.now.timeIntervalSince($0)))) ago · " } ?? "no change yet · "
        line("\(d.id.prefix(8))  \(change)seen \(span(state.now.timeIntervalSince(d.lastSeen))) ago\(skew)",
             d.aheadSeconds == nil ? .normal : .statusWarn, indent: 3)
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
    case .editFrom: "From today or from the start?"
    case .amount: "Amount prompt"
    case .note: "Note prompt"
    case .pause: "Pause prompt"
    case .catchUp: "Catching up"
    case .overview: "Overview of all habits"
    case .timer: "Timer"
    case .timerDuration: "Timer duration prompt"
    case .stopTimer: "Stop the timer?"
    case .filter: "Find prompt"
    case .palette: "Actions palette"
    }
}
