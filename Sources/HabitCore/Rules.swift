import FoundationEssentials
import Glibc

/// Settings the rules depend on.
public struct RuleSettings: Hashable, Sendable {
    /// The first day of a week, for N-times-per-week habits.
    public var weekStart: Weekday
    public init(weekStart: Weekday = .monday) { self.weekStart = weekStart }
}

/// XP earned per successful habit-day and per perfect day.
public let xpPerHabitDay = 50
public let xpPerPerfectDay = 50

/// A level and the XP around it. Level L is reached at 50·L·(L−1) XP.
public struct LevelInfo: Hashable, Sendable {
    public let level: Int
    /// XP earned since reaching this level.
    public let xpIntoLevel: Int
    /// XP between this level and the next (100·L).
    public let xpForNextLevel: Int
    /// XP still missing to reach the next level.
    public var xpToNextLevel: Int { xpForNextLevel - xpIntoLevel }

    /// The level for a total XP.
    public init(xp: Int) {
        let total = max(0, xp)
        // Solve 50·L·(L−1) ≤ xp, then correct rounding.
        var l = max(1, Int((1 + (1 + Double(total) / 12.5).squareRoot()) / 2))
        while 50 * l * (l - 1) > total { l -= 1 }
        while 50 * (l + 1) * l <= total { l += 1 }
        level = l
        xpIntoLevel = total - 50 * l * (l - 1)
        xpForNextLevel = 100 * l
    }
    /// The XP at which a level starts.
    public static func threshold(level: Int) -> Int { 50 * level * (level - 1) }
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
    public let difficulty: Int?
    /// For limit habits: progress above the ceiling.
    public let exceeded: Bool
    /// The current streak as of the day: days, or weeks for N-per-week habits.
    public let streak: Int
    public let streakUnit: String
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
    /// For N-per-week habits: the days of the day's week up to it that succeeded (not
    /// skipped), and what the week asks for (min(N, its days not skipped and active); see
    /// Rules). Nil for other schedules.
    public var weekDone: Int? = nil
    public var weekQuota: Int? = nil

    public subscript<T>(dynamicMember path: KeyPath<DayLine, T>) -> T { line[keyPath: path] }
}

/// Whole-account figures.
public struct Stats: Hashable, Sendable {
    /// Settled XP: every day before today, and what today has earned for good.
    public let xp: Int
    public let level: LevelInfo
    /// Settled XP earned on today's date.
    public let xpToday: Int
    /// XP that today will add when it ends as it stands: its limit habits that are within
    /// their limit, and today's perfect day when a limit habit takes part in it. Not in `xp`.
    public let xpProvisional: Int
    /// Settled perfect days.
    public let perfectDays: Int
    /// Habits that exist and are not archived today; archived ones.
    public let habits: Int
    public let archivedHabits: Int
    /// Units of progress recorded on existing habits (sum over all days).
    public let checkIns: Int
}

extension HabitState {
    /// A habit's recorded days as the rules read them, fetched once per rule evaluation.
    /// A habit's days as the rules read them (a yes/no habit's progress at most its goal).
    func daysOf(_ habit: Habit) -> DayColumns { asRead(habit, entries[habit.id]?.columns ?? DayColumns()) }

    /// A habit's columns as the rules read them (a yes/no habit's days capped at its goal).
    func asRead(_ habit: Habit, _ days: DayColumns) -> DayColumns { habit.isYesNo ? days.capped(at: habit.goal) : days }

    /// Whether the habit is due on `day`: active, on a scheduled day; for N-per-week
    /// habits, while fewer than N days of that week before `day` succeeded (so the day that
    /// meets the quota is due, and a success after it in the same week is not).
    public func isDue(_ habit: Habit, on day: LocalDay, settings: RuleSettings = .init()) -> Bool {
        isDue(habit, on: day, settings: settings, days: daysOf(habit))
    }

    func isDue(_ habit: Habit, on day: LocalDay, settings: RuleSettings, days: DayColumns) -> Bool {
        guard habit.isActive(on: day) else { return false }
        guard case .perWeek(let n) = habit.schedule else { return habit.isScheduledDay(day) }
        var before = 0
        var d = max(day.startOfWeek(settings.weekStart), habit.startDate)
        while d < day {
            let o = outcome(habit, days, d)
            if o.success && !o.skipped { before += 1 }
            d = d.adding(1)
        }
        return before < n
    }

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

