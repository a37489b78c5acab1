import HabitCore

// The mouse: a click goes where the screen drew what it hit (`ScreenBuffer.regions`, recorded
// by the renderer), so what a click does is decided from the same frame the user sees; the
// wheel comes as keys (`wheel-up`, `wheel-down`) and goes through the key map.

/// A click on column `x` of row `y`: a footer entry presses its key; on the today screen a
/// line selects it, a row's state mark checks in (as the check-in key: a second click on a
/// yes/no habit takes it back), a recent day selects the habit and that day; in the week
/// grid a cell (or a habit's name) gets the cursor, in the detail calendar a day, on the
/// catch-up screen a habit-day is selected. A click elsewhere, or under a form, prompt or question
/// (whose keys the footer lists), does nothing; the "how hard was it?" question goes, as
/// with any other key.
func click(x: Int, y: Int, _ state: inout AppState) -> [Effect] {
    guard let target = render(state).target(x: x, y: y) else { return [] }
    if case .key(let key) = target { return reduce(&state, .key(key)) }
    if case .rating = state.overlay { state.overlay = nil }
    guard state.overlay == nil else { return [] }
    state.message = nil
    switch target {
    case .line(let i):
        guard state.screen == .today, state.lines.indices.contains(i), state.lines[i].isSelectable else { return [] }
        state.select(state.lines[i])
    case .mark(let i):
        guard state.screen == .today, state.lines.indices.contains(i), case .habit = state.lines[i] else { return [] }
        state.select(state.lines[i])
        return today(.checkIn, &state)
    case .day(let i, let day):
        guard state.screen == .today, state.lines.indices.contains(i), case .habit = state.lines[i], day <= state.today else { return [] }
        state.select(state.lines[i])
        state.date = day
    case .weekCell(let habit, let day):
        guard state.screen == .week, day <= state.today else { return [] }
        state.cursorHabit = habit
        state.cursorDay = day
    case .calendarDay(let day):
        guard case .detail = state.screen, day <= state.today else { return [] }
        state.cursorDay = day
    case .catchUpItem(let i):
        guard state.screen == .catchUp, state.catchUp.indices.contains(i) else { return [] }
        state.catchUpIndex = i
    case .key:
        break
    }
    return []
}
