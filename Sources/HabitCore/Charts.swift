import FoundationEssentials

// The series behind the charts: pure functions of the state, a habit, today and the rule
// settings, read from the habit's day columns (never its full day records) and judged by
// the rules of Rules.swift (`scoreWalk`, `judgeDays`, `streakRuns`, `xpLedger`).

/// One streak: days (weeks for N-per-week habits) that succeeded in a row.
public struct StreakRun: Hashable, Sendable {
    /// The first and last day of the run (for weekly habits, of its first and last week).
    public let start: LocalDay
    public let end: LocalDay
    /// Days, or weeks for N-per-week habits.
    public let length: Int
    /// Not broken yet: the streak that is still going.
    public let isCurrent: Bool
    /// What `length` counts: days, weeks or months.
    public let period: SchedulePeriod
    public init(start: LocalDay, end: LocalDay, length: Int, isCurrent: Bool, period: SchedulePeriod = .day) {
        self.start = start; self.end = end; self.length = length; self.isCurrent = isCurrent; self.period = period
    }
}

/// How far back a chart looks.
public enum ChartSpan: String, CaseIterable, Sendable {
    case threeMonths = "3m", year = "1y", all

    /// The first day of the span ending on `today`, never before `start`.
    public func firstDay(today: LocalDay, start: LocalDay) -> LocalDay {
        switch self {
        case .threeMonths: return max(start, today.addingMonths(-3).adding(1))
        case .year: return max(start, today.addingMonths(-12).adding(1))
        case .all: return start
        }
    }
}

/// The period of a history bar.
public enum ChartBucket: String, CaseIterable, Sendable {
    case week, month, quarter, year

    /// The first day of the period holding `day`.
    public func start(of day: LocalDay, weekStart: Weekday) -> LocalDay {
        let c = day.components
        switch self {
        case .week: return day.startOfWeek(weekStart)
        case .month: return LocalDay(year: c.year, month: c.month, day: 1) ?? day
        case .quarter: return LocalDay(year: c.year, month: (c.month - 1) / 3 * 3 + 1, day: 1) ?? day
        case .year: return LocalDay(year: c.year, month: 1, day: 1) ?? day
        }
    }

    /// The first day of the next period after the one starting on `start`.
    public func next(after start: LocalDay) -> LocalDay {
        switch self {
        case .week: return start.adding(7)
        case .month: return start.addingMonths(1)
        case .quarter: return start.addingMonths(3)
        case .year: return start.addingMonths(12)
        }
    }
}

/// One point of the score chart: Loop's score on a day.
public struct ScorePoint: Hashable, Sendable {
    public let day: LocalDay
    /// 0–1, the same number `strength(_:asOf:)` gives for that day.
    public let score: Double
}

/// What a history bar measures.
public enum HistoryMeasure: String, Sendable {
    /// Yes/no build habits: days done.
    case completions
    /// Build habits with an amount: the sum of the days' progress (thousandths).
    case amount
    /// Limit habits: the sum of the days' uses (thousandths); the goal is a ceiling.
    case uses
}

/// One history bar.
public struct HistoryBucket: Hashable, Sendable {
    /// The period's first and last day within the span and the habit's tracked days.
    public let start: LocalDay
    public let end: LocalDay
    /// Days done (limit habits: days within the limit), days due and not skipped (N per week
    /// or month: the successes its periods ask for), days skipped.
    public let done: Int
    public let due: Int
    public let skipped: Int
    /// The sum of the days' progress, skipped days left out (thousandths).
    public let amount: Int
    /// The measured value: `done` for completions, `amount` for amounts and uses.
    public let value: Int
    /// The goal line in the same measure: due days (N-per-week and N-per-month habits: their
    /// periods' quotas, see `HabitState.historySeries`), times the daily goal for amounts and
    /// uses (thousandths).
    public let goal: Double
}

/// The history bars of a habit.
public struct HistorySeries: Hashable, Sendable {
    public let measure: HistoryMeasure
    public let bucket: ChartBucket
    public let buckets: [HistoryBucket]
}

/// Days done and due on one weekday (of one month, for the grid).
public struct WeekdayCount: Hashable, Sendable {
    public var done = 0
    public var due = 0
    public init(done: Int = 0, due: Int = 0) { self.done = done; self.due = due }
    /// done ÷ due, nil when nothing was due.
    public var ratio: Double? { due > 0 ? Double(done) / Double(due) : nil }
}

