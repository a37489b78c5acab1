/// One day of a habit's history.
public struct DaySummary: Hashable, Sendable {
    public let day: LocalDay
    public let scheduled: Bool
    public let progress: Int
    public let completed: Bool
    public let skipped: Bool
    /// Answered as not done (see `DayLine.notDone`).
    public let notDone: Bool
    /// Paused (see `DayLine.paused`): also `skipped`.
    public let paused: Bool
    public let exceeded: Bool
    public let difficulty: Int?
    /// Counts against the habit (see `DayVerdict.missed`): drawn as a miss. An N-per-week
    /// habit's open day is neutral until its week is over and short of the quota.
    public let missed: Bool
}

extension HabitState {
    /// Every day from the start date through `end` (or the archive date), oldest first,
    /// judged by the same rules as the list and XP (`DayVerdict`), with `today` the day in
    /// progress (`end` when nil): the days before it are over and can be missed.
    public func history(_ habit: Habit, through end: LocalDay, today: LocalDay? = nil,
                        settings: RuleSettings = .init()) -> [DaySummary] {
        let last = min(end, habit.lastActiveDay ?? end)
        guard last >= habit.startDate else { return [] }
        let columns = daysOf(habit)
        // The last week and month are read whole (their skips to come change what they ask for).
        let tableEnd = max(last.startOfWeek(settings.weekStart).adding(6), last.endOfMonth)
        let table = DayTable(columns, from: habit.startDate, to: tableEnd)
        var out: [DaySummary] = []
        out.reserveCapacity(table.progress.count)
        var k = columns.lowerBound(habit.startDate)
        judgeDays(habit, table, through: last, today: today ?? end, settings: settings) { d, v in
            while k < columns.count && columns.day(at: k) < d { k += 1 }
            let here = k < columns.count && columns.day(at: k) == d
            let rating = here ? columns.rating(at: k) : nil
            let i = table.start.days(to: d)
            out.append(DaySummary(day: d, scheduled: v.scheduled, progress: table.progress[i], completed: v.completed,
                                  skipped: table.skipped[i], notDone: here && columns.isAnsweredNotDone(at: k),
                                  paused: here && columns.isPaused(at: k),
                                  exceeded: v.exceeded, difficulty: rating,
                                  missed: v.missed))
        }
        return out
    }
}
