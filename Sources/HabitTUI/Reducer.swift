import HabitCore

/// The update function: applies an action to the state and returns the effects to run.
/// Pure: no I/O, no clock; writes are validated here with the same rules the repository
/// runs again under its lock, so a refused write shows its reason at once.
public func reduce(_ state: inout AppState, _ action: Action) -> [Effect] {
    switch action {
    case .key(let key):
        // Messages last until the next key (then a queued one shows); the rating question hides the message line,
        // so the confirmation it covers is still there when the question goes.
        if state.mode != .rating { state.message = nil }
        let effects = handle(key, &state)
        // A key that changes data gets its confirmation later (`.done`): the queue waits.
        if effects.isEmpty, state.message == nil, !state.queuedMessages.isEmpty, state.mode != .rating {
            state.message = state.queuedMessages.removeFirst()
        }
        return effects
    case .click(let x, let y):
        return click(x: x, y: y, &state)
    case .resized(let width, let height):
        state.width = width
        state.height = height
        if state.screen == .week { weekFollowsCursor(&state) }
        return []
    case .stateChanged(let habits):
        state.habits = habits
        // A question about a habit that is gone (deleted elsewhere) goes too.
        if let h = state.overlay?.habit, habits.habit(h) == nil { state.overlay = nil }
        if let timer = state.timer, habits.habit(timer.habit) == nil {
            endTimer(&state)
            state.message = Message("The timer's habit is gone (deleted elsewhere): the timer stopped", .warning)
        }
        if case .detail(let h) = state.screen, habits.habit(h) == nil { state.screen = .today }
        if state.screen == .week { weekFollowsCursor(&state) }
        if !state.catchUp.isEmpty {
            state.catchUp.removeAll { habits.habit($0.habit.id) == nil }
            state.catchUpIndex = max(0, min(state.catchUpIndex, state.catchUp.count - 1))
            if state.catchUp.isEmpty && state.screen == .catchUp { state.screen = .today }
        }
        return []
    case .dayChanged(let day):
        let followsToday = state.date == state.today
        state.today = day
        if followsToday || state.date > day { state.date = day }
        return []
    case .written, .refused, .undone, .autoRan, .failed:
        finished(action, &state)
        return []
    case .warning(let text):
        state.message = Message(text, .warning)
        return []
    case .themeLoaded(let name, let problems):
        state.themeName = name
        state.show(problems.isEmpty ? [Message("Theme: \(name)")] : problems.map { Message($0, .warning) })
        return []
    case .syncChanged(let info):
        let ended = info.roundsEnded > state.sync.roundsEnded ? info.history.last : nil
        state.sync = info
        // The round `S` or going online asked for has ended: its result replaces "Syncing…".
        if state.awaitingRound, info.mode == .offline || info.remote == nil {
            state.awaitingRound = false
        } else if state.awaitingRound, let round = ended {
            state.awaitingRound = false
            state.message = roundResult(round, state.glyphs)
        }
        return []
    case .tick(let now):
        state.now = now
        return []
    case .autoChanged(let results):
        state.autoResults = results
        return []
    case .timerClock(let now):
        return timerClock(now, &state)
    }
}

func handle(_ key: Key, _ state: inout AppState) -> [Effect] {
    let mode = state.mode
    if mode == .amount, case .amount(let prompt) = state.overlay {
        return promptKey(key, prompt, .amount, &state, cancelled: "Cancelled: nothing changed", overlay: Overlay.amount, submit: submitAmount)
    }
    if mode == .note, case .note(let prompt) = state.overlay {
        return promptKey(key, prompt, .note, &state, cancelled: "Cancelled: the note is as it was", overlay: Overlay.note, submit: submitNote)
    }
    if mode == .pause, case .pause(let prompt) = state.overlay {
        return promptKey(key, prompt, .pause, &state, cancelled: "Cancelled: nothing paused", overlay: Overlay.pause, submit: submitPause)
    }
    if mode == .timerDuration, case .timerDuration(let prompt) = state.overlay {
        return promptKey(key, prompt, .timerDuration, &state, cancelled: "Cancelled: no timer started", overlay: Overlay.timerDuration,
                         submit: submitTimer)
    }
    if mode == .filter { return filterKey(key, &state) }
    if mode == .palette, case .palette(let palette) = state.overlay { return paletteKey(key, palette, &state) }
    if case .form(let form) = state.overlay { return formKey(key, form, &state) }
    if mode == .editFrom, case .editFrom(let form, let fields) = state.overlay {
        return editFromKey(state.keyMap.command(for: key, in: mode), form, fields, &state)
    }
    guard let command = state.keyMap.command(for: key, in: mode) else {
        switch mode {
        case .rating:
            // Any other key dismisses the question and does what it normally does.
            state.overlay = nil
            return handle(key, &state)
        case .confirm:
            state.overlay = nil
            state.message = Message("Cancelled: nothing changed")
        default:
            break
        }
        return []
    }
    if findCommand(command, &state) { return [] }
    switch mode {
    case .today: return today(command, &state)
    case .catchUp: return catchUp(command, &state)
    case .detail: return detail(command, &state)
    case .week: return week(command, &state)
    case .overview: return overview(command, &state)
    case .sync:
        switch command {
        case .back: state.screen = .today
        case .help: openHelp(from: .sync, &state)
        case .toggleOffline, .syncNow: return syncCommand(command, &state)
        default: break
        }
        return []
    case .help:
        helpKey(command, &state)
        return []
    case .rating:
        guard case .rating(let h, let day) = state.overlay else { return [] }
        state.overlay = nil
        if let r = command.rating { return write(.rate(h, day, r), &state) }
        return []
    case .confirm:
        return confirmKey(command, &state)
    case .timer:
        return timerKey(command, &state)
    case .stopTimer:
        return stopTimerKey(command, &state)
    case .form, .amount, .note, .editFrom, .timerDuration, .filter, .palette, .pause:
        return []
    }
}