/// The frequency by weekday: totals, and weekday × month as Loop's frequency chart.
public struct WeekdayFrequency: Hashable, Sendable {
    /// Monday first (index = `Weekday.rawValue - 1`).
    public let weekdays: [WeekdayCount]
    /// One entry per month in the span, oldest first: its first day and its seven counts.
    public let months: [(month: LocalDay, weekdays: [WeekdayCount])]

    public static func == (a: WeekdayFrequency, b: WeekdayFrequency) -> Bool {
        a.weekdays == b.weekdays && a.months.map(\.month) == b.months.map(\.month)
            && a.months.map(\.weekdays) == b.months.map(\.weekdays)
    }
    public func hash(into h: inout Hasher) { h.combine(weekdays); h.combine(months.map(\.month)) }
}

/// The average difficulty of one week's rated days.
public struct DifficultyWeek: Hashable, Sendable {
    public let weekStart: LocalDay
    /// nil when no day of the week was rated.
    public let average: Double?
    public let rated: Int
}

/// A habit-day as the overview draws it.
public enum DayState: String, Sendable, CaseIterable {
    /// Succeeded (a limit habit: a past scheduled day within the limit).
    case done
    /// Some progress, short of the goal.
    case partly
    /// Due and not done (an N-per-week habit: a day not done in a week that missed its quota;
    /// a limit habit: a day over the limit).
    case missed
    case skipped
    /// Paused (`Change.pause`): skipped by the rules, drawn with its own mark.
    case paused
    /// Not a scheduled day, or an N-per-week day in a week that met (or may still meet) its quota.
    case notDue
    /// Today, due and not done yet (a limit habit's today, until it is over).
    case pending
    /// Before the start date, or archived.
    case inactive
}

/// One habit's row of the overview.
public struct OverviewRow: Hashable, Sendable {
    public let habit: Habit
    /// One state per day of the overview, oldest first.
    public let days: [DayState]
}

/// XP earned in one week of the overview.
public struct XPWeek: Hashable, Sendable {
    public let weekStart: LocalDay
    /// Settled XP earned in the week (today's provisional XP left out).
    public let xp: Int
    /// Total XP and level at the week's end (or today).
    public let totalXP: Int
    public let level: Int
    /// A new level was reached during the week.
    public let levelUp: Bool
}

/// The consistency graph of every habit over the last weeks.
public struct Overview: Hashable, Sendable {
    public let first: LocalDay
    public let last: LocalDay
    public let rows: [OverviewRow]
    /// Per day: done ÷ (done + partly + missed) over every habit, nil when no habit was due.
    public let completion: [Double?]
    public let xpWeeks: [XPWeek]

    /// What the XP chart says instead of bars when no week shown earned any XP (a chart of
    /// zeros has no scale); nil when some week did.
    public var noXPLine: String? {
        xpWeeks.contains { $0.xp != 0 } ? nil : "No XP earned in these weeks yet: a day that completes a habit earns it."
    }
}

extension HabitState {
    /// The habit's score (Loop's, as `strength`) on every day of the span through `today`
    /// (or the archive date), at most `points` of them: the span is cut into `points` equal
    /// runs of days and each gives its last day's score. One pass over the habit's days.
    /// Empty when the habit has not started.
    public func scoreSeries(_ habit: Habit, today: LocalDay, span: ChartSpan, points: Int) -> [ScorePoint] {
        let end = min(today, habit.lastActiveDay ?? today)
        guard end >= habit.startDate, points > 0 else { return [] }
        let from = span.firstDay(today: end, start: habit.startDate)
        let offset = habit.startDate.days(to: from)
        var scores = [Double](repeating: 0, count: from.days(to: end) + 1)
        _ = scoreWalk(habit, through: end, days: daysOf(habit)) { i, score in
            if i >= offset { scores[i - offset] = score }
        }
        let n = scores.count
        if n <= points { return scores.enumerated().map { ScorePoint(day: from.adding($0.offset), score: $0.element) } }
        return (0..<points).map { k in
            let i = (k + 1) * n / points - 1
            return ScorePoint(day: from.adding(i), score: scores[i])
        }
    }

