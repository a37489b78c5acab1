import HabitCore

// The timer: a countdown for a habit's day on its own screen, driven by the timer clock's
// readings (`Action.timerClock`), never by a wait: keys, sync and resizes go on while it
// runs, and tests drive it with any clock. When it has run its time it checks the habit in
// through the normal write (`HabitTimer.intent`) and asks for a desktop notification.

/// `t`: asks for the duration of a timer for a habit's day (the running timer's screen
/// instead, when one runs); a day that takes no check-in says why at once.
func askTimer(_ habit: Habit, _ day: LocalDay, _ state: inout AppState) -> [Effect] {
    if state.timer != nil {
        state.screen = .timer
        return []
    }
    do { try Edits.checkDay(habit, day, today: state.today) } catch {
        state.message = Message(reason(error), .error)
        return []
    }
    let text = HabitTimer.durationText(HabitTimer.suggestedDuration(habit))
    state.overlay = .timerDuration(TimerPrompt(habit: habit.id, day: day, text: text))
    return []
}

/// Enter in the duration prompt: the timer starts from the timer clock's last reading; a
/// duration that is not one keeps the prompt open with the reason.
func submitTimer(_ prompt: TimerPrompt, _ state: inout AppState) -> [Effect] {
    var prompt = prompt
    guard state.habits.habit(prompt.habit) != nil else { state.overlay = nil; return [] }
    do {
        let seconds = try HabitTimer.parseDuration(prompt.text)
        state.overlay = nil
        state.timer = HabitTimer(habit: prompt.habit, day: prompt.day, duration: seconds, start: state.timerNow)
        state.screen = .timer
    } catch {
        prompt.error = reason(error)
        state.overlay = .timerDuration(prompt)
    }
    return []
}

/// The timer screen's keys: pause or resume, ask before stopping, help.
func timerKey(_ command: Command, _ state: inout AppState) -> [Effect] {
    switch command {
    case .pauseTimer: state.timer?.togglePause(at: state.timerNow)
    case .stopTimer: state.overlay = .stopTimer
    case .help: openHelp(from: .timer, &state)
    default: break
    }
    return []
}

/// The answer to "Stop the timer?": record what it ran (`HabitTimer.intent`), discard it,
/// or keep going (the timer ran on while the question was asked).
func stopTimerKey(_ command: Command, _ state: inout AppState) -> [Effect] {
    state.overlay = nil
    guard let timer = state.timer else { return [] }
    let ran = timer.elapsed(at: state.timerNow)
    switch command {
    case .record:
        endTimer(&state)
        guard let habit = state.habits.habit(timer.habit), let intent = HabitTimer.intent(habit, day: timer.day, ran: ran) else {
            state.message = Message("Timer stopped after \(HabitTimer.clock(ran)): under a minute, nothing to record")
            return []
        }
        return recordTimer(intent, habit, timer.day, &state)
    case .discard:
        endTimer(&state)
        state.message = Message("Timer stopped after \(HabitTimer.clock(ran)): nothing recorded")
    default:
        break
    }
    return []
}

/// The timer clock moved: a timer that has run its whole time ends, checks its habit in and
/// asks for a notification.
func timerClock(_ now: Double, _ state: inout AppState) -> [Effect] {
    state.timerNow = now
    guard let timer = state.timer, timer.isFinished(at: now) else { return [] }
    endTimer(&state)
    guard let habit = state.habits.habit(timer.habit),
          let intent = HabitTimer.intent(habit, day: timer.day, ran: Double(timer.duration)) else { return [] }
    let written = recordTimer(intent, habit, timer.day, &state)
    guard !written.isEmpty else { return [] }
    let words = HabitTimer.recordWords(habit, ran: Double(timer.duration)) ?? ""
    return written + [.notify(title: "Habitto: " + Sanitize.display(habit.name),
                              body: "Timer done (\(HabitTimer.durationText(timer.duration))): \(words) recorded")]
}

/// Writes what a timer records as a check-in by a key is written: then "How hard was it?"
/// when it completed the habit's day.
func recordTimer(_ intent: Intent, _ habit: Habit, _ day: LocalDay, _ state: inout AppState) -> [Effect] {
    recordProgress(intent, state.habits.summary(habit, on: day, today: state.today, settings: state.settings), &state)
}

/// The timer is gone: its screen (and help opened from it, and its question) go back to today.
func endTimer(_ state: inout AppState) {
    state.timer = nil
    if state.overlay == .stopTimer { state.overlay = nil }
    if state.screen == .timer || state.screen == .help(from: .timer) { state.screen = .today }
}