    /// Loop Habit Tracker's habit score on `asOf` (0–1), computed from the start date with
    /// multiplier 0.5^(√f/13). Build habits use Loop's boolean rolling window (numerator
    /// and denominator doubled below one per day); limit habits Loop's "at most" rule with
    /// target goal × numerator. The window holds the last `denominator` days that are not
    /// skipped: it stretches past skipped days (as Loop does since its fix for skips on
    /// non-daily habits), so a skipped day neither counts nor takes a slot, and the score
    /// on a skipped day is the day before's.
    public func strength(_ habit: Habit, asOf: LocalDay) -> Double {
        strength(habit, asOf: asOf, days: daysOf(habit))
    }

    func strength(_ habit: Habit, asOf: LocalDay, days: DayColumns) -> Double {
        let end = min(asOf, habit.lastActiveDay ?? asOf)
        guard end >= habit.startDate else { return habit.kind == .limit ? 1 : 0 }
        return scoreWalk(habit, through: end, days: days) { _, _ in }
    }

    /// Loop's score day by day from the start date through `end` (not before it): `body`
    /// gets each day's index from the start date and its score (a skipped day's is the day
    /// before's). Returns the score on `end`. The one computation behind `strength` and the
    /// score chart, in one pass.
    func scoreWalk(_ habit: Habit, through end: LocalDay, days: DayColumns, _ body: (Int, Double) -> Void) -> Double {
        var (numerator, denominator) = habit.schedule.frequency
        let frequency = Double(numerator) / Double(denominator)
        let multiplier = pow(0.5, frequency.squareRoot() / 13.0)
        let isLimit = habit.kind == .limit
        if !isLimit && frequency < 1 { numerator *= 2; denominator *= 2 }
        let target = Double(habit.goal * numerator)
        // The values of the last `denominator` days that were not skipped, as a ring.
        var window = Array(repeating: 0, count: denominator)
        var slot = 0
        var rolling = 0
        var score = isLimit ? 1.0 : 0.0
        let recorded = DayTable(days, from: habit.startDate, to: end)
        let count = max(0, habit.startDate.days(to: end) + 1)
        for i in 0..<count {
            if recorded.skipped[i] { body(i, score); continue }
            let progress = recorded.progress[i]
            let value = isLimit ? progress : (habit.succeeds(progress: progress) ? 1 : 0)
            rolling += value - window[slot]
            window[slot] = value
            slot = slot + 1 == denominator ? 0 : slot + 1
            let completed: Double
            if isLimit {
                if target > 0 { completed = min(1, max(0, 1 - (Double(rolling) - target) / target)) }
                else { completed = rolling > 0 ? 0 : 1 }
            } else {
                completed = min(1, Double(rolling) / Double(numerator))
            }
            score = score * multiplier + completed * (1 - multiplier)
            body(i, score)
        }
        return score
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
        let s = streaks(habit, asOf: day, today: today, settings: settings, days: days)
        let line = dayLine(habit, on: day, settings: settings, days: days, streak: s.current)
        let week = weekOf(habit, holding: day, settings: settings, days: days)
        return HabitSummary(line: line, bestStreak: s.best, strength: strength(habit, asOf: day, days: days),
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
        for window in recentDays > Self.firstWindowDays ? [Self.firstWindowDays, recentDays] : [recentDays] {
            let from = day.adding(-window).startOfWeek(settings.weekStart)
            guard from > habit.startDate else { break }
            let days = asRead(habit, entries[habit.id]?.recentColumns(from: from) ?? DayColumns())
            let walk = streakWalk(habit, asOf: day, today: today, settings: settings, days: days, from: from)
            if walk.broke {
                return dayLine(habit, on: day, settings: settings, days: days, streak: walk.runs.last(where: \.isCurrent)?.length ?? 0)
            }
        }
        let days = daysOf(habit)
        return dayLine(habit, on: day, settings: settings, days: days,
                       streak: streaks(habit, asOf: day, today: today, settings: settings, days: days).current)
    }

    /// The day's values read from `days` (which hold at least the week of `day`).
    func dayLine(_ habit: Habit, on day: LocalDay, settings: RuleSettings, days: DayColumns, streak: Int) -> DayLine {
        let at = days.index(of: day)
        let progress = at.map { days.progress(at: $0) } ?? 0
        let skipped = at.map { days.isSkipped(at: $0) } ?? false
        let verdict = DayVerdict(habit, progress: progress, skipped: skipped,
                                 scheduled: isDue(habit, on: day, settings: settings, days: days))
        return DayLine(habit: habit, day: day, scheduled: verdict.scheduled, progress: progress, completed: verdict.completed,
                       skipped: skipped, difficulty: at.flatMap { days.rating(at: $0) }, exceeded: verdict.exceeded,
                       streak: streak, streakUnit: habit.schedule.isWeekly ? "weeks" : "days")
    }

    /// An N-per-week habit's week that holds `day`, counted through `day`; nil for other schedules.
    func weekOf(_ habit: Habit, holding day: LocalDay, settings: RuleSettings, days: DayColumns) -> (done: Int, required: Int)? {
        guard habit.schedule.isWeekly else { return nil }
        let weekStart = day.startOfWeek(settings.weekStart)
        return weekTally(habit, DayTable(days, from: weekStart, to: weekStart.adding(6)), weekStart: weekStart, through: day)
    }

    /// XP, level, perfect days and totals, counted from each habit's start up to `today`.
    /// XP: 50 per habit-day that earns it (see `DayVerdict`), plus 50 per perfect day: at
    /// least one habit earned XP that day, and every habit-day that was due and not skipped
    /// succeeded (N-per-week habits take part only on days they earn XP). A limit habit's
    /// day is settled only once it is over: today's limit days, and today's perfect day when
    /// a limit habit takes part in it, are provisional (`xpProvisional`), so creating a limit
    /// habit earns nothing yet, and going over a limit never takes back XP already shown.
    public func stats(today: LocalDay, settings: RuleSettings = .init()) -> Stats {
        let all = habits
        let habitsCount = all.filter { $0.isActive(on: today) || $0.startDate > today }.count
        let archivedCount = all.filter { ($0.fields.archivedFrom ?? .latest) <= today }.count
        guard let ledger = xpLedger(today: today, settings: settings) else {
            return Stats(xp: 0, level: LevelInfo(xp: 0), xpToday: 0, xpProvisional: 0, perfectDays: 0,
                         habits: habitsCount, archivedHabits: archivedCount, checkIns: checkIns(all))
        }
        var xp = 0, perfect = 0
        for i in 0..<ledger.span {
            xp += ledger.settledXP(i)
            if ledger.isPerfect(i) { perfect += 1 }
        }
        let t = ledger.span - 1
        var xpProvisional = ledger.openEarned * xpPerHabitDay
        if ledger.hasOpen && Int(ledger.earned[t]) + ledger.openEarned > 0
            && Int(ledger.met[t]) + ledger.openMet == Int(ledger.obligated[t]) + ledger.openObligated {
            xpProvisional += xpPerPerfectDay
        }
        return Stats(xp: xp, level: LevelInfo(xp: xp), xpToday: ledger.settledXP(t), xpProvisional: xpProvisional,
                     perfectDays: perfect, habits: habitsCount, archivedHabits: archivedCount, checkIns: ledger.checkIns)
    }

    /// Every day's habit-days from the first habit's start through `today`: the one count
    /// behind the XP of `stats` and of the weekly XP chart. Nil when no habit has started.
    func xpLedger(today: LocalDay, settings: RuleSettings) -> XPLedger? {
        let all = habits
        guard let first = all.map(\.startDate).min(), first <= today else { return nil }
        let span = first.days(to: today) + 1
        var ledger = XPLedger(first: first, span: span)
        for habit in all {
            // Fetched once: a state that does not keep decoded days decodes them once here.
            let recorded = daysOf(habit)
            ledger.checkIns += recorded.totalProgress
            let end = min(today, habit.lastActiveDay ?? today)
            guard end >= habit.startDate else { continue }
            let days = DayTable(recorded, from: habit.startDate, to: end)
            judgeDays(habit, days, today: today, settings: settings) { d, v in
                if d == today && habit.kind == .limit {
                    if v.obligated { ledger.openObligated += 1; if v.completed { ledger.openMet += 1 } }
                    if v.earnsXP { ledger.openEarned += 1 }
                    return
                }
                let i = first.days(to: d)
                if v.obligated { ledger.obligated[i] += 1; if v.completed { ledger.met[i] += 1 } }
                if v.earnsXP { ledger.earned[i] += 1 }
            }
        }
        return ledger
    }

    /// Walks a habit's days from its start date through `last` (the end of `days` when nil),
    /// judging each one, with `today` the day in progress (the days before it are over).
    /// The one place that counts an N-per-week habit's successes within its week.
    func judgeDays(_ habit: Habit, _ days: DayTable, through last: LocalDay? = nil, today: LocalDay,
                   settings: RuleSettings, _ body: (LocalDay, DayVerdict) -> Void) {
        var weekSuccesses = 0
        var currentWeek = habit.startDate.startOfWeek(settings.weekStart)
        var weekShort = false
        var d = habit.startDate
        let count = last.map { min(days.progress.count, habit.startDate.days(to: $0) + 1) } ?? days.progress.count
        for i in 0..<max(0, count) {
            let scheduled: Bool
            if case .perWeek(let n) = habit.schedule {
                let w = d.startOfWeek(settings.weekStart)
                if w != currentWeek || i == 0 {
                    currentWeek = w; weekSuccesses = 0
                    // A week that is over and fell short of what it asks for: its open days are misses.
                    if w.adding(6) < today {
                        let tally = weekTally(habit, days, weekStart: w, through: w.adding(6))
                        weekShort = tally.done < tally.required
                    } else {
                        weekShort = false
                    }
                }
                scheduled = weekSuccesses < n
            } else {
                scheduled = habit.isScheduledDay(d)
            }
            let v = DayVerdict(habit, progress: days.progress[i], skipped: days.skipped[i], scheduled: scheduled,
                               over: d < today, weekShort: weekShort)
            if habit.schedule.isWeekly && v.completed { weekSuccesses += 1 }
            body(d, v)
            d = d.adding(1)
        }
    }

    private func checkIns(_ all: [Habit]) -> Int {
        all.reduce(0) { sum, h in sum + daysOf(h).totalProgress }
    }
}

/// Per day from `first`: habit-days due and not skipped, those that succeeded, those that
/// earned XP; and today's limit habit-days, which are provisional (not in the arrays).
struct XPLedger {
    let first: LocalDay
    let span: Int
    var obligated: [Int32], met: [Int32], earned: [Int32]
    var openObligated = 0, openMet = 0, openEarned = 0
    var checkIns = 0

