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
    case .resized(let width, let height):
        state.width = width
        state.height = height
        if state.screen == .week { weekFollowsCursor(&state) }
        return []
    case .stateChanged(let habits):
        state.habits = habits
        // A question about a habit that is gone (deleted elsewhere) goes too.
        switch state.overlay {
        case .rating(let h, _), .confirmArchive(let h), .confirmDelete(let h):
            if habits.habit(h) == nil { state.overlay = nil }
        case .amount(let p):
            if habits.habit(p.habit) == nil { state.overlay = nil }
        case .note(let p):
            if habits.habit(p.habit) == nil { state.overlay = nil }
        default: break
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
    case .done(let text):
        state.message = Message(text)
        return []
    case .failed(let text):
        state.message = Message(text, .error)
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
    if mode == .form, case .form(let form) = state.overlay { return formKey(key, form, &state) }
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
    case .form, .amount, .note, .editFrom:
        return []
    }
}

/// A key in the habit form: moving between fields, editing, cancel, or submit (the
/// form's fields as one write; a problem stays on the form).
func formKey(_ key: Key, _ form: HabitForm, _ state: inout AppState) -> [Effect] {
    var form = form
    let command = state.keyMap.command(for: key, in: .form)
    switch command {
    case .nextField?: form.move(1)
    case .previousField?: form.move(-1)
    case .erase?: form.erase()
    case .nextChoice?, .previousChoice?: form.pickGroup(state.habits.groups, command == .nextChoice ? 1 : -1)
    case .cancel?:
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

/// Enter in the note prompt: one write (one undo step); an empty note clears the day's
/// note; a note the rules refuse keeps the prompt open with the reason.
func submitNote(_ prompt: NotePrompt, _ state: inout AppState) -> [Effect] {
    var prompt = prompt
    guard state.habits.habit(prompt.habit) != nil else { state.overlay = nil; return [] }
    do {
        let w = Write.note(prompt.habit, prompt.day, try prompt.note())
        _ = try w.changes(today: state.today, in: state.habits)
        state.overlay = nil
        return write(w, &state)
    } catch {
        prompt.error = reason(error)
        state.overlay = .note(prompt)
        return []
    }
}

/// Enter in the amount prompt: one write (one undo step), then the difficulty question
/// when it completed the habit; bad input keeps the prompt open with the reason.
func submitAmount(_ prompt: AmountPrompt, _ state: inout AppState) -> [Effect] {
    var prompt = prompt
    guard let habit = state.habits.habit(prompt.habit) else { state.overlay = nil; return [] }
    let entry: AmountPrompt.Entry
    do { entry = try AmountPrompt.parse(prompt.text) } catch {
        prompt.error = reason(error)
        state.overlay = .amount(prompt)
        return []
    }
    state.overlay = nil
    let before = state.habits.summary(habit, on: prompt.day, today: state.today, settings: state.settings)
    let after: Int
    switch entry {
    case .add(let n): after = before.progress + n
    case .takeBack(let n): after = max(0, before.progress - n)
    case .total(let n): after = n
    }
    let effects = recordProgress(prompt.write(held(entry, state.habits.progress(habit.id, prompt.day))), before, after: after, &state)
    // On the catch-up screen an amount answers the habit-day: the next one is selected.
    if !effects.isEmpty, state.screen == .catchUp, state.catchUpIndex < state.catchUp.count - 1,
       state.catchUp[state.catchUpIndex] == CatchUpItem(habit: habit, day: prompt.day) {
        state.catchUpIndex += 1
    }
    return effects
}

/// A take-back of no more than the day holds, so that its confirmation says what it took
/// (`-20` on a day holding 10 takes back 10); other entries as they are.
func held(_ entry: AmountPrompt.Entry, _ progress: Int) -> AmountPrompt.Entry {
    if case .takeBack(let n) = entry, progress > 0 { return .takeBack(min(n, progress)) }
    return entry
}

/// Writes a progress change; asks how hard it was when it completed a build habit whose
/// day is not rated yet (a day rated before, then taken back and done again, keeps its rating).
func recordProgress(_ w: Write, _ before: HabitSummary, after: Int, _ state: inout AppState) -> [Effect] {
    let effects = write(w, &state)
    if !effects.isEmpty, before.habit.kind == .build, !before.completed, before.difficulty == nil, after >= before.habit.goal {
        state.overlay = .rating(before.habit.id, before.day)
    }
    return effects
}

/// The keys that record a day (check in, take back, amount, skip, rate), on one habit's
/// day: today's row, a week-grid cell or the detail calendar's day all come through here.
func dayCommand(_ command: Command, _ habit: Habit, _ day: LocalDay, _ state: inout AppState) -> [Effect] {
    let s = state.habits.summary(habit, on: day, today: state.today, settings: state.settings)
    switch command {
    case .checkIn:
        // A yes/no habit's day toggles: space on a done day marks it not done (on a skipped
        // day it checks in, which un-skips it).
        if habit.isYesNo && s.progress >= habit.goal && !s.skipped { return write(.progress(habit.id, day, -Amount.scale), &state) }
        return recordProgress(.progress(habit.id, day, Amount.scale), s, after: s.progress + Amount.scale, &state)
    case .uncheck:
        guard case .takeBack(let n) = held(.takeBack(Amount.scale), state.habits.progress(habit.id, day)) else { return [] }
        return write(.progress(habit.id, day, -n), &state)
    case .rate1, .rate2, .rate3, .rate4, .rate5:
        return write(.rate(habit.id, day, command.rating), &state)
    case .skip:
        return write(.skip(habit.id, day, !s.skipped), &state)
    case .amount, .total:
        do { try Edits.checkDay(habit, day, today: state.today) } catch {
            state.message = Message(reason(error), .error)
            return []
        }
        var prompt = AmountPrompt(habit: habit.id, day: day)
        if command == .total { prompt.text = "=" }
        state.overlay = .amount(prompt)
        return []
    case .note:
        do { try Edits.checkDay(habit, day, today: state.today) } catch {
            state.message = Message(reason(error), .error)
            return []
        }
        state.overlay = .note(NotePrompt(habit: habit.id, day: day, text: state.habits.note(habit.id, day) ?? ""))
        return []
    default:
        return []
    }
}

/// Whether a command is one of `dayCommand`'s.
func isDayCommand(_ command: Command) -> Bool {
    [.checkIn, .uncheck, .rate1, .rate2, .rate3, .rate4, .rate5, .skip, .amount, .total, .note].contains(command)
}

/// Checks a write against the rules before asking for it (`Write.changes`, as the repository
/// runs them again): shows the reason when refused, and what is so when it would change
/// nothing. A form's add or edit comes checked by the form (the same rules); a delete
/// needs none.
func write(_ w: Write, _ state: inout AppState) -> [Effect] {
    switch w {
    case .add, .edit, .delete: return [.write(w)]
    default: break
    }
    // Its habit was deleted elsewhere: the question or prompt that asked went with it.
    guard let h = w.habit, state.habits.habit(h) != nil else { return [] }
    do {
        if try w.changes(today: state.today, in: state.habits).isEmpty, let text = w.nothingChanged(in: state.habits) {
            state.message = Message(text)
            return []
        }
    } catch {
        state.message = Message(reason(error), .error)
        return []
    }
    return [.write(w)]
}

/// An error's one-line reason.
func reason(_ error: any Error) -> String { (error as? CoreError)?.description ?? "\(error)" }

func today(_ command: Command, _ state: inout AppState) -> [Effect] {
    let row = state.selected
    switch command {
    case .moveDown, .moveUp, .first, .last:
        moveSelection(command, &state)
        return []
    case .fold:
        return fold(&state)
    case .checkIn, .uncheck, .rate1, .rate2, .rate3, .rate4, .rate5, .skip, .amount, .total, .note:
        guard let row else { return noHabit(&state) }
        return dayCommand(command, row.habit, state.date, &state)
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
        state.overlay = .form(.edit(state.habits.habit(row.habit.id) ?? row.habit))
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
        state.screen = .detail(row.habit.id)
        state.cursorDay = max(row.habit.startDate, state.date)
        return []
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
        let name = "'\(Sanitize.display(row.habit.name))'"
        guard state.autoResults[row.habit.id] != nil else {
            state.message = Message("\(name) is not an auto habit on this machine; 'habitto auto \(Sanitize.display(row.habit.name)) COMMAND' makes it one")
            return []
        }
        state.message = Message("Running the command of \(name)…")
        return [.runAuto(row.habit.id)]
    case .help:
        openHelp(from: .today, &state)
        return []
    case .quit:
        return [.quit]
    default:
        return []
    }
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
