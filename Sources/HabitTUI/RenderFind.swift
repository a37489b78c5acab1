import HabitCore

// MARK: Find and the palette

/// The filter of the screen shown (the help's, or the habits'), nil on a screen without one.
func shownFilter(_ state: AppState) -> String? {
    if state.screen.isHelp { return state.helpFilter }
    switch state.screen {
    case .today, .week, .overview: return state.filter
    default: return nil
    }
}

/// How many habits the filter leaves on the screen shown ("2 habits"), nil on the help.
func filterCount(_ state: AppState) -> String? {
    switch state.screen {
    case .today: Plural.count(state.rows.count, "habit")
    case .week: Plural.count(state.weekHabits.count, "habit")
    case .overview: Plural.count(overviewLayout(state).count, "habit")
    default: nil
    }
}

/// The message line of a filter: while `/` is typed, the prompt ("find: rea_  2 habits ·
/// enter keeps · esc clears"), the end of the text shown when it is long; once kept, what it
/// is ("filter 'rea' · 2 habits · / changes it · esc clears it"). The keys named are the key
/// map's; the hints give way to the text. False (nothing drawn) without a filter.
@discardableResult
func filterLine(_ b: inout ScreenBuffer, _ state: AppState, y: Int) -> Bool {
    guard let text = shownFilter(state) else { return false }
    let typing = state.overlay == .filter
    guard typing || !text.isEmpty else { return false }
    let map = state.keyMap, sep = " \(state.glyphs.separator) ", help = state.screen.isHelp
    let screenMode: Mode = help ? .help : state.screen == .today ? .today : state.screen == .week ? .week : .overview
    func hint(_ key: String?, _ words: String) -> String? { key.map { "\($0) \(words)" } }
    let hints: [String]
    if typing {
        hints = [hint(map.keyName(.submit, in: .filter), "keeps"), hint(map.keyName(.cancel, in: .filter), "clears")].compactMap { $0 }
    } else {
        let clears = map.keyName(screenMode == .today ? .clearFilter : .back, in: screenMode)
        hints = [hint(map.keyName(.filter, in: screenMode), "changes it"), hint(clears, "clears it")].compactMap { $0 }
    }
    let tailParts = [filterCount(state)].compactMap { $0 } + hints
    // The longest tail that fits: every part, then fewer from the end.
    func tailText(_ n: Int) -> String { tailParts.prefix(n).map { sep + $0 }.joined() }
    let shown = Sanitize.display(text)
    if typing {
        var x = 1 + b.put(help ? "find keys: " : "find: ", x: 1, y: y, role: .accent)
        let room = state.width - 1 - x
        let n = (0...tailParts.count).reversed().first { TextWidth.of(shown) + 1 + TextWidth.of(tailText($0)) <= room } ?? 0
        x += b.put(tail(shown, room - TextWidth.of(tailText(n)) - 1) + "_", x: x, y: y, role: .selection)
        b.put(tailText(n), x: x, y: y, role: .dim, limit: max(0, state.width - 1 - x))
        return true
    }
    let head = (help ? "keys with '" : "filter '") + shown + "'"
    let room = state.width - 2
    let n = (0...tailParts.count).reversed().first { TextWidth.of(head) + TextWidth.of(tailText($0)) <= room } ?? 0
    let x = 1 + b.put(TextWidth.of(head) > room ? TextWidth.fit(head, room) : head, x: 1, y: y, role: .accent)
    b.put(tailText(n), x: x, y: y, role: .dim, limit: max(0, state.width - 1 - x))
    return true
}

/// "No habits match 'xyz'": what a screen the filter emptied says (with the key that clears it).
func noMatch(_ state: AppState, mode: Mode) -> String {
    let key = state.keyMap.keyName(mode == .today ? .clearFilter : .back, in: mode)
    return "No habits match '\(Sanitize.display(state.filter))'" + (key.map { ": \($0) clears the filter" } ?? "")
}

/// The palette: a box over the screen (above the status bar) with the query on its first
/// row and the actions found under it, best first, each with its keys; the selected one
/// marked, the list scrolled to keep it in view, "1-4 of 40" in the frame when not all fit.
func paletteBox(_ b: inout ScreenBuffer, _ state: AppState, _ p: Palette) {
    let entries = p.entries(state.keyMap, archived: state.selectedIsArchived)
    // As tall as every action of the mode needs (up to 14 rows of them), so that it keeps its
    // size as the list narrows; at most down to the message line.
    let all = Palette(from: p.from).entries(state.keyMap).count
    let w = min(state.width - 2, 64), h = min(state.height - 3, 3 + min(14, max(1, all)))
    let x0 = (state.width - w) / 2, y0 = 1
    boxFrame(&b, state, x: x0, y: y0, width: w, height: h)
    let title = [" Actions \(state.glyphs.separator) \(modeTitle(p.from)) ", " Actions "].first { TextWidth.of($0) <= w - 4 } ?? ""
    b.put(title, x: x0 + 2, y: y0, role: .title)
    let inner = w - 4
    var x = x0 + 2 + b.put(": ", x: x0 + 2, y: y0 + 1, role: .accent)
    x += b.put(tail(Sanitize.display(p.query), inner - 3) + "_", x: x, y: y0 + 1, role: .selection)
    let rows = max(1, h - 3)
    guard !entries.isEmpty else {
        b.put(TextWidth.fit("No action matches '\(Sanitize.display(p.query))'", inner), x: x0 + 2, y: y0 + 2, role: .dim)
        return
    }
    let index = min(p.index, entries.count - 1)
    let first = max(0, min(index - rows + 1, entries.count - rows))
    for (i, binding) in entries.enumerated().dropFirst(first).prefix(rows) {
        let y = y0 + 2 + i - first
        let keys = TextWidth.fit(binding.keys.map(\.description).joined(separator: " "), min(14, inner / 3))
        let kx = x0 + w - 2 - TextWidth.of(keys)
        b.put(i == index ? state.glyphs.selected : " ", x: x0 + 1, y: y, role: .accent)
        b.put(TextWidth.fit(binding.label(archived: state.selectedIsArchived), max(1, kx - x0 - 4)), x: x0 + 3, y: y, role: .normal)
        b.put(keys, x: kx, y: y, role: .key)
        if i == index { b.paint(x: x0 + 2, y: y, count: w - 3, role: .selection) }
    }
    if entries.count > rows {
        let range = " \(first + 1)-\(first + min(rows, entries.count - first)) of \(entries.count) "
        if TextWidth.of(range) <= w - 4 { b.put(range, x: x0 + w - 2 - TextWidth.of(range), y: y0 + h - 1, role: .dim) }
    }
}
