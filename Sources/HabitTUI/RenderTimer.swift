import HabitCore

// MARK: Timer

/// The timer screen: the habit and its day, the time left in the middle, a bar of the time
/// run, and "paused" while it is; the keys in the footer. Fits any screen the UI draws.
func timerScreen(_ b: inout ScreenBuffer, _ state: AppState) {
    let g = state.glyphs
    var x = 1 + b.put("Habitto", x: 1, y: 0, role: .title)
    x += b.put(" \(g.separator) ", x: x, y: 0, role: .dim)
    x += b.put("Timer", x: x, y: 0, role: .header)
    guard let timer = state.timer, let habit = state.habits.habit(timer.habit) else { return }
    let now = state.timerNow
    let icon = g.showsIcons ? (habit.fields.icon.map { Sanitize.display($0) + " " } ?? "") : ""
    let on = timer.day == state.today ? "" : " \(g.separator) \(timer.day)"
    let room = state.width - 4
    let nameWidth = max(1, room - TextWidth.of(icon + on))
    let title = icon + state.label(habit, width: nameWidth) + on
    let left = HabitTimer.clock(timer.remaining(at: now)) + " left"
    let records = HabitTimer.recordWords(habit, ran: Double(timer.duration)).map { ", then \($0)" } ?? ""
    let of = "of \(HabitTimer.durationText(timer.duration))\(records)"
    let barWidth = max(4, min(40, state.width - 8))
    let filled = min(barWidth, Int(Double(barWidth) * timer.elapsed(at: now) / Double(max(1, timer.duration))))
    // Centred between the header and the status bar.
    let top = max(2, (state.height - 3) / 2 - 2)
    func centred(_ text: String, _ y: Int, _ role: Role) {
        let w = min(TextWidth.of(text), state.width - 2)
        b.put(text, x: max(1, (state.width - w) / 2), y: y, role: role, limit: state.width - 2)
    }
    centred(title, top, .header)
    centred(timer.isPaused ? left + "  (paused)" : left, top + 1, timer.isPaused ? .statusWarn : .accent)
    let bx = max(1, (state.width - barWidth) / 2)
    b.put(String(repeating: g.barFull, count: filled), x: bx, y: top + 2, role: .xpBar)
    b.put(String(repeating: g.barEmpty, count: barWidth - filled), x: bx + filled, y: top + 2, role: .xpBarEmpty)
    if top + 3 < state.height - 3 { centred(of, top + 3, .dim) }
}

/// "Read: timer for  25m_  e.g. 25, 25m, 1h30m, 90s": the name gives way (cut with `…`) to
/// what is typed; an error replaces the hint.
func timerPrompt(_ b: inout ScreenBuffer, _ state: AppState, _ p: TimerPrompt, y: Int) {
    guard let habit = state.habits.habit(p.habit) else { return }
    let on = p.day == state.today ? "" : " on \(p.day)"
    let tail = "\(on): timer for  \(p.text)_"
    let room = state.width - 2 - TextWidth.of(tail)
    let hint = "  " + (p.error ?? "e.g. 25, 25m, 1h30m, 90s")
    let promptWidth = TextWidth.of(tail) + min(TextWidth.of(Sanitize.display(state.label(habit))), max(minimumNameWidth, room))
    // An error that does not fit after the prompt goes on the message line, the prompt above it.
    let errorLines = p.error.map { promptWidth + TextWidth.of(hint) > state.width - 2 ? messageLines($0, width: state.width - 2) : [] } ?? []
    let py = y - errorLines.count
    var x = 1 + b.put("\(state.label(habit, width: max(minimumNameWidth, room)))\(on): timer for  ", x: 1, y: py, role: .accent)
    x += b.put(p.text + "_", x: x, y: py, role: .selection)
    if errorLines.isEmpty { b.put(hint, x: x, y: py, role: p.error == nil ? .dim : .statusError, limit: max(0, state.width - 1 - x)) }
    for (i, line) in errorLines.enumerated() {
        b.put(String(repeating: " ", count: state.width), x: 0, y: py + 1 + i, role: .normal)
        b.put(line, x: 1, y: py + 1 + i, role: .statusError)
    }
}

/// "Stop the timer? r records 12 min, d discards, esc keeps going" (the shortest wording
/// that fits whole; what r records follows the time run, and under a minute of a habit
/// counted in minutes there is nothing to record).
func stopTimerQuestion(_ state: AppState) -> String {
    guard let timer = state.timer, let habit = state.habits.habit(timer.habit) else { return "Stop the timer?" }
    let ran = timer.elapsed(at: state.timerNow)
    let keys = { (c: Command) in state.keyMap.bindings(in: .stopTimer).first { $0.command == c }?.keys.first?.description ?? "?" }
    let record = HabitTimer.recordWords(habit, ran: ran).map { "\(keys(.record)) records \($0)" } ?? "under a minute: nothing to record"
    let after = "after \(HabitTimer.clock(ran))"
    let wordings = ["Stop the timer \(after)? \(record), \(keys(.discard)) discards, \(keys(.cancel)) keeps going",
                    "Stop \(after)? \(record), \(keys(.discard)) discards, \(keys(.cancel)) keeps going",
                    "Stop? \(record), \(keys(.discard)) discards, \(keys(.cancel)) goes on"]
    return wordings.first { TextWidth.of($0) <= state.width - 2 } ?? wordings[wordings.count - 1]
}
