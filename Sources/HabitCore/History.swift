/// One day of a habit's history.
public struct DaySummary: Hashable, Sendable {
    public let day: LocalDay
    public let scheduled: Bool
    public let progress: Int
    public let completed: Bool
    public let skipped: Bool
    public let exceeded: Bool
    public let difficulty: Int?
}

extension HabitState {
    /// Every day from the start date through `end` (or the archive date), oldest first,
    /// judged by the same rules as the list and XP (`DayVerdict`).
    public func history(_ habit: Habit, through end: LocalDay, settings: RuleSettings = .init()) -> [DaySummary] {
        let last = min(end, habit.lastActiveDay ?? end)
        guard last >= habit.startDate else { return [] }
        let columns = daysOf(habit)
        let table = DayTable(columns, from: habit.startDate, to: last)
        var out: [DaySummary] = []
        out.reserveCapacity(table.progress.count)
        var k = columns.lowerBound(habit.startDate)
        judgeDays(habit, table, settings: settings) { d, v in
            while k < columns.count && columns.day(at: k) < d { k += 1 }
            let rating = k < columns.count && columns.day(at: k) == d ? columns.rating(at: k) : nil
            let i = table.start.days(to: d)
            out.append(DaySummary(day: d, scheduled: v.scheduled, progress: table.progress[i], completed: v.completed,
                                  skipped: table.skipped[i], exceeded: v.exceeded, difficulty: rating))
        }
        return out
    }
}