    /// The habit's measure (see `HistoryMeasure`) per period, oldest first, over the span.
    /// Each period's goal is its due days not skipped (an every-N-days habit's due days are
    /// every Nth day from the start), times each day's goal for amounts and uses. An
    /// N-per-week (N-per-month) habit's week (month) asks for what `1/3 this wk` counts,
    /// min(N, its days not skipped), the running one too, shared among the bars its days
    /// fall in (see `withQuotas`): a week bar's goal and due are that week's quota.
    public func historySeries(_ habit: Habit, today: LocalDay, bucket: ChartBucket, span: ChartSpan = .all,
                              settings: RuleSettings = .init()) -> HistorySeries {
        let measure: HistoryMeasure = habit.kind == .limit ? .uses : habit.isYesNo ? .completions : .amount
        var buckets: [HistoryBucket] = []
        var period: LocalDay?
        var cur: (start: LocalDay, end: LocalDay, done: Int, due: Int, skipped: Int, amount: Int, goal: Int)?
        // The N-per-week (N-per-month) periods walked, by their first day (see `withQuotas`).
        var quotaPeriods: [LocalDay: SchedulePeriod] = [:]
        func flush() {
            guard let c = cur else { return }
            buckets.append(HistoryBucket(start: c.start, end: c.end, done: c.done, due: c.due, skipped: c.skipped,
                                         amount: c.amount, value: measure == .completions ? c.done : c.amount, goal: Double(c.goal)))
        }
        walkDays(habit, today: today, span: span, settings: settings) { d, v, progress, skipped in
            let start = bucket.start(of: d, weekStart: settings.weekStart)
            if period != start { flush(); period = start; cur = (d, d, 0, 0, 0, 0, 0) }
            cur!.end = d
            if skipped { cur!.skipped += 1; return }
            cur!.amount += progress
            if v.completed { cur!.done += 1 }
            // Each tracked day adds its share of the goal by its own definition: a due day
            // one, times its goal for amounts and uses. N per week (month): see below.
            let h = v.defined
            if h.habit.schedule.isQuota { quotaPeriods[h.habit.schedule.period.start(of: d, weekStart: settings.weekStart)] = h.habit.schedule.period; return }
            guard h.habit.isScheduledDay(d) else { return }
            cur!.due += 1
            cur!.goal += measure == .completions ? 1 : h.habit.goal
        }
        flush()
        return HistorySeries(measure: measure, bucket: bucket,
                             buckets: withQuotas(buckets, quotaPeriods, habit, measure: measure, bucket: bucket, today: today, settings: settings))
    }

    /// The bars with what N-per-week (N-per-month) periods ask for: each period's quota as the
    /// list counts it (`periodTally`: min(N, its days not skipped), the running period whole,
    /// not its days so far), shared among the bars its days (not skipped) fall in, in
    /// proportion to its days in each; that share is the bar's due (rounded) and, times each
    /// day's goal for amounts and uses, its goal. A week bar of an N-per-week habit asks N.
    private func withQuotas(_ buckets: [HistoryBucket], _ periods: [LocalDay: SchedulePeriod], _ habit: Habit,
                            measure: HistoryMeasure, bucket: ChartBucket, today: LocalDay, settings: RuleSettings) -> [HistoryBucket] {
        guard !periods.isEmpty else { return buckets }
        let days = daysOf(habit), weekStart = settings.weekStart
        var extra: [LocalDay: (goal: Double, due: Double)] = [:]
        for (start, period) in periods {
            let end = period.end(of: start, weekStart: weekStart)
            let table = DayTable(days, from: start, to: end)
            let required = periodTally(habit, table, period: period, start: start, through: today, weekStart: weekStart).required
            // Per bar: the period's days in it, and their goals added up.
            var counted: [LocalDay: (days: Int, goals: Int)] = [:]
            var total = 0
            var cursor = DefinitionCursor(habit)
            var d = max(start, habit.startDate)
            while d <= end {
                cursor.move(to: d)
                if cursor.current.schedule.period == period, cursor.current.schedule.isQuota, !table.skipped[start.days(to: d)] {
                    let key = bucket.start(of: d, weekStart: weekStart)
                    counted[key, default: (0, 0)].days += 1
                    counted[key, default: (0, 0)].goals += measure == .completions ? 1 : cursor.current.goal
                    total += 1
                }
                d = d.adding(1)
            }
            guard required > 0, total > 0 else { continue }
            for (key, c) in counted {
                extra[key, default: (0, 0)].goal += Double(required * c.goals) / Double(total)
                extra[key, default: (0, 0)].due += Double(required * c.days) / Double(total)
            }
        }
        return buckets.map { b in
            guard let e = extra[bucket.start(of: b.start, weekStart: weekStart)] else { return b }
            return HistoryBucket(start: b.start, end: b.end, done: b.done, due: b.due + Int(e.due.rounded()), skipped: b.skipped,
                                 amount: b.amount, value: b.value, goal: b.goal + e.goal)
        }
    }

