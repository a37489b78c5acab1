/// One habit-day that has nothing recorded and can still be filled in.
public struct CatchUpItem: Hashable, Sendable {
    public let habit: Habit
    public let day: LocalDay
    public init(habit: Habit, day: LocalDay) { self.habit = habit; self.day = day }
}

/// What catching up asks about, the one rule behind `habitto ask` and the UI's catch-up
/// screen and hint.
public enum CatchUp {
    /// How far back catching up looks by default.
    public static let defaultDays = 7

    /// Every due build habit-day from `days` days before `today` through `today` that has nothing
    /// recorded (no progress, skip, rating or "not done" answer) and comes after the habit's last day before
    /// today with anything recorded (today is asked when nothing is recorded on it), oldest
    /// day first and, within a day, habits in the listing order (`HabitState.listed`).
    /// Days before a habit's start date or from its archive date on are never asked.
    public static func items(_ state: HabitState, today: LocalDay, days: Int = defaultDays,
                             settings: RuleSettings = .init()) -> [CatchUpItem] {
        let first = today.adding(-max(0, days))
        var out: [CatchUpItem] = []
        // A limit habit's day with nothing recorded already succeeds (it was kept): only its
        // lapses need recording, so catching up never asks about limit habits.
        for habit in state.habits {
            let columns = state.daysOf(habit)
            // Days after the last recorded one before today; today when nothing is recorded on it.
            let last = columns.lastRecorded(through: today.adding(-1))
            let todayRecorded = columns.lastRecorded(through: today) == today
            var d = max(first, habit.startDate, last.map { $0.adding(1) } ?? first)
            while d <= today {
                // A paused day is never asked about (and says nothing of the days before it).
                if d < today || !todayRecorded, habit.on(d).kind == .build, !columns.isPaused(on: d),
                   state.isDue(habit, on: d, settings: settings, days: columns), Edits.isRecordable(habit, d, today: today) {
                    out.append(CatchUpItem(habit: habit, day: d))
                }
                d = d.adding(1)
            }
        }
        let order = Dictionary(uniqueKeysWithValues: state.listed.enumerated().map { ($1.id, $0) })
        return out.sorted { $0.day != $1.day ? $0.day < $1.day : order[$0.habit.id]! < order[$1.habit.id]! }
    }

    /// The items before `today`: what the today screen's hint counts.
    public static func missed(_ state: HabitState, today: LocalDay, days: Int = defaultDays,
                              settings: RuleSettings = .init()) -> [CatchUpItem] {
        items(state, today: today, days: days, settings: settings).filter { $0.day < today }
    }
}

extension DayColumns {
    /// The last day on or before `day` with progress, a skip, a rating or a "not done" answer
    /// (a pause is none of them: it says nothing about the days before it).
    func lastRecorded(through day: LocalDay) -> LocalDay? {
        var i = lowerBound(day.adding(1)) - 1
        while i >= 0 {
            if progress(at: i) > 0 || (isSkipped(at: i) && !isPaused(at: i)) || rating(at: i) != nil || isAnsweredNotDone(at: i) {
                return self.day(at: i)
            }
            i -= 1
        }
        return nil
    }
}

extension CatchUp {
    /// One answer to "how did this habit-day go?", from a typed line (`ask`) or a key (the UI).
    public enum Answer: Hashable, Sendable {
        /// Done (a build habit's day reaches its goal; a limit habit's day was kept), with an
        /// optional difficulty.
        case done(difficulty: Int?)
        /// Not done: recorded as answered (`Change.notDone`), so it is not asked again; it
        /// counts as missed like any day that is not done (a yes/no check-in is taken back, a
        /// skip undone; an amount short of the goal stays).
        case notDone
        /// The day is skipped (neither counts nor breaks a streak).
        case skip
        /// This much was done (in thousandths, see `Amount`), with an optional difficulty.
        case amount(Int, difficulty: Int?)
        /// No answer: the day stays as it is.
        case leave
    }

    /// The answers as a line of the prompt says them.
    public static func choices(for habit: Habit) -> String {
        habit.isYesNo ? "y n s 1-5 enter" : "y n s amount enter"
    }

    /// Reads a typed answer: `y`, `n`, `s`, an empty line, an amount (`8`; for a yes/no habit
    /// `1`–`5` is done with that difficulty), optionally followed by a difficulty (`y 2`, `8 3`).
    public static func parse(_ line: String, for habit: Habit) throws -> Answer {
        let words = line.lowercased().split(separator: " ").map(String.init)
        guard let first = words.first else { return .leave }
        guard words.count <= 2 else { throw CoreError.oneAnswer(choices: choices(for: habit)) }
        let difficulty = try words.dropFirst().first.map { w -> Int in
            guard let d = Int(w), Limits.difficulty.contains(d) else { throw CoreError.difficultyOutOfRange(given: w) }
            return d
        }
        switch first {
        case "y", "yes": return .done(difficulty: difficulty)
        case "n", "no", "s", "skip":
            guard difficulty == nil else { throw CoreError.difficultyWithoutDone }
            return first.hasPrefix("n") ? .notDone : .skip
        default:
            if habit.isYesNo {
                guard difficulty == nil, let d = Int(first), Limits.difficulty.contains(d) else {
                    throw CoreError.notAnAnswer(line, yesNo: true)
                }
                return .done(difficulty: d)
            }
            do { return .amount(try Amount.parse(first), difficulty: difficulty) } catch {
                throw CoreError.notAnAnswer(line, yesNo: false)
            }
        }
    }

    /// The changes an answer records on a habit-day, by the same rules as `check` and `skip`.
    public static func changes(_ answer: Answer, for item: CatchUpItem, today: LocalDay, in state: HabitState) throws -> [Change] {
        let day = item.day
        guard let habit = state.habit(item.habit.id)?.on(day) else { throw CoreError.habitGone }
        func rated(_ d: Int?) throws -> [Change] { try d.map { try Edits.rate(habit, on: day, $0, today: today, in: state) } ?? [] }
        switch answer {
        case .leave:
            return []
        case .skip:
            return try Edits.setSkipped(habit, on: day, true, today: today, in: state)
        case .notDone:
            if habit.kind == .limit { throw CoreError.limitNeedsAmount(habit: habit.name) }
            try Edits.checkDay(habit, day, today: today)
            var changes: [Change] = []
            // A yes/no day's check-in is taken back (as space does); an amount stays what it
            // was, unless it reaches the goal: then only a smaller amount says what was done.
            let progress = state.progress(habit.id, day)
            if habit.isYesNo && progress > 0 {
                changes += try Edits.uncheck(habit, on: day, amount: progress, today: today, in: state)
            } else if progress >= habit.goal {
                throw CoreError.doneAlready(habit: habit.name, progress: progress, goal: habit.goal, day: day)
            }
            changes += Edits.unskipping(habit.id, day, in: state)
            if state.record(habit.id, day)?.notDoneRegister?.value != true { changes.append(.notDone(habit.id, day, true)) }
            return changes
        case .done(let d):
            let progress = state.progress(habit.id, day)
            guard habit.kind == .build, progress < habit.goal else { return try rated(d) }
            return try Edits.checkIn(habit, on: day, amount: habit.isYesNo ? Amount.scale : habit.goal - progress,
                                     difficulty: d, today: today, in: state)
        case .amount(let n, let d):
            guard n > 0 else { return try rated(d) }
            return try Edits.checkIn(habit, on: day, amount: n, difficulty: d, today: today, in: state)
        }
    }
}
