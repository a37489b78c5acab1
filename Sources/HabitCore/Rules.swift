import FoundationEssentials

/// Settings the rules depend on.
public struct RuleSettings: Hashable, Sendable {
    /// The first day of a week, for N-times-per-week habits.
    public var weekStart: Weekday
    public init(weekStart: Weekday = .monday) { self.weekStart = weekStart }
}

/// One habit-day as a check-in's confirmation shows it: what `HabitSummary` says without
/// the figures that need the whole history (best streak, strength).
public struct DayLine: Hashable, Sendable {
    public let habit: Habit
    public let day: LocalDay
    /// Due on that day (weekly habits: while the week's quota is not yet met, or done that day).
    public let scheduled: Bool
    public let progress: Int
    public let completed: Bool
    public let skipped: Bool
    /// Answered as not done (`Change.notDone`; see `DayRecord.isAnsweredNotDone`): decided,
    /// where a day with nothing is still open.
    public let notDone: Bool
    /// Paused (`Change.pause`): also `skipped`, with its own mark.
    public let paused: Bool
    public let difficulty: Int?
    /// For limit habits: progress above the ceiling.
    public let exceeded: Bool
    /// The current streak as of the day: days, or weeks for N-per-week habits.
    public let streak: Int
    public let streakUnit: String
    /// A day before the habit's start date: not tracked, so never due, completed or
    /// exceeded, whatever it holds (a check-in kept from before the start was moved).
    public var isBeforeStart: Bool { day < habit.startDate }
}

/// One habit on one day, with everything the list and screens show: the day's line (its
/// fields read as the summary's own: `s.progress`, `s.streak`) and the figures of the
/// whole history.
@dynamicMemberLookup
public struct HabitSummary: Hashable, Sendable {
    public let line: DayLine
    /// The best streak: days, or weeks for N-per-week habits.
    public let bestStreak: Int
    /// Loop Habit Tracker's score, 0–1.
    public let strength: Double
    /// For N-per-week (N-per-month) habits: the days of the day's week (month) up to it
    /// that succeeded (not skipped), and what the period asks for (min(N, its days not
    /// skipped and active); see `periodTally`). Nil for other schedules.
    public var weekDone: Int? = nil
    public var weekQuota: Int? = nil

    public subscript<T>(dynamicMember path: KeyPath<DayLine, T>) -> T { line[keyPath: path] }

    /// The period `weekDone` and `weekQuota` count, abbreviated as the list shows it: "wk"
    /// (N per week) or "mo" (N per month).
    public var periodAbbreviation: String { line.habit.schedule.period == .month ? "mo" : "wk" }
}

extension HabitState {
    /// A habit's recorded days as the rules read them, fetched once per rule evaluation
    /// (a yes/no habit's progress at most its goal).
    func daysOf(_ habit: Habit) -> DayColumns { asRead(habit, entries[habit.id]?.columns ?? DayColumns()) }

    /// A habit's columns as the rules read them: each day of a yes/no definition capped at
    /// its goal.
    func asRead(_ habit: Habit, _ days: DayColumns) -> DayColumns {
        guard habit.hasHistory else { return habit.isYesNo ? days.capped(at: habit.goal) : days }
        return days.capped { day in let h = habit.on(day); return h.isYesNo ? h.goal : nil }
    }

    /// Whether the habit is due on `day`, by the definition in force that day: active, on a
    /// scheduled day; for N-per-week (N-per-month) habits, while fewer than N days of that
    /// week (month) before `day` succeeded (so the day that meets the quota is due, and a
    /// success after it in the same period is not).
    public func isDue(_ habit: Habit, on day: LocalDay, settings: RuleSettings = .init()) -> Bool {
        isDue(habit, on: day, settings: settings, days: daysOf(habit))
    }

    func isDue(_ habit: Habit, on day: LocalDay, settings: RuleSettings, days: DayColumns) -> Bool {
        guard habit.isActive(on: day) else { return false }
        let defined = habit.on(day)
        guard let n = defined.schedule.quota else { return defined.isScheduledDay(day) }
        let period = defined.schedule.period
        var before = 0
        var d = max(period.start(of: day, weekStart: settings.weekStart), habit.startDate)
        while d < day {
            let h = habit.on(d)
            if h.schedule.period == period {
                let o = outcome(h, days, d)
                if o.success && !o.skipped { before += 1 }
            }
            d = d.adding(1)
        }
        return before < n
    }

    /// The average difficulty over the last `count` rated days up to `asOf`.
    public func difficultyAverage(_ habit: Habit, asOf: LocalDay, count: Int) -> Double? {
        guard let days = entries[habit.id]?.columns else { return nil }
        // Newest first, from the last recorded day on or before `asOf`.
        var i = days.lowerBound(asOf.adding(1)) - 1
        var sum = 0, rated = 0
        while i >= 0 && rated < count {
            if let r = days.rating(at: i) { sum += r; rated += 1 }
            i -= 1
        }
        guard rated > 0 else { return nil }
        return Double(sum) / Double(rated)
    }

