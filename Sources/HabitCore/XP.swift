import FoundationEssentials

// XP, levels and perfect days.

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
    /// Check-ins: habit-days with progress on existing habits (see `checkIns(_:)`), however
    /// much each day holds: amounts of different units are never added up.
    public let checkIns: Int
}

extension HabitState {
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
            ledger.checkIns += recorded.daysWithProgress
            let end = min(today, habit.lastActiveDay ?? today)
            guard end >= habit.startDate else { continue }
            let days = DayTable(recorded, from: habit.startDate, to: end)
            judgeDays(habit, days, today: today, settings: settings) { d, v in
                if d == today && v.defined.habit.kind == .limit {
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

    private func checkIns(_ all: [Habit]) -> Int {
        all.reduce(0) { sum, h in sum + checkIns(h).days }
    }

    /// A habit's check-ins: its days with progress from its start date through its last
    /// active day (days outside them count for nothing), and their progress added up (a
    /// yes/no day counts one), only on days defined with the habit's current unit, so that
    /// amounts of different units are never added together.
    public func checkIns(_ habit: Habit) -> (days: Int, amount: Int) {
        let days = daysOf(habit)
        let first = days.lowerBound(habit.startDate)
        let unit = habit.fields.unit
        var count = 0, amount = 0
        var cursor = DefinitionCursor(habit)
        for i in first..<days.count {
            let day = days.day(at: i)
            if let last = habit.lastActiveDay, day > last { break }
            let p = days.progress(at: i)
            guard p > 0 else { continue }
            count += 1
            cursor.move(to: day)
            if cursor.current.fields.unit == unit { amount += cursor.current.isYesNo ? min(p, Amount.scale) : p }
        }
        return (count, amount)
    }

    /// Days with progress before the habit's start date: kept (a start moved later leaves
    /// them) but counted by no figure.
    public func checkInsBeforeStart(_ habit: Habit) -> Int {
        let days = daysOf(habit)
        return (0..<days.lowerBound(habit.startDate)).reduce(0) { days.progress(at: $1) > 0 ? $0 + 1 : $0 }
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