    /// Days done ÷ days due per weekday, and per weekday of each month, over the span. A
    /// day counts once it is settled: days before today, and today when a build habit is
    /// done. Due days: scheduled and not skipped (every tracked day for N-per-week habits).
    public func weekdayFrequency(_ habit: Habit, today: LocalDay, span: ChartSpan = .all,
                                 settings: RuleSettings = .init()) -> WeekdayFrequency {
        var total = [WeekdayCount](repeating: WeekdayCount(), count: 7)
        var months: [(month: LocalDay, weekdays: [WeekdayCount])] = []
        walkDays(habit, today: today, span: span, settings: settings) { d, v, _, skipped in
            let c = d.components
            let month = LocalDay(year: c.year, month: c.month, day: 1) ?? d
            if months.last?.month != month { months.append((month, [WeekdayCount](repeating: WeekdayCount(), count: 7))) }
            guard !skipped, v.defined.habit.isScheduledDay(d) else { return }
            guard d < today || (d == today && v.defined.habit.kind == .build && v.completed) else { return }
            let w = d.weekday.rawValue - 1
            total[w].due += 1
            months[months.count - 1].weekdays[w].due += 1
            if v.completed { total[w].done += 1; months[months.count - 1].weekdays[w].done += 1 }
        }
        return WeekdayFrequency(weekdays: total, months: months)
    }

    /// The longest streaks, longest first (the more recent first among equals), at most
    /// `top`; the same runs as `streaks` counts (the current one flagged).
    public func bestStreaks(_ habit: Habit, today: LocalDay, top: Int, settings: RuleSettings = .init()) -> [StreakRun] {
        let runs = streakRuns(habit, asOf: today, today: today, settings: settings, days: daysOf(habit))
        return Array(runs.enumerated().sorted { a, b in
            a.element.length != b.element.length ? a.element.length > b.element.length : a.offset > b.offset
        }.map(\.element).prefix(max(0, top)))
    }

    /// The average difficulty per week over the span, oldest first (weeks without a rated day
    /// have none).
    public func difficultyWeeks(_ habit: Habit, today: LocalDay, span: ChartSpan = .all,
                                settings: RuleSettings = .init()) -> [DifficultyWeek] {
        let end = min(today, habit.lastActiveDay ?? today)
        guard end >= habit.startDate else { return [] }
        let columns = entries[habit.id]?.columns ?? DayColumns()
        var week = span.firstDay(today: end, start: habit.startDate).startOfWeek(settings.weekStart)
        var k = columns.lowerBound(week)
        var out: [DifficultyWeek] = []
        while week <= end {
            let next = week.adding(7)
            var sum = 0, rated = 0
            while k < columns.count && columns.day(at: k) < next {
                if columns.day(at: k) <= end, let r = columns.rating(at: k) { sum += r; rated += 1 }
                k += 1
            }
            out.append(DifficultyWeek(weekStart: week, average: rated > 0 ? Double(sum) / Double(rated) : nil, rated: rated))
            week = next
        }
        return out
    }

    /// The overview of the last `weeks` weeks through `today` (the first starting on the
    /// week's first day; with `fromFirstStart`, on the earliest start of the habits it lists
    /// when that is later, so no blank days come before any habit started): every habit that
    /// was tracked in them, in the listing order, one state per day; the completion per day;
    /// the XP earned per week (the first from its week's first day) with the level reached.
    public func overview(today: LocalDay, weeks: Int, settings: RuleSettings = .init(), fromFirstStart: Bool = false) -> Overview {
        let shown = overviewHabits(today: today, weeks: weeks, settings: settings)
        let window = overviewFirstDay(today: today, weeks: weeks, settings: settings)
        let first = fromFirstStart ? max(window, shown.map(\.startDate).min() ?? window) : window
        let count = first.days(to: today) + 1
        var done = [Int](repeating: 0, count: count), counted = done
        var rows: [OverviewRow] = []
        for habit in shown {
            let row = overviewRow(habit, first: first, today: today, settings: settings)
            for (i, s) in row.enumerated() {
                switch s {
                case .done: done[i] += 1; counted[i] += 1
                case .partly, .missed: counted[i] += 1
                default: break
                }
            }
            rows.append(OverviewRow(habit: habit, days: row))
        }
        let completion = zip(done, counted).map { $1 > 0 ? Double($0) / Double($1) : nil }
        return Overview(first: first, last: today, rows: rows, completion: completion,
                        xpWeeks: xpWeeks(from: first.startOfWeek(settings.weekStart), today: today, settings: settings))
    }