    /// The summary of one habit on `day`, with `today` the day in progress.
    public func summary(_ habit: Habit, on day: LocalDay, today: LocalDay, settings: RuleSettings = .init())
        -> HabitSummary
    {
        // The habit's days are fetched once (a state that does not cache decoded days
        // decodes them once per summary).
        let days = daysOf(habit)
        // A day after today: the days between have not happened, so they are neither done nor
        // missed; its streaks and strength are today's (its own values are what is recorded
        // on it, a planned skip say).
        let asOf = min(day, today)
        let s = streaks(habit, asOf: asOf, today: today, settings: settings, days: days)
        let line = dayLine(habit, on: day, settings: settings, days: days, streak: s.current)
        let week = weekOf(habit, holding: day, settings: settings, days: days)
        return HabitSummary(line: line, bestStreak: s.best, strength: strength(habit, asOf: asOf, days: days),
                            weekDone: week?.done, weekQuota: week?.required)
    }

    /// How many days back a check-in's confirmation looks for a broken streak before it
    /// reads the whole history (`dayLine`).
    public static let recentDays = 400
    /// The shorter window `dayLine` looks through first.
    static let firstWindowDays = 56

    /// What a check-in's confirmation shows: the day's values and the current streak, equal
    /// to `summary`'s. The streak is walked over the weeks that hold the last 56 days (then
    /// the last `recentDays`) before `day`, read without decoding older days (through the
    /// snapshot block's index), when a streak broke within them: the current run then began
    /// after that break. Otherwise (a longer streak, or a habit younger than that) the whole history is
    /// read, as `summary` does. So a check-in's cost does not grow with a long history.
    public func dayLine(_ habit: Habit, on day: LocalDay, today: LocalDay, settings: RuleSettings = .init(),
                        recentDays: Int = Self.recentDays) -> DayLine {
        // The last eight weeks first (most streaks broke within them), then the whole window.
        // Read whole when some definition counts months (a window from a week's start could
        // cut a month in two).
        let countsMonths = habit.definitions.contains { $0.rule.schedule.period == .month }
        let windows = countsMonths ? []
            : recentDays > Self.firstWindowDays ? [Self.firstWindowDays, recentDays] : [recentDays]
        for window in windows {
            let from = day.adding(-window).startOfWeek(settings.weekStart)
            guard from > habit.startDate else { break }
            let days = asRead(habit, entries[habit.id]?.recentColumns(from: from) ?? DayColumns())
            let walk = streakWalk(habit, asOf: day, today: today, settings: settings, days: days, from: from)
            if walk.broke {
                return dayLine(habit, on: day, settings: settings, days: days, streak: Self.currentLength(walk.runs, unit: habit.on(day).schedule.period))
            }
        }
        let days = daysOf(habit)
        return dayLine(habit, on: day, settings: settings, days: days,
                       streak: streaks(habit, asOf: day, today: today, settings: settings, days: days).current)
    }

    /// The day's values read from `days` (which hold at least the week or month of `day`),
    /// judged by the definition in force that day (the line's habit is the habit so defined).
    func dayLine(_ habit: Habit, on day: LocalDay, settings: RuleSettings, days: DayColumns, streak: Int) -> DayLine {
        let at = days.index(of: day)
        let progress = at.map { days.progress(at: $0) } ?? 0
        let skipped = at.map { days.isSkipped(at: $0) } ?? false
        let defined = habit.on(day)
        // Before the start nothing is judged: the day holds nothing as far as the rules go.
        let started = day >= habit.startDate
        let verdict = DayVerdict(defined, progress: started ? progress : 0, skipped: started && skipped,
                                 scheduled: started && isDue(habit, on: day, settings: settings, days: days))
        return DayLine(habit: defined, day: day, scheduled: verdict.scheduled, progress: progress,
                       completed: verdict.completed && started,
                       skipped: skipped, notDone: at.map { days.isAnsweredNotDone(at: $0) } ?? false,
                       paused: at.map { days.isPaused(at: $0) } ?? false,
                       difficulty: at.flatMap { days.rating(at: $0) }, exceeded: verdict.exceeded,
                       streak: streak, streakUnit: defined.schedule.streakUnit)
    }

    /// An N-per-week (N-per-month) habit's week (month) that holds `day`, counted through
    /// `day`; nil when the definition in force on `day` has fixed days.
    func weekOf(_ habit: Habit, holding day: LocalDay, settings: RuleSettings, days: DayColumns) -> (done: Int, required: Int)? {
        let period = habit.on(day).schedule.period
        guard period != .day else { return nil }
        let start = period.start(of: day, weekStart: settings.weekStart)
        let end = period.end(of: day, weekStart: settings.weekStart)
        return periodTally(habit, DayTable(days, from: start, to: end), period: period, start: start, through: day,
                           weekStart: settings.weekStart)
    }

