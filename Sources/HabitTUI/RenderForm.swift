import FoundationEssentials
import HabitCore

// MARK: Form

/// A box's frame (lines, or `+-|` in ASCII), the rows it stands on cleared whole first so
/// that nothing of the screen below shows beside it.
func boxFrame(_ b: inout ScreenBuffer, _ state: AppState, x x0: Int, y y0: Int, width w: Int, height h: Int) {
    for y in y0..<(y0 + h) {
        b.put(String(repeating: " ", count: state.width), x: 0, y: y, role: .normal)
    }
    let border = state.glyphs.showsIcons ? ("┌", "┐", "└", "┘", "─", "│") : ("+", "+", "+", "+", "-", "|")
    b.put(border.0 + String(repeating: border.4, count: w - 2) + border.1, x: x0, y: y0, role: .accent)
    b.put(border.2 + String(repeating: border.4, count: w - 2) + border.3, x: x0, y: y0 + h - 1, role: .accent)
    for y in (y0 + 1)..<(y0 + h - 1) {
        b.put(border.5, x: x0, y: y, role: .accent)
        b.put(border.5, x: x0 + w - 1, y: y, role: .accent)
    }
}

func formBox(_ b: inout ScreenBuffer, _ state: AppState, _ form: HabitForm) {
    let fields = HabitForm.Field.allCases
    let w = min(state.width - 2, 76)
    // Each field with its hint under it when there is room; else a line a field, with the
    // focused field's hint under it, or at the bottom when even that does not fit.
    let full = fields.count * 2 + 4, oneHint = fields.count + 5
    let h = full <= state.height - 2 ? full : min(state.height - 2, oneHint)
    let x0 = (state.width - w) / 2, y0 = max(0, (state.height - h) / 2 - 1)
    boxFrame(&b, state, x: x0, y: y0, width: w, height: h)
    b.put(form.editing == nil ? " New habit " : " Edit habit ", x: x0 + 2, y: y0, role: .title)
    let compact = h < full
    let inner = w - 4
    // The bottom of the box: the question before discarding, the form's error, or (when
    // compact) the focused field's problem, else the keys; wrapped onto as many lines as it
    // takes (leaving the focused field's row), never cut.
    let focusProblem = form.problem(form.focus, in: state.habits)
    let bottomText = form.asksDiscard ? "Discard the changes? y yes, n no" : form.formError ?? (compact ? focusProblem : nil)
    // A value the next key replaces says so where the keys are.
    let hints = form.showsReplaceable
        ? ["typing replaces it · backspace edits it · enter saves · esc cancels", "typing replaces · backspace edits"]
        : ["enter saves · tab next field · esc cancels", "enter saves · esc cancels"]
    let role: Role = form.asksDiscard ? .statusWarn : .statusError
    let bottomLines = bottomText.map { wrappedKeepingTheEnd($0, role: role, width: inner, lines: max(2, h - 3)) }
        ?? [[Run(hints.first { TextWidth.of($0) <= inner } ?? hints[hints.count - 1], .dim)]]
    let valueX = x0 + 19
    let labelWidth = valueX - x0 - 4
    // Compact: one row a field, scrolled so the focused one shows.
    let rows = max(1, h - 2 - bottomLines.count)
    let focusIndex = fields.firstIndex(of: form.focus) ?? 0
    let firstField = compact ? max(0, min(focusIndex - rows + 1, fields.count - rows)) : 0
    var y = y0 + 1
    for field in fields.dropFirst(firstField) {
        guard y < y0 + 1 + rows else { break }
        let focused = field == form.focus
        let label = TextWidth.fit(form.label(field), labelWidth)
        b.put(focused ? state.glyphs.selected : " ", x: x0 + 1, y: y, role: .accent)
        b.put(label, x: x0 + 3, y: y, role: focused ? .header : .dim)
        // Line breaks (in the notes) show as " / ".
        // A value the next key replaces shows selected, without the cursor after it ("daily");
        // one being typed shows the cursor ("dai_").
        let replaceable = focused && form.showsReplaceable
        let value = oneLine(form.text(field)) + (focused && field != .kind && !replaceable ? "_" : "")
        let room = x0 + w - 2 - valueX
        // A long value shows its end (where the typing is).
        let shownValue = TextWidth.of(value) > room ? "…" + String(value.suffix(max(0, room - 1))) : value
        b.put(shownValue, x: valueX, y: y, role: focused ? .selection : .normal, limit: room)
        let problem = form.problem(field, in: state.habits)
        if !compact {
            y += 1
            let note = problem ?? (focused ? field.hint : "")
            // Whole words; "…" says there is more (the bottom line says it all on a compact form).
            let words = note.split(separator: " ").map { [Run(" " + $0, problem == nil ? .dim : .statusError)] }
            let whole = flow(words, width: room), cut = flow(words, width: room - 2)
            if whole.count == 1 { put(&b, whole[0], x: valueX, y: y) }
            else if let line = cut.first { put(&b, line + [Run(" …", .dim)], x: valueX, y: y) }
        } else if problem != nil && !focused {
            // Another field's problem is marked; the bottom line says it when that field is focused.
            b.put("!", x: x0 + 2, y: y, role: .statusError)
        }
        y += 1
    }
    for (i, line) in bottomLines.enumerated() {
        put(&b, line, x: x0 + 2, y: y0 + h - 1 - bottomLines.count + i)
    }
}

/// `text` wrapped at spaces to `width`, in at most `lines` rows. When it takes more, its
/// first row and its end (where a message says what to do) show, with `…` where words were
/// left out.
func wrappedKeepingTheEnd(_ text: String, role: Role, width: Int, lines: Int) -> [[Run]] {
    let words = text.split(separator: " ").map { [Run(" " + $0, role)] }
    let all = flow(words, width: width)
    guard all.count > lines, lines >= 2 else { return Array(all.prefix(lines)) }
    // The end: as many last words as fill the rows after the first, after a "…".
    var tail: [[Run]] = []
    for count in 1...words.count {
        let rows = flow([[Run(" …", .dim)]] + words.suffix(count), width: width)
        guard rows.count <= lines - 1 else { break }
        tail = rows
    }
    return [all[0]] + tail
}