/// A key in the habit form: moving between fields, editing, cancel, or submit (the
/// form's fields as one write; a problem stays on the form).
func formKey(_ key: Key, _ form: HabitForm, _ state: inout AppState) -> [Effect] {
    var form = form
    if form.asksDiscard {
        // "Discard the changes?": yes closes the form, any other key goes back to it.
        form.asksDiscard = false
        if state.keyMap.command(for: key, in: .confirm) == .confirm {
            state.overlay = nil
            state.message = Message("Cancelled: nothing changed")
        } else {
            state.overlay = .form(form)
        }
        return []
    }
    let command = state.keyMap.command(for: key, in: .form)
    switch command {
    case .nextField?: form.move(1)
    case .previousField?: form.move(-1)
    case .erase?: form.erase()
    case .nextChoice?, .previousChoice?: form.pickGroup(state.habits.groups, command == .nextChoice ? 1 : -1)
    case .cancel?:
        guard !form.hasChanges else { form.asksDiscard = true; break }
        state.overlay = nil
        state.message = Message("Cancelled")
        return []
    case .submit?:
        let base = form.editing.flatMap { state.habits.habit($0)?.fields }
        switch form.fields(base: base, in: state.habits) {
        case .success(let fields):
            // A new goal, unit, kind or schedule of a habit with days behind it: from when?
            if let id = form.editing, let habit = state.habits.habit(id), habit.startDate < state.today,
               fields.rule != habit.fields.rule {
                state.overlay = .editFrom(form, fields)
                return []
            }
            state.overlay = nil
            return [.write(form.editing.map { .edit($0, fields, from: nil) } ?? .add(fields))]
        case .failure(let e):
            form.formError = e.description
        }
    default:
        if case .char(let c) = key { form.type(c) }
    }
    state.overlay = .form(form)
    return []
}

/// The answer to "from today or from the start?": the edit is written with its rule fields
/// from today (the days before keep their definition) or from the habit's start (every day
/// judged anew); cancel goes back to the form as it was typed.
func editFromKey(_ command: Command?, _ form: HabitForm, _ fields: HabitFields, _ state: inout AppState) -> [Effect] {
    guard let id = form.editing else { state.overlay = nil; return [] }
    switch command {
    case .fromToday?:
        state.overlay = nil
        return write(.edit(id, fields, from: state.today), &state)
    case .fromStart?:
        state.overlay = nil
        return write(.edit(id, fields, from: nil), &state)
    case .cancel?:
        state.overlay = .form(form)
    default:
        break
    }
    return []
}

/// The help screen: paging, and back to the screen it was opened from.
func helpKey(_ command: Command, _ state: inout AppState) {
    let pages = helpLayout(state).pages
    if command == .moveDown { state.helpPage = min(pages - 1, state.helpPage + 1) }
    if command == .moveUp { state.helpPage = max(0, state.helpPage - 1) }
    if command == .back, case .help(let from) = state.screen {
        switch from {
        case .detail: state.screen = state.selectedID.map(Screen.detail) ?? .today
        case .week: state.screen = .week
        case .sync: state.screen = .sync
        case .catchUp: state.screen = .catchUp
        case .overview: state.screen = .overview
        case .timer: state.screen = state.timer == nil ? .today : .timer
        default: state.screen = .today
        }
    }
}

