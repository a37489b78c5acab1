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
        let days = entries[habit.id]?.days ?? [:]
        var d = habit.startDate
        while d <= last {
            let rec = days[d]
            let p = rec?.progress ?? 0
            let skipped = rec?.isSkipped ?? false
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
                                  exceeded: habit.kind == .limit && p > habit.goal, difficulty: rec?.rating))
            d = d.adding(1)
        }
        return out
    }
}
