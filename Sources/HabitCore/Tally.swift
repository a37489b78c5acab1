/// A day's count for a shell prompt or a status line: the habits due that day (not
/// skipped) and how many of them are done.
public struct DayTally: Hashable, Sendable {
    /// Due habits that are completed (a limit habit within its limit counts as done, as
    /// `list` shows it).
    public let done: Int
    /// Habits due on the day and not skipped.
    public let due: Int
    /// The due habits not completed yet, and the completed ones (in no particular order).
    public let left: [HabitID], completed: [HabitID]

    public init(done: Int, due: Int, left: [HabitID] = [], completed: [HabitID] = []) {
        self.done = done; self.due = due; self.left = left; self.completed = completed
    }
}

extension HabitState {
    /// The tally of `day`, reading only the records it needs: the day of each habit, and
    /// the week up to the day for an N-per-week habit (through the snapshot's block index,
    /// without its checksum, so its cost does not grow with history). The verdict is the rules' (`DayVerdict`,
    /// `isDue`), so it agrees with `list` and `summary`.
    public func tally(on day: LocalDay, settings: RuleSettings = .init()) -> DayTally {
        var left: [HabitID] = [], completed: [HabitID] = []
        for habit in habits where habit.isActive(on: day) {
            let entry = entries[habit.id]
            let defined = habit.on(day)
            let first = max(defined.schedule.period.start(of: day, weekStart: settings.weekStart), habit.startDate)
            var records: [LocalDay: DayRecord] = [:]
            var d = first
            while d <= day {
                if let r = entry?.peekRecord(d) { records[d] = r }
                d = d.adding(1)
            }
            let full = DayColumns(records)
            let days = asRead(habit, full)
            let at = days.index(of: day)
            let skipped = at.map { days.isSkipped(at: $0) } ?? false
            let verdict = DayVerdict(defined, progress: at.map { days.progress(at: $0) } ?? 0, skipped: skipped,
                                     scheduled: isDue(habit, on: day, settings: settings, days: days))
            guard verdict.scheduled, !skipped else { continue }
            if verdict.completed { completed.append(habit.id) } else { left.append(habit.id) }
        }
        return DayTally(done: completed.count, due: completed.count + left.count, left: left, completed: completed)
    }
}