/// The answer to "Archive …?" (or unarchive) and "Delete …?": confirm writes, any other
/// command cancels.
func confirmKey(_ command: Command, _ state: inout AppState) -> [Effect] {
    let overlay = state.overlay
    state.overlay = nil
    guard command == .confirm else {
        state.message = Message("Cancelled: nothing changed")
        return []
    }
    switch overlay {
    case .confirmArchive(let h)?:
        return write(state.habits.habit(h)?.fields.archivedFrom != nil ? .unarchive(h) : .archive(h), &state)
    case .confirmDelete(let h)?: return write(.delete(h), &state)
    default: return []
    }
}

/// What a prompt on the message line does with a key: typing and backspace edit it, the
/// mode's `cancel` closes it with the `cancelled` message, `submit` goes to `submit`.
func promptKey<P: LinePrompt>(_ key: Key, _ prompt: P, _ mode: Mode, _ state: inout AppState, cancelled: String,
                              overlay: (P) -> Overlay, submit: (P, inout AppState) -> [Effect]) -> [Effect] {
    var prompt = prompt
    switch state.keyMap.command(for: key, in: mode) {
    case .erase?: prompt.erase()
    case .cancel?:
        state.overlay = nil
        state.message = Message(cancelled)
        return []
    case .submit?:
        return submit(prompt, &state)
    default:
        if case .char(let c) = key { prompt.type(c) }
    }
    state.overlay = overlay(prompt)
    return []
}

/// A key in the find prompt: typing and erasing change the screen's filter at once (the
/// list follows as each key arrives); enter keeps it and closes the prompt, esc clears it.
/// A typed character is only ever text here, whatever it is bound to elsewhere.
func filterKey(_ key: Key, _ state: inout AppState) -> [Effect] {
    var text = state.screen.isHelp ? state.helpFilter : state.filter
    switch state.keyMap.command(for: key, in: .filter) {
    case .submit?:
        state.overlay = nil
        return []
    case .cancel?:
        state.overlay = nil
        text = ""
    case .erase?:
        if !text.isEmpty { text.removeLast() }
    default:
        guard case .char(let c) = key, text.count < maxFilterLength, !c.isNewline else { return [] }
        text.append(c)
    }
    setFilter(text, &state)
    return []
}

/// `/`, `:` and clearing the filter, the same on every screen that has them (`back` clears a
/// filter before it goes back); false for any other command.
func findCommand(_ command: Command, _ state: inout AppState) -> Bool {
    switch command {
    case .filter: state.overlay = .filter
    case .palette: openPalette(&state)
    case .clearFilter: setFilter("", &state)
    case .back where !(shownFilter(state) ?? "").isEmpty: setFilter("", &state)
    default: return false
    }
    return true
}

/// The most a filter holds.
let maxFilterLength = 40

/// Sets the filter of the screen shown (the help's keys, or the habits of the other screens)
/// and keeps what it shows in view: the help's first page, the overview's first rows, the
/// week cursor on a habit that is listed (the today screen's selection follows in `recompute`).
func setFilter(_ text: String, _ state: inout AppState) {
    if state.screen.isHelp {
        state.helpFilter = text
        state.helpPage = 0
        return
    }
    state.filter = text
    state.overviewScroll = 0
    if state.screen == .week { weekFollowsCursor(&state) }
}

/// Opens the palette on the actions of the mode keys go to now.
func openPalette(_ state: inout AppState) {
    state.overlay = .palette(Palette(from: state.mode))
}

/// A key in the palette: typing and erasing change what it finds (the selection back on the
/// best match), up and down move the selection, enter closes it and presses the selected
/// action's key (so it does exactly what that key does), esc closes it.
func paletteKey(_ key: Key, _ palette: Palette, _ state: inout AppState) -> [Effect] {
    var p = palette
    let entries = p.entries(state.keyMap, archived: state.selectedIsArchived)
    switch state.keyMap.command(for: key, in: .palette) {
    case .moveDown?: p.index = max(0, min(entries.count - 1, p.index + 1))
    case .moveUp?: p.index = max(0, p.index - 1)
    case .erase?: p.erase()
    case .cancel?:
        state.overlay = nil
        return []
    case .submit?:
        guard entries.indices.contains(p.index), let key = entries[p.index].keys.first else { break }
        state.overlay = nil
        // The screen under it may have gone (its habit deleted elsewhere): then only close.
        guard state.mode == p.from else { return [] }
        return handle(key, &state)
    default:
        if case .char(let c) = key { p.type(c) }
    }
    state.overlay = .palette(p)
    return []
}

