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
    /// Every day from the start date through `end` (or the archive date), oldest first.
    public func history(_ habit: Habit, through end: LocalDay, settings: RuleSettings = .init()) -> [DaySummary] {
        let last = min(end, habit.lastActiveDay ?? end)
        guard last >= habit.startDate else { return [] }
        var out: [DaySummary] = []
        out.reserveCapacity(habit.startDate.days(to: last) + 1)
        var weekSuccesses = 0
        var week = habit.startDate.startOfWeek(settings.weekStart)
        let days = entries[habit.id]?.columns ?? DayColumns()
        // Recorded days are walked in step with the calendar.
        var k = days.lowerBound(habit.startDate)
        var d = habit.startDate
        while d <= last {
            while k < days.count && days.day(at: k) < d { k += 1 }
            let at: Int? = k < days.count && days.day(at: k) == d ? k : nil
            let p = at.map { days.progress(at: $0) } ?? 0
            let skipped = at.map { days.isSkipped(at: $0) } ?? false
            let success = habit.succeeds(progress: p)
            let scheduled: Bool
            if case .perWeek(let n) = habit.schedule {
                let w = d.startOfWeek(settings.weekStart)
                if w != week { week = w; weekSuccesses = 0 }
                scheduled = weekSuccesses < n || (success && p > 0)
                if success && !skipped && p > 0 { weekSuccesses += 1 }
            } else {
                scheduled = habit.isScheduledDay(d)
            }
            out.append(DaySummary(day: d, scheduled: scheduled, progress: p, completed: success, skipped: skipped,
                                  exceeded: habit.kind == .limit && p > habit.goal, difficulty: at.flatMap { days.rating(at: $0) }))
            d = d.adding(1)
        }
        return out
    }
}
