import FoundationEssentials
import HabitCore

/// The catch-up screen: each answer is one write, then the next habit-day is selected.
func catchUp(_ command: Command, _ state: inout AppState) -> [Effect] {
    let last = state.catchUp.count - 1
    let answer: CatchUp.Answer
    switch command {
    case .moveDown: state.catchUpIndex = min(last, state.catchUpIndex + 1); return []
    case .moveUp: state.catchUpIndex = max(0, state.catchUpIndex - 1); return []
    case .back: state.screen = .today; return []
    case .help: openHelp(from: .catchUp, &state); return []
    case .undo: return [.undo]
    case .markDone: answer = .done(difficulty: nil)
    case .markNotDone: answer = .notDone
    case .skip: answer = .skip
    case .leave: answer = .leave
    case .amount, .total:
        // How much, as `ask` takes it: the amount prompt on this habit-day (it moves on once written).
        guard state.catchUp.indices.contains(state.catchUpIndex), let habit = state.habits.habit(state.catchUp[state.catchUpIndex].habit.id)
        else { return [] }
        return dayCommand(command, habit, state.catchUp[state.catchUpIndex].day, &state)
    default:
        guard let r = command.rating else { return [] }
        answer = .done(difficulty: r)
    }
    guard state.catchUp.indices.contains(state.catchUpIndex) else { return [] }
    let item = state.catchUp[state.catchUpIndex]
    var effects: [Effect] = []
    if answer == .leave {
        state.message = Message("Left as it is")
    } else {
        effects = write(.answer(item.habit.id, item.day, answer), &state)
        guard !effects.isEmpty else { return [] }
    }
    if state.catchUpIndex < last {
        state.catchUpIndex += 1
    } else if answer == .leave {
        state.message = Message("That was the last one: esc goes back to today")
    }
    return effects
}

func detail(_ command: Command, _ state: inout AppState) -> [Effect] {
    guard case .detail(let id) = state.screen, let habit = state.habits.habit(id) else { return [] }
    // The day the calendar shows selected (the cursor kept within the habit's days).
    if command.isDayCommand { return dayCommand(command, habit, max(habit.startDate, min(state.today, state.cursorDay)), &state) }
    switch command {
    case .moveDown, .moveUp:
        let all = state.habits.listed
        guard let i = all.firstIndex(where: { $0.id == id }), !all.isEmpty else { return [] }
        let next = all[(i + (command == .moveDown ? 1 : all.count - 1)) % all.count]
        state.screen = .detail(next.id)
        state.selectHabit(next.id)
        state.cursorDay = max(next.startDate, min(state.today, state.cursorDay))
    case .previousDay, .nextDay, .previousMonth, .nextMonth, .today:
        let target: LocalDay
        switch command {
        case .previousDay: target = state.cursorDay.adding(-1)
        case .nextDay: target = state.cursorDay.adding(1)
        case .previousMonth: target = state.cursorDay.addingMonths(-1)
        case .nextMonth: target = state.cursorDay.addingMonths(1)
        default: target = state.today
        }
        moveCursor(to: target, from: habit.startDate, &state)
    case .nextPage, .previousPage:
        state.detailPage = state.detailPage.moved(command == .nextPage ? 1 : -1)
    case .nextView, .previousView:
        chartView(command == .nextView ? 1 : -1, &state)
    case .undo:
        return [.undo]
    case .back:
        state.screen = .today
    case .help:
        openHelp(from: .detail, &state)
    case .nextTheme:
        return nextTheme(&state)
    default:
        break
    }
    return []
}

/// `]` and `[` on a detail page: the score's span, the history's period, the weekday
/// chart's bars or grid (each wrapping round); pages without views say so.
func chartView(_ steps: Int, _ state: inout AppState) {
    func step<T: CaseIterable & Equatable>(_ value: T) -> T {
        let all = Array(T.allCases)
        return all[((all.firstIndex(of: value)! + steps) % all.count + all.count) % all.count]
    }
    switch state.detailPage {
    case .score: state.scoreSpan = step(state.scoreSpan)
    case .history: state.historyBucket = step(state.historyBucket)
    case .weekday: state.weekdayGrid.toggle()
    case .calendar: state.message = Message("[ and ] change a chart's span or period: tab goes to the charts")
    case .streaks, .difficulty: state.message = Message("This chart has one view: tab goes to the next page")
    }
}

/// The overview of every habit: scrolling, help, back.
func overview(_ command: Command, _ state: inout AppState) -> [Effect] {
    switch command {
    case .moveDown, .moveUp:
        let layout = overviewLayout(state)
        state.overviewScroll = max(0, min(layout.count - layout.visible, layout.first + (command == .moveDown ? 1 : -1)))
    case .back: state.screen = .today
    case .help: openHelp(from: .overview, &state)
    case .nextTheme: return nextTheme(&state)
    default: break
    }
    return []
}

/// Moves the day cursor, kept between `start` and today; says so at either end.
func moveCursor(to target: LocalDay, from start: LocalDay, _ state: inout AppState) {
    let earliest = max(start, LocalDay.earliest)
    if target < earliest {
        if state.cursorDay <= earliest {
            state.message = Message(start > LocalDay.earliest ? "Nothing earlier: this habit starts on \(start)" : "Nothing earlier")
        }
        state.cursorDay = earliest
    } else if target > state.today {
        if state.cursorDay >= state.today { state.message = Message("This is today: the future cannot be checked in yet") }
        state.cursorDay = max(earliest, state.today)
    } else {
        state.cursorDay = target
    }
}

func week(_ command: Command, _ state: inout AppState) -> [Effect] {
    let habits = state.weekHabits
    if command.isDayCommand {
        guard let id = state.cursorHabit, let habit = habits.first(where: { $0.id == id }) else { return noHabit(&state) }
        return dayCommand(command, habit, state.cursorDay, &state)
    }
    switch command {
    case .moveDown, .moveUp:
        guard !habits.isEmpty else { return [] }
        let i = habits.firstIndex { $0.id == state.cursorHabit } ?? 0
        state.cursorHabit = habits[max(0, min(habits.count - 1, i + (command == .moveDown ? 1 : -1)))].id
    case .previousDay, .nextDay, .previousWeek, .nextWeek, .today:
        let steps: [Command: Int] = [.previousDay: -1, .nextDay: 1, .previousWeek: -7, .nextWeek: 7]
        let target = command == .today ? state.today : state.cursorDay.adding(steps[command] ?? 0)
        moveCursor(to: target, from: LocalDay.earliest.adding(13), &state)
        weekFollowsCursor(&state)
    case .detail:
        guard let id = state.cursorHabit, let habit = state.habits.habit(id) else { return noHabit(&state) }
        state.screen = .detail(id)
        state.cursorDay = max(habit.startDate, state.cursorDay)
    case .undo: return [.undo]
    case .back: state.screen = .today
    case .help: openHelp(from: .week, &state)
    case .nextTheme: return nextTheme(&state)
    default: break
    }
    return []
}

/// The week overview's days follow its cursor (after a move or a resize).
func weekFollowsCursor(_ state: inout AppState) {
    if state.cursorDay > state.weekEnd { state.weekOffset = state.cursorDay.days(to: state.date) }
    let span = state.weekDayCount - 1
    if state.cursorDay < state.weekEnd.adding(-span) { state.weekOffset = state.cursorDay.adding(span).days(to: state.date) }
    if !state.weekHabits.contains(where: { $0.id == state.cursorHabit }) { state.cursorHabit = state.weekHabits.first?.id }
}