/// An error's one-line reason.
func reason(_ error: any Error) -> String { (error as? CoreError)?.description ?? "\(error)" }

func today(_ command: Command, _ state: inout AppState) -> [Effect] {
    let row = state.selected
    // The keys on the selected habit's day shown (a timer's check-in goes there too).
    if command.isDayCommand || command == .timer {
        guard let row else { return noHabit(&state) }
        return command == .timer ? askTimer(row.habit, state.date, &state) : dayCommand(command, row.habit, state.date, &state)
    }
    switch command {
    case .moveDown, .moveUp, .first, .last:
        moveSelection(command, &state)
        return []
    case .fold:
        return fold(&state)
    case .undo:
        return [.undo]
    case .previousDay:
        if state.date > LocalDay.earliest { state.date = state.date.adding(-1) }
        return []
    case .nextDay:
        if state.date < state.today { state.date = state.date.adding(1) } else {
            state.message = Message("This is today: the future cannot be checked in yet")
        }
        return []
    case .today:
        state.date = state.today
        return []
    case .add:
        state.overlay = .form(.new(today: state.today))
        return []
    case .edit:
        guard let row else { return noHabit(&state) }
        // The habit as it is now (a row holds it as defined on the day shown).
        state.overlay = .form(.edit(state.habits.habit(row.habit.id) ?? row.habit, today: state.today))
        return []
    case .archive:
        guard let row else { return noHabit(&state) }
        state.overlay = .confirmArchive(row.habit.id)
        return []
    case .delete:
        guard let row else { return noHabit(&state) }
        state.overlay = .confirmDelete(row.habit.id)
        return []
    case .moveHabitUp, .moveHabitDown:
        return moveHabit(up: command == .moveHabitUp, &state)
    case .detail:
        guard let row else { return noHabit(&state) }
        return openDetail(row.habit, &state)
    case .week:
        openWeek(&state)
        return []
    case .overview:
        state.screen = .overview
        state.overviewScroll = 0
        return []
    case .toggleAll:
        state.showAll.toggle()
        state.message = Message(state.showAll ? "Showing every habit" : "Showing the habits due on this day")
        return []
    case .nextTheme:
        return nextTheme(&state)
    case .toggleOffline, .syncNow:
        return syncCommand(command, &state)
    case .syncScreen:
        state.screen = .sync
        return []
    case .catchUp:
        openCatchUp(&state)
        return []
    case .runAuto:
        guard let row else { return noHabit(&state) }
        return runAuto(row.habit, &state)
    case .help:
        openHelp(from: .today, &state)
        return []
    case .quit:
        return [.quit]
    default:
        return []
    }
}

/// Opens a habit's detail screen, its calendar's cursor on the day shown (or the habit's start).
func openDetail(_ habit: Habit, _ state: inout AppState) -> [Effect] {
    state.screen = .detail(habit.id)
    state.cursorDay = max(habit.startDate, state.date)
    return []
}

/// `r`: runs an auto habit's command now, or says how to make the habit one.
func runAuto(_ habit: Habit, _ state: inout AppState) -> [Effect] {
    let name = "'\(Sanitize.display(habit.name))'"
    guard state.autoResults[habit.id] != nil else {
        state.message = Message("\(name) is not an auto habit on this machine; 'habitto auto \(Sanitize.display(habit.name)) COMMAND' makes it one")
        return []
    }
    state.message = Message("Running the command of \(name)…")
    return [.runAuto(habit.id)]
}

/// Moves the today screen's selection through the habits' rows and the folded groups'
/// headings: one down or up, or to the first or last.
func moveSelection(_ command: Command, _ state: inout AppState) {
    let selectable = state.lines.indices.filter { state.lines[$0].isSelectable }
    guard !selectable.isEmpty else { return }
    let last = selectable.count - 1
    let current = state.selectedLine.flatMap { selectable.firstIndex(of: $0) } ?? 0
    let next: Int
    switch command {
    case .moveDown: next = min(last, current + 1)
    case .moveUp: next = max(0, current - 1)
    case .first: next = 0
    default: next = last
    }
    state.select(state.lines[selectable[next]])
}

