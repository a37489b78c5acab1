import HabitCore

// The reducer's writes: a day's keys and prompts become intents (`Intent`), checked by the
// rules before they are asked for; a finished write comes back as its outcome, worded here.

/// An effect's result, back from the runner: the message line says what happened.
func finished(_ action: Action, _ state: inout AppState) {
    switch action {
    case .written(let outcome): state.message = Message(confirmation(outcome, state))
    case .refused(let error): state.message = Message(error.description, .error)
    case .undone(let label): state.message = Message(label.map { "Undid: " + $0 } ?? "Nothing to undo on this device")
    case .autoRan(let report?):
        let icon = state.habits.habit(report.habit)?.fields.icon.map { Sanitize.display($0) + " " } ?? ""
        state.message = Message(report.sentence(icon: state.glyphs.showsIcons ? icon : ""), report.failed ? .error : .info)
    case .autoRan(nil): state.message = Message("That habit is gone: its command did not run", .error)
    case .failed(let text): state.message = Message(text, .error)
    default: break
    }
}

/// The UI's confirmation of an outcome: its one sentence (`Outcome.sentence`) with the
/// UI's glyphs, and how to undo it when its effect is out of sight (an archive, a note).
func confirmation(_ outcome: Outcome, _ state: AppState) -> String {
    let g = state.glyphs
    let said = outcome.sentence(mark: { s in
        dayGlyph(skipped: s.skipped, exceeded: s.exceeded, completed: s.completed, progress: s.progress, kind: s.habit.kind,
                 scheduled: false, g).0
    }, atMost: g.atMost)
    return outcome.isOutOfSight && outcome.changed ? said + " (u undoes)" : said
}

/// Enter in the note prompt: one write (one undo step); an empty note clears the day's
/// note; a note the rules refuse keeps the prompt open with the reason.
func submitNote(_ prompt: NotePrompt, _ state: inout AppState) -> [Effect] {
    var prompt = prompt
    guard state.habits.habit(prompt.habit) != nil else { state.overlay = nil; return [] }
    do {
        let intent = Intent.note(prompt.habit, prompt.day, try prompt.note())
        _ = try intent.changes(today: state.today, in: state.habits)
        state.overlay = nil
        return write(intent, &state)
    } catch {
        prompt.error = reason(error)
        state.overlay = .note(prompt)
        return []
    }
}

/// Enter in the pause prompt: one write (one undo step, `u` takes it back); text the rules
/// refuse keeps the prompt open with the reason.
func submitPause(_ prompt: PausePrompt, _ state: inout AppState) -> [Effect] {
    var prompt = prompt
    guard state.habits.habit(prompt.habit) != nil else { state.overlay = nil; return [] }
    do {
        let intent = prompt.intent(try prompt.entry(today: state.today))
        _ = try intent.changes(today: state.today, in: state.habits)
        state.overlay = nil
        return write(intent, &state)
    } catch {
        prompt.error = (error as? PausePrompt.Problem)?.description ?? reason(error)
        state.overlay = .pause(prompt)
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
    let effects = recordProgress(prompt.intent(entry), before, &state)
    // On the catch-up screen an amount answers the habit-day: the next one is selected.
    if !effects.isEmpty, state.screen == .catchUp, state.catchUpIndex < state.catchUp.count - 1,
       state.catchUp[state.catchUpIndex] == CatchUpItem(habit: habit, day: prompt.day) {
        state.catchUpIndex += 1
    }
    return effects
}

/// Writes a progress intent; asks how hard it was when it completed a build habit whose
/// day is not rated yet (a day rated before, then taken back and done again, keeps its rating).
func recordProgress(_ intent: Intent, _ before: HabitSummary, _ state: inout AppState) -> [Effect] {
    let changes = (try? intent.changes(today: state.today, in: state.habits)) ?? []
    let effects = write(intent, &state)
    // The day's running total after the changes (see `DayOp.total`).
    let after = changes.reduce(state.habits.progress(before.habit.id, before.day)) { total, change in
        switch change {
        case .progress(_, _, let delta): min(Limits.maxDayProgress, max(0, total + delta))
        case .setProgress(_, _, let set): set
        default: total
        }
    }
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
        // A yes/no habit's day toggles (`Intent.toggle` decides); any other gets one more unit.
        return recordProgress(.toggle(habit.id, day), s, &state)
    case .uncheck:
        return write(.takeBack(habit.id, day), &state)
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
    case .pause:
        state.overlay = .pause(PausePrompt(habit: habit.id, day: day))
        return []
    default:
        return []
    }
}

/// Checks an intent against the rules before asking for it (`Intent.changes`, as the
/// repository runs them again): shows the reason when refused, and what is so when a total,
/// a move or a note would change nothing (other intents go ahead: their confirmation
/// stands). A form's add or edit comes checked by the form (the same rules); a delete
/// needs none.
func write(_ intent: Intent, _ state: inout AppState) -> [Effect] {
    switch intent {
    case .add, .edit, .delete: return [.write(intent)]
    default: break
    }
    // Its habit was deleted elsewhere: the question or prompt that asked went with it.
    guard let h = intent.habit, state.habits.habit(h) != nil else { return [] }
    do {
        if try intent.changes(today: state.today, in: state.habits).isEmpty {
            switch intent {
            case .setTotal, .move, .note, .pause:
                let outcome = intent.outcome(changed: false, state: state.habits, today: state.today, settings: state.settings)
                state.message = Message(confirmation(outcome, state))
                return []
            default: break
            }
        }
    } catch {
        state.message = Message(reason(error), .error)
        return []
    }
    return [.write(intent)]
}