    /// The XP earned in each week from the one starting on `first` through `today`.
    func xpWeeks(from first: LocalDay, today: LocalDay, settings: RuleSettings) -> [XPWeek] {
        var xpWeeks: [XPWeek] = []
        if let ledger = xpLedger(today: today, settings: settings) {
            var total = 0
            let firstIndex = ledger.first.days(to: first)
            for i in 0..<min(max(0, firstIndex), ledger.span) { total += ledger.settledXP(i) }
            var week = first
            while week <= today {
                let before = total
                for i in max(0, ledger.first.days(to: week))..<min(ledger.span, max(0, ledger.first.days(to: week.adding(7)))) {
                    total += ledger.settledXP(i)
                }
                let level = LevelInfo(xp: total).level
                xpWeeks.append(XPWeek(weekStart: week, xp: total - before, totalXP: total, level: level,
                                      levelUp: level > LevelInfo(xp: before).level))
                week = week.adding(7)
            }
        } else {
            var week = first
            while week <= today {
                xpWeeks.append(XPWeek(weekStart: week, xp: 0, totalXP: 0, level: 1, levelUp: false))
                week = week.adding(7)
            }
        }
        return xpWeeks
    }

    /// The first day of an overview of `weeks` weeks through `today`: a week's first day.
    public func overviewFirstDay(today: LocalDay, weeks: Int, settings: RuleSettings = .init()) -> LocalDay {
        today.startOfWeek(settings.weekStart).adding(-7 * (max(1, weeks) - 1))
    }

    /// The habits an overview of `weeks` weeks through `today` lists: those started by today
    /// and not archived before its first day, in the listing order (`listed`).
    public func overviewHabits(today: LocalDay, weeks: Int, settings: RuleSettings = .init()) -> [Habit] {
        let first = overviewFirstDay(today: today, weeks: weeks, settings: settings)
        return listed.filter { $0.startDate <= today && ($0.lastActiveDay.map { $0 >= first } ?? true) }
    }

    /// One habit's day states from `first` through `today` (see `DayState`).
    func overviewRow(_ habit: Habit, first: LocalDay, today: LocalDay, settings: RuleSettings) -> [DayState] {
        var row = [DayState](repeating: .inactive, count: first.days(to: today) + 1)
        let end = min(today, habit.lastActiveDay ?? today)
        guard end >= habit.startDate else { return row }
        let walkFrom = max(habit.startDate, first)
        let columns = daysOf(habit)
        let table = DayTable(columns, from: habit.startDate, to: max(end.startOfWeek(settings.weekStart).adding(6), end.endOfMonth))
        var states: [(LocalDay, DayVerdict, Int, Bool)] = []
        // The verdict says whether an N-per-week habit's open day is a miss (its week is over
        // and fell short), as everywhere else.
        judgeDays(habit, table, through: end, today: today, settings: settings) { d, v in
            guard d >= walkFrom else { return }
            let i = habit.startDate.days(to: d)
            states.append((d, v, table.progress[i], table.skipped[i]))
        }
        for (d, v, progress, skipped) in states {
            let state: DayState
            let defined = v.defined
            if skipped { state = columns.isPaused(on: d) ? .paused : .skipped }
            else if defined.habit.kind == .limit {
                if v.exceeded && defined.habit.isScheduledDay(d) { state = .missed }
                else if d == today { state = .pending }
                else { state = defined.habit.isScheduledDay(d) ? .done : .notDue }
            } else if v.completed { state = .done }
            else if progress > 0 { state = .partly }
            else if d == today { state = v.scheduled ? .pending : .notDue }
            else if defined.habit.schedule.isQuota { state = v.missed ? .missed : .notDue }
            else { state = v.scheduled ? .missed : .notDue }
            row[first.days(to: d)] = state
        }
        return row
    }

    /// Walks the habit's days in the span through `today` (or the archive date), judged by
    /// `judgeDays`, with each day's progress and skip.
    func walkDays(_ habit: Habit, today: LocalDay, span: ChartSpan, settings: RuleSettings,
                  _ body: (LocalDay, DayVerdict, Int, Bool) -> Void) {
        let end = min(today, habit.lastActiveDay ?? today)
        guard end >= habit.startDate else { return }
        let from = span.firstDay(today: end, start: habit.startDate)
        let table = DayTable(daysOf(habit), from: habit.startDate, to: end)
        judgeDays(habit, table, today: today, settings: settings) { d, v in
            guard d >= from else { return }
            let i = habit.startDate.days(to: d)
            body(d, v, table.progress[i], table.skipped[i])
        }
    }
}
