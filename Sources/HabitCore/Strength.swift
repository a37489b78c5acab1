import FoundationEssentials
import Glibc

// A habit's strength: Loop Habit Tracker's score.
extension HabitState {
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
}