    init(first: LocalDay, span: Int) {
        self.first = first; self.span = span
        obligated = Array(repeating: 0, count: span); met = obligated; earned = obligated
    }

    /// Whether today holds a limit habit-day, which leaves today's perfect day provisional.
    var hasOpen: Bool { openObligated != 0 || openEarned != 0 }

    /// A settled perfect day: some habit earned XP and every obligation was met (today's
    /// only when no limit habit takes part in it).
    func isPerfect(_ i: Int) -> Bool {
        earned[i] > 0 && met[i] == obligated[i] && (i < span - 1 || !hasOpen)
    }

    /// The settled XP of day `i`: 50 per habit-day that earned it, 50 for a perfect day.
    func settledXP(_ i: Int) -> Int {
        Int(earned[i]) * xpPerHabitDay + (isPerfect(i) ? xpPerPerfectDay : 0)
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
struct DayVerdict {
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
        self.scheduled = scheduled
        completed = !skipped && habit.succeeds(progress: progress)
        exceeded = !skipped && habit.kind == .limit && progress > habit.goal
        obligated = scheduled && !skipped && !habit.schedule.isWeekly
        earnsXP = scheduled && completed
        let open = over && !completed && !skipped
        missed = open && (habit.schedule.isWeekly ? weekShort : scheduled)
    }
}

/// An N-per-week habit's week (from `weekStart`): the days of it up to `through` that
/// succeeded and are not skipped, and what the week asks for: min(N, its days that are not
/// skipped and within the habit's active dates). The one count the streak, the list's
/// `1/3 this wk` and the week grid's misses share. `table` must cover the whole week.
func weekTally(_ habit: Habit, _ table: DayTable, weekStart: LocalDay, through: LocalDay) -> (done: Int, required: Int) {
    guard case .perWeek(let n) = habit.schedule else { return (0, 0) }
    let weekEnd = weekStart.adding(6)
    var available = 0, done = 0
    var d = max(weekStart, habit.startDate)
    let last = min(weekEnd, habit.lastActiveDay ?? weekEnd)
    while d <= last {
        let o = outcome(habit, table, d)
        if !o.skipped {
            available += 1
            if d <= through && o.success { done += 1 }
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
