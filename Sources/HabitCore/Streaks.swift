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
        // The best among runs counted in the unit of the definition in force on `asOf`.
        let unit = habit.on(asOf).schedule.period
        return (Self.currentLength(runs, unit: unit), runs.filter { $0.period == unit }.map(\.length).max() ?? 0)
    }

    /// The current streak: the last run when it is unbroken and counted in `unit` (the unit
    /// of the definition in force on the day). A run in another unit ended at a change of
    /// unit without breaking; the new unit's run has not begun, so the streak is 0 (never the
    /// old run's days read as weeks).
    static func currentLength(_ runs: [StreakRun], unit: SchedulePeriod) -> Int {
        guard let last = runs.last, last.isCurrent, last.period == unit else { return 0 }
        return last.length
    }

    /// Every streak up to `asOf`, oldest first, by the streak rules: days (weeks, months for
    /// N-per-week, N-per-month habits) that succeeded in a row, skipped days neither
    /// counting nor breaking, today pending (a limit habit's today neither counts nor breaks
    /// until it is over). Each day and period is judged by the definition in force then; a
    /// change of definition does not break a streak, but a change of the unit it counts ends
    /// the run (a new one starts in the new unit). The last run is flagged current when it
    /// has not been broken.
    func streakRuns(_ habit: Habit, asOf: LocalDay, today: LocalDay, settings: RuleSettings, days recorded: DayColumns)
        -> [StreakRun]
    {
        streakWalk(habit, asOf: asOf, today: today, settings: settings, days: recorded, from: nil).runs
    }

    /// The streak rules' walk, from the habit's start or, with `from`, from the start of the
    /// week that holds `from` (days and weeks before it are not looked at). `broke` tells
    /// whether a day or period in the walk ended a streak: then the current run began after
    /// that, and a walk from the habit's start would end with the same current run (each
    /// day's, and each period's, outcome depends on that day or period alone).
    func streakWalk(_ habit: Habit, asOf: LocalDay, today: LocalDay, settings: RuleSettings, days recorded: DayColumns,
                    from: LocalDay?) -> (runs: [StreakRun], broke: Bool)
    {
        let end = min(asOf, habit.lastActiveDay ?? asOf)
        guard end >= habit.startDate else { return ([], false) }
        let first = max(habit.startDate, from?.startOfWeek(settings.weekStart) ?? habit.startDate)
        // Periods look at the whole week or month that holds `end` (its skips count).
        let tableEnd = max(end.startOfWeek(settings.weekStart).adding(6), end.endOfMonth)
        let days = DayTable(recorded, from: first, to: tableEnd)
        var runs: [StreakRun] = []
        var run = 0, runStart = first, runEnd = first, runPeriod = SchedulePeriod.day
        var broke = false
        func close(current: Bool) {
            if run > 0 { runs.append(StreakRun(start: runStart, end: runEnd, length: run, isCurrent: current, period: runPeriod)) }
            if !current { broke = true }
            run = 0
        }
        func succeed(_ start: LocalDay, _ last: LocalDay, _ period: SchedulePeriod) {
            if run > 0 && runPeriod != period { close(current: false) }
            if run == 0 { runStart = start; runPeriod = period }
            run += 1
            runEnd = last
        }
        var cursor = DefinitionCursor(habit)
        var d = first
        while d <= end {
            let period = cursor.period(on: d)
            if period != .day {
                let start = period.start(of: d, weekStart: settings.weekStart)
                let periodEnd = period.end(of: d, weekStart: settings.weekStart)
                let tally = periodTally(habit, days, period: period, start: start, through: end, weekStart: settings.weekStart)
                if tally.required > 0 {
                    if tally.done >= tally.required { succeed(max(start, habit.startDate), min(periodEnd, end), period) }
                    else if periodEnd < today { close(current: false) }
                    // else: the period is still running: neither counts nor breaks.
                }
                // On to the period's end, or to the first day under a definition that counts
                // something else (a day of it is judged on its own).
                var next = d.adding(1)
                while next <= min(periodEnd, end) && cursor.period(on: next) == period { next = next.adding(1) }
                d = next
                continue
            }
            // A limit day is settled only once it is over: today it neither counts nor breaks.
            if cursor.current.isScheduledDay(d) {
                let o = outcome(cursor.current, days, d)
                if !o.skipped && (cursor.current.kind != .limit || d < today) {
                    if o.success { succeed(d, d, .day) }
                    else if d < today { close(current: false) }
                }
            }
            d = d.adding(1)
        }
        close(current: true)
        return (runs, broke)
    }
}