    /// Walks a habit's days from its start date through `last` (the end of `days` when nil),
    /// judging each one by the definition in force that day, with `today` the day in
    /// progress (the days before it are over). The one place that counts an N-per-week
    /// (N-per-month) habit's successes within its week (month). `days` must reach the end
    /// of the period that holds `last`.
    func judgeDays(_ habit: Habit, _ days: DayTable, through last: LocalDay? = nil, today: LocalDay,
                   settings: RuleSettings, _ body: (LocalDay, DayVerdict) -> Void) {
        var periodSuccesses = 0
        var currentPeriod: (SchedulePeriod, LocalDay)?
        var periodShort = false
        var cursor = DefinitionCursor(habit)
        var d = habit.startDate
        let count = last.map { min(days.progress.count, habit.startDate.days(to: $0) + 1) } ?? days.progress.count
        for i in 0..<max(0, count) {
            cursor.move(to: d)
            let scheduled: Bool
            if let n = cursor.current.schedule.quota {
                let period = cursor.current.schedule.period
                let start = period.start(of: d, weekStart: settings.weekStart)
                if currentPeriod.map({ $0 != (period, start) }) ?? true {
                    currentPeriod = (period, start); periodSuccesses = 0
                    // A period that is over and fell short of what it asks for: its open days are misses.
                    let end = period.end(of: d, weekStart: settings.weekStart)
                    if end < today {
                        let tally = periodTally(habit, days, period: period, start: start, through: end, weekStart: settings.weekStart)
                        periodShort = tally.done < tally.required
                    } else {
                        periodShort = false
                    }
                }
                scheduled = periodSuccesses < n
            } else {
                currentPeriod = nil
                scheduled = cursor.current.isScheduledDay(d)
            }
            let v = DayVerdict(cursor.shared, progress: days.progress[i], skipped: days.skipped[i], scheduled: scheduled,
                               over: d < today, weekShort: periodShort)
            if cursor.current.schedule.isQuota && v.completed { periodSuccesses += 1 }
            body(d, v)
            d = d.adding(1)
        }
    }
}

/// A habit read day by day, forwards: the habit as defined on each day asked, without
/// searching its definitions again for each day of one definition.
struct DefinitionCursor {
    let habit: Habit
    /// The habit as defined on the day last moved to: read in place (`cursor.current.goal`),
    /// since a copy of a `Habit` a day retains and releases every one of its fields, which
    /// over years of days of many habits was most of the rules' time (docs/performance.md).
    private(set) var current: Habit
    /// `current`, for what keeps it (a day's verdict): made again only with another definition.
    private(set) var shared: DefinedHabit
    private var valid: Range<Int>

    init(_ habit: Habit) {
        self.habit = habit; current = habit; shared = DefinedHabit(habit)
        valid = habit.hasHistory ? 0..<0 : Int.min..<Int.max
    }

    /// Makes `current` the habit as defined on `day` (see `Habit.on`); true when that is
    /// another definition than before (always false for a habit with one definition).
    @discardableResult
    mutating func move(to day: LocalDay) -> Bool {
        if valid.contains(day.ordinal) { return false }
        let defs = habit.definitions
        let i = defs.lastIndex(where: { $0.from <= day }) ?? 0
        let lower = i == 0 ? Int.min : defs[i].from.ordinal
        let upper = i + 1 < defs.count ? defs[i + 1].from.ordinal : Int.max
        current = habit.on(day)
        shared = DefinedHabit(current)
        valid = min(lower, day.ordinal)..<max(upper, day.ordinal + 1)
        return true
    }

    /// The habit as defined on `day`, a copy (for what is read once, not a day at a time).
    mutating func at(_ day: LocalDay) -> Habit {
        move(to: day)
        return current
    }

    /// The period of the schedule in force on `day`.
    mutating func period(on day: LocalDay) -> SchedulePeriod {
        move(to: day)
        return current.schedule.period
    }
}

/// A habit's progress and skips laid out by date over a range. The rules walk years of
/// days in order; an array index costs far less than hashing a date for each of them.
struct DayTable {
    let start: LocalDay
    var progress: [Int]
    var skipped: [Bool]

    init(_ days: DayColumns, from: LocalDay, to: LocalDay) {
        start = from
        let n = max(0, from.days(to: to) + 1)
        progress = Array(repeating: 0, count: n)
        skipped = Array(repeating: false, count: n)
        var k = days.lowerBound(from)
        while k < days.count {
            let i = from.days(to: days.day(at: k))
            if i >= n { break }
            progress[i] = days.progress(at: k); skipped[i] = days.isSkipped(at: k)
            k += 1
        }
    }
}

