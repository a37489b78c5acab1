import FoundationEssentials

/// When a habit is due.
public enum Schedule: Hashable, Sendable, CustomStringConvertible {
    /// Every day.
    case daily
    /// On the chosen weekdays (a non-empty set).
    case weekdays(Set<Weekday>)
    /// Every `n` days (n ≥ 2) counted from the start date.
    case everyNDays(Int)
    /// `n` times in each week (1–7), on any days.
    case perWeek(Int)
    /// `n` times in each calendar month (1–31), on any days.
    case perMonth(Int)

    /// Parses `daily`, `weekdays`, `weekends`, `mon,wed,fri`, `every:3`, `3/week`, `10/month`.
    public init(parsing text: String) throws {
        let t = text.trimmingBlanks.lowercased()
        switch t {
        case "daily", "every:1", "7/week": self = .daily; return
        case "weekdays": self = .weekdays([.monday, .tuesday, .wednesday, .thursday, .friday]); return
        case "weekends": self = .weekdays([.saturday, .sunday]); return
        default: break
        }
        if t.hasPrefix("every:") {
            guard let n = Int(t.dropFirst(6)), Limits.everyNDays.contains(n) else {
                throw CoreError.scheduleNumber(text: text, form: "every:N", range: Limits.everyNDays)
            }
            self = n == 1 ? .daily : .everyNDays(n)
            return
        }
        if t.hasSuffix("/week") {
            guard let n = Int(t.dropLast(5)), Limits.timesPerWeek.contains(n) else {
                throw CoreError.scheduleNumber(text: text, form: "N/week", range: Limits.timesPerWeek)
            }
            self = n == 7 ? .daily : .perWeek(n)
            return
        }
        if t.hasSuffix("/month") {
            guard let n = Int(t.dropLast(6)), Limits.timesPerMonth.contains(n) else {
                throw CoreError.scheduleNumber(text: text, form: "N/month", range: Limits.timesPerMonth)
            }
            self = .perMonth(n)
            return
        }
        var days = Set<Weekday>()
        let parts = t.split(separator: ",", omittingEmptySubsequences: false)
        for (i, part) in parts.enumerated() {
            guard let d = Weekday(name: part.trimmingBlanks) else {
                throw CoreError.scheduleNotUnderstood(text: text, suggestion: Self.suggestion(parts, wrong: i))
            }
            days.insert(d)
        }
        self = days.count == 7 ? .daily : .weekdays(days)
    }

    /// "; did you mean '…'?" for a schedule whose part `wrong` is no day name: the whole
    /// text with that part replaced by the nearest schedule word (alone) or day name.
    private static func suggestion(_ parts: [Substring], wrong: Int) -> String {
        let days = Weekday.allCases.flatMap { [$0.fullName, $0.shortName] }
        let words = parts.count == 1 ? ["daily", "weekdays", "weekends"] + days : days
        guard let near = Suggest.nearest(String(parts[wrong].trimmingBlanks), among: words) else { return "" }
        var fixed = parts.map { String($0.trimmingBlanks) }
        fixed[wrong] = near
        return "; did you mean \(Sanitize.quoted(fixed.joined(separator: ",")))?"
    }

    /// The canonical text form, which `init(parsing:)` reads back.
    public var description: String {
        switch self {
        case .daily: return "daily"
        case .weekdays(let set):
            if set == [.monday, .tuesday, .wednesday, .thursday, .friday] { return "weekdays" }
            if set == [.saturday, .sunday] { return "weekends" }
            return set.sorted().map(\.shortName).joined(separator: ",")
        case .everyNDays(let n): return "every:\(n)"
        case .perWeek(let n): return "\(n)/week"
        case .perMonth(let n): return "\(n)/month"
        }
    }

    /// Loop Habit Tracker's frequency as numerator / denominator: times per number of days.
    public var frequency: (numerator: Int, denominator: Int) {
        switch self {
        case .daily: return (1, 1)
        case .weekdays(let set): return (set.count, 7)
        case .everyNDays(let n): return (1, n)
        case .perWeek(let n): return (n, 7)
        case .perMonth(let n): return (n, 30)
        }
    }

    /// True for N-per-week schedules.
    public var isWeekly: Bool { if case .perWeek = self { return true } else { return false } }

    /// What a streak on this schedule counts, plural: "weeks" for N-per-week habits,
    /// "months" for N-per-month habits,
    /// "occurrences" for every-N-days habits (a streak of 4 every 3 days spans 12 days),
    /// "days" otherwise (each due day in a row).
    public var streakUnit: String {
        switch self {
        case .perWeek: return "weeks"
        case .perMonth: return "months"
        case .everyNDays(let n) where n > 1: return "occurrences"
        default: return "days"
        }
    }

    /// The period a schedule's streaks count: days for schedules with fixed days, weeks for
    /// N per week, months for N per month.
    public var period: SchedulePeriod {
        switch self {
        case .perWeek: .week
        case .perMonth: .month
        default: .day
        }
    }

    /// True for schedules with a quota per period (N per week or per month) instead of
    /// fixed days: no single day is an obligation.
    public var isQuota: Bool { period != .day }

    /// The quota of a period for N-per-week and N-per-month schedules; nil for others.
    public var quota: Int? {
        switch self {
        case .perWeek(let n), .perMonth(let n): n
        default: nil
        }
    }
}

/// The unit a habit's streak counts.
public enum SchedulePeriod: Hashable, Sendable {
    case day, week, month

    /// The first day of the period holding `day` (itself for days).
    public func start(of day: LocalDay, weekStart: Weekday) -> LocalDay {
        switch self {
        case .day: day
        case .week: day.startOfWeek(weekStart)
        case .month: day.startOfMonth
        }
    }

    /// The last day of the period holding `day` (itself for days).
    public func end(of day: LocalDay, weekStart: Weekday) -> LocalDay {
        switch self {
        case .day: day
        case .week: day.startOfWeek(weekStart).adding(6)
        case .month: day.endOfMonth
        }
    }
}