/// Moves the selected habit up or down past the next habit shown in its group (as the
/// screen shows them: a group's habits stay together under its heading, so moving past the
/// group's end would change nothing on the screen); at the end it says so.
func moveHabit(up: Bool, _ state: inout AppState) -> [Effect] {
    guard let i = state.selectedIndex, let row = state.selected else { return noHabit(&state) }
    let group = row.habit.fields.group
    let section = state.rows.indices.filter { state.rows[$0].habit.fields.group == group }
    guard let k = section.firstIndex(of: i), section.indices.contains(up ? k - 1 : k + 1) else {
        let within = group.map { " in \(Sanitize.display($0))" } ?? (state.rows.contains { $0.habit.fields.group != nil } ? " of the habits without a group" : "")
        state.message = Message("'\(Sanitize.display(row.habit.name))' is already \(up ? "first" : "last")\(within)\(state.showAll ? "" : " of those shown (v shows them all)")")
        return []
    }
    let other = state.rows[section[up ? k - 1 : k + 1]].habit.id
    return write(.move(row.habit.id, up ? .before(other) : .after(other)), &state)
}

/// Opens the week overview on the date, its cursor on the selected habit.
func openWeek(_ state: inout AppState) {
    state.screen = .week
    state.weekOffset = 0
    state.cursorDay = state.date
    state.cursorHabit = state.selectedID.flatMap { id in state.weekHabits.first { $0.id == id }?.id }
        ?? state.weekHabits.first?.id
}

/// Opens the catch-up screen on the habit-days to catch up on, or says there are none.
func openCatchUp(_ state: inout AppState) {
    state.catchUp = CatchUp.items(state.habits, today: state.today, settings: state.settings)
    state.catchUpIndex = 0
    if state.catchUp.isEmpty {
        state.message = Message("Nothing to catch up: every due day of the last \(CatchUp.defaultDays) days and today has something recorded")
    } else {
        state.screen = .catchUp
    }
}

func syncCommand(_ command: Command, _ state: inout AppState) -> [Effect] {
    guard state.sync.remote != nil else {
        state.message = Message("No remote: data stays on this machine ('habitto remote set dir:/path' connects one)")
        return []
    }
    if command == .syncNow {
        guard state.sync.mode != .offline else {
            state.message = Message(SyncInfo.offlineHint, .warning)
            return []
        }
        state.message = Message("Syncing…")
        state.awaitingRound = true
        return [.syncNow]
    }
    let goingOffline = state.sync.mode != .offline
    state.sync.mode = goingOffline ? .offline : .online
    if goingOffline {
        // Nothing is in flight any more: the engine abandons the call and sends nothing.
        state.sync.inFlight = 0
        state.sync.pulling = false
    }
    state.awaitingRound = !goingOffline
    state.message = Message(goingOffline ? "Offline: changes wait in the queue" : "Online: syncing now")
    return [.setOffline(goingOffline)]
}

/// A round's result, as the message line says it: `synced · sent 3, received 5`, or the error.
func roundResult(_ round: SyncInfo.Attempt, _ glyphs: Glyphs) -> Message {
    if let error = round.error { return Message("Sync: " + Sanitize.display(error), .error) }
    return Message("synced \(glyphs.separator) sent \(round.pushed), received \(round.pulled)")
}

/// The next installed theme, loaded and saved; with no other theme installed, a message
/// saying so and where themes are looked for, and nothing loaded or saved.
func nextTheme(_ state: inout AppState) -> [Effect] {
    let names = state.themeNames.isEmpty ? ["default"] : state.themeNames
    if names.allSatisfy({ $0 == state.themeName }) {
        let places = state.themeDirectories.isEmpty ? "" : ": put a NAME.theme file in " + state.themeDirectories.joined(separator: " or ")
        state.message = Message("No other theme is installed (theme \(state.themeName))\(places)", .warning)
        return []
    }
    let i = names.firstIndex(of: state.themeName) ?? -1
    return [.loadTheme(names[(i + 1) % names.count])]
}

/// Folds the selected habit's group (the selection goes to its heading), or unfolds the
/// selected heading's (the selection goes to the group's first habit).
func fold(_ state: inout AppState) -> [Effect] {
    if let group = state.selectedGroup {
        state.foldedGroups.remove(group)
        if let first = state.rows.first(where: { $0.habit.fields.group == group }) { state.selectHabit(first.habit.id) }
        return []
    }
    guard let row = state.selected else { return noHabit(&state) }
    guard let group = row.habit.fields.group else {
        state.message = Message("\(Sanitize.quoted(row.habit.name)) is in no group: e edits it, its Group field puts it in one")
        return []
    }
    state.foldedGroups.insert(group)
    state.selectedGroup = group
    state.selectedID = nil
    return []
}

func noHabit(_ state: inout AppState) -> [Effect] {
    if let group = state.selectedGroup {
        state.message = Message("\(Sanitize.quoted(group)) is folded: z unfolds it")
        return []
    }
    state.message = Message(state.habits.habits.isEmpty ? "No habits yet: press a to add one" : "No habit is due on this day: v shows them all")
    return []
}