/// How the rules judge one habit-day: the one definition of completed, exceeded, due and
/// earning XP, which the list, the history, streaks and XP all read.
/// A habit as defined over a run of days, shared by the verdicts of those days: a verdict
/// holds one reference to it, where a copy of the habit in each day's verdict retained and
/// released every one of its fields (most of the time of a chart over years of days).
final class DefinedHabit: Sendable {
    let habit: Habit
    init(_ habit: Habit) { self.habit = habit }
}

struct DayVerdict {
    /// The habit as defined on that day (see `Habit.on`), shared with that definition's other days.
    let defined: DefinedHabit
    var habit: Habit { defined.habit }
    /// Due that day (N-per-week habits: while the week's quota was not met before it).
    let scheduled: Bool
    /// Succeeded and not skipped: a skipped day is never completed, whatever its progress.
    let completed: Bool
    /// A limit habit over its ceiling on a day that is not skipped.
    let exceeded: Bool
    /// Takes part in the perfect-day rule as an obligation: due on a fixed-day schedule and
    /// not skipped (N-per-week habits have no obligation on any one day).
    let obligated: Bool
    /// Earns 50 XP: completed and due (for N-per-week habits, one of the first N successes).
    let earnsXP: Bool
    /// Counts against the habit: a day that is over, not completed and not skipped, and
    /// either due on a fixed-day schedule or in an N-per-week habit's week that is over and
    /// fell short of what it asks for (before that, an N-per-week habit's open day is neutral).
    let missed: Bool

    init(_ habit: Habit, progress: Int, skipped: Bool, scheduled: Bool, over: Bool = false, weekShort: Bool = false) {
        self.init(DefinedHabit(habit), progress: progress, skipped: skipped, scheduled: scheduled, over: over, weekShort: weekShort)
    }

    init(_ defined: DefinedHabit, progress: Int, skipped: Bool, scheduled: Bool, over: Bool = false, weekShort: Bool = false) {
        self.defined = defined
        // Read in place: a `let` copy of the habit would retain each of its fields.
        self.scheduled = scheduled
        completed = !skipped && defined.habit.succeeds(progress: progress)
        exceeded = !skipped && defined.habit.kind == .limit && progress > defined.habit.goal
        obligated = scheduled && !skipped && !defined.habit.schedule.isQuota
        earnsXP = scheduled && completed
        let open = over && !completed && !skipped
        missed = open && (defined.habit.schedule.isQuota ? weekShort : scheduled)
    }
}

/// An N-per-week (N-per-month) habit's week (month) from `start`: the days of it up to
/// `through` that succeeded and are not skipped, and what the period asks for: min(N, its
/// days that are not skipped, from the habit's start date on and under a definition that
/// counts the same period), N being the one in force on the last such day. An archive date
/// within the period does not shrink what it asks for (archiving mid-week changes no figure
/// of that week); the days from it on are not tracked, so they add no success. Each day
/// succeeds by its own definition. The one count the streak, the list's `1/3 this wk` and
/// the week grid's misses share. `table` must cover the whole period.
func periodTally(_ habit: Habit, _ table: DayTable, period: SchedulePeriod, start: LocalDay, through: LocalDay,
                 weekStart: Weekday) -> (done: Int, required: Int) {
    let periodEnd = period.end(of: start, weekStart: weekStart)
    var available = 0, done = 0, n = 0
    var d = max(start, habit.startDate)
    let tracked = habit.lastActiveDay ?? periodEnd
    var cursor = DefinitionCursor(habit)
    while d <= periodEnd {
        cursor.move(to: d)
        if cursor.current.schedule.period == period, let quota = cursor.current.schedule.quota {
            let o = outcome(cursor.current, table, d)
            if !o.skipped {
                available += 1
                n = quota
                if d <= through && d <= tracked && o.success { done += 1 }
            }
        }
        d = d.adding(1)
    }
    return (done, min(n, available))
}

/// Whether a day in the table's range succeeded, and whether it is skipped.
@inline(__always)
func outcome(_ habit: Habit, _ table: DayTable, _ day: LocalDay) -> (success: Bool, skipped: Bool) {
    let i = table.start.days(to: day)
    guard i >= 0 && i < table.progress.count else { return (habit.succeeds(progress: 0), false) }
    return (habit.succeeds(progress: table.progress[i]), table.skipped[i])
}

/// Whether a day succeeded, and whether it is skipped.
@inline(__always)
func outcome(_ habit: Habit, _ days: DayColumns, _ day: LocalDay) -> (success: Bool, skipped: Bool) {
    guard let i = days.index(of: day) else { return (habit.succeeds(progress: 0), false) }
    return (habit.succeeds(progress: days.progress(at: i)), days.isSkipped(at: i))
}
