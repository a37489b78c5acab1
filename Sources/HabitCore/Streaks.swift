import FoundationEssentials

// The streak rules: runs of due days (weeks, for N-per-week habits) that succeeded.
extension HabitState {
    /// Current and best streak as of `asOf`, with `today` the day still in progress: a
    /// pending (not yet successful) today neither counts nor breaks, and a limit habit's
    /// today neither counts nor breaks until it is over.
    public func streaks(_ habit: Habit, asOf: LocalDay, today: LocalDay, settings: RuleSettings = .init())
        -> (current: Int, best: Int)
    {
        streaks(habit, asOf: asOf, today: today, settings: settings, days: daysOf(habit))
    }

    func streaks(_ habit: Habit, asOf: LocalDay, today: LocalDay, settings: RuleSettings, days recorded: DayColumns)
        -> (current: Int, best: Int)
    {
        let runs = streakRuns(habit, asOf: asOf, today: today, settings: settings, days: recorded)
        return (runs.last(where: \.isCurrent)?.length ?? 0, runs.map(\.length).max() ?? 0)
    }

    /// Every streak up to `asOf`, oldest first, by the streak rules: days (weeks for
    /// N-per-week habits) that succeeded in a row, skipped days neither counting nor
    /// breaking, today pending (a limit habit's today neither counts nor breaks until it is
    /// over). The last run is flagged current when it has not been broken.
    func streakRuns(_ habit: Habit, asOf: LocalDay, today: LocalDay, settings: RuleSettings, days recorded: DayColumns)
        -> [StreakRun]
    {
        streakWalk(habit, asOf: asOf, today: today, settings: settings, days: recorded, from: nil).runs
    }

    /// The streak rules' walk, from the habit's start or, with `from`, from the start of the
    /// week that holds `from` (days and weeks before it are not looked at). `broke` tells
    /// whether a day or week in the walk broke a streak: then the current run began after
    /// that break, and a walk from the habit's start would end with the same current run
    /// (each day's, and each week's, outcome depends on that day or week alone).
    func streakWalk(_ habit: Habit, asOf: LocalDay, today: LocalDay, settings: RuleSettings, days recorded: DayColumns,
                    from: LocalDay?) -> (runs: [StreakRun], broke: Bool)
    {
        let end = min(asOf, habit.lastActiveDay ?? asOf)
        guard end >= habit.startDate else { return ([], false) }
        let first = max(habit.startDate, from?.startOfWeek(settings.weekStart) ?? habit.startDate)
        // Weekly habits look at the whole week that holds `end` (its skips count).
        let days = DayTable(recorded, from: first, to: end.startOfWeek(settings.weekStart).adding(6))
        var runs: [StreakRun] = []
        var run = 0, runStart = first, runEnd = first
        var broke = false
        func close(current: Bool) {
            if run > 0 { runs.append(StreakRun(start: runStart, end: runEnd, length: run, isCurrent: current)) }
            if !current { broke = true }
            run = 0
        }
        if habit.schedule.isWeekly {
            var weekStart = first.startOfWeek(settings.weekStart)
            while weekStart <= end {
                let weekEnd = weekStart.adding(6)
                let week = weekTally(habit, days, weekStart: weekStart, through: end)
                if week.required > 0 {
                    if week.done >= week.required {
                        if run == 0 { runStart = max(weekStart, habit.startDate) }
                        run += 1
                        runEnd = min(weekEnd, end)
                    } else if weekEnd < today { close(current: false) }
                    // else: the week is still running: neither counts nor breaks.
                }
                weekStart = weekStart.adding(7)
            }
            close(current: true)
            return (runs, broke)
        }
        // A limit day is settled only once it is over: today it neither counts nor breaks.
        let settledBefore = habit.kind == .limit ? today : .latest
        var d = first
        while d <= end {
            if habit.isScheduledDay(d) {
                let o = outcome(habit, days, d)
                if !o.skipped && d < settledBefore {
                    if o.success {
                        if run == 0 { runStart = d }
                        run += 1
                        runEnd = d
                    } else if d < today { close(current: false) }
                }
            }
            d = d.adding(1)
        }
        close(current: true)
        return (runs, broke)
    }
}
