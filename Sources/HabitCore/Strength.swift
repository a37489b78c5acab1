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
        // Before the start: the score the walk starts from, by the first definition.
        guard end >= habit.startDate else { return habit.on(habit.startDate).kind == .limit ? 1 : 0 }
        return scoreWalk(habit, through: end, days: days) { _, _ in }
    }

    /// Loop's score day by day from the start date through `end` (not before it): `body`
    /// gets each day's index from the start date and its score (a skipped day's is the day
    /// before's). Returns the score on `end`. The one computation behind `strength` and the
    /// score chart, in one pass. Each day is scored with the definition in force on it: its
    /// frequency (multiplier and window), kind and goal; the window holds the values of the
    /// days before it, each judged by its own definition.
    func scoreWalk(_ habit: Habit, through end: LocalDay, days: DayColumns, _ body: (Int, Double) -> Void) -> Double {
        /// What scoring a day needs from its definition.
        struct Scoring {
            let numerator: Int, denominator: Int, multiplier: Double, isLimit: Bool, target: Double
            init(_ h: Habit) {
                var (numerator, denominator) = h.schedule.frequency
                let frequency = Double(numerator) / Double(denominator)
                multiplier = pow(0.5, frequency.squareRoot() / 13.0)
                isLimit = h.kind == .limit
                if !isLimit && frequency < 1 { numerator *= 2; denominator *= 2 }
                self.numerator = numerator; self.denominator = denominator
                target = Double(h.goal * numerator)
            }
        }
        var cursor = DefinitionCursor(habit)
        var defined = cursor.at(habit.startDate)
        var scoring = Scoring(defined)
        // Running sums over the days not skipped: the window is the last `denominator` of
        // them (fewer at first, the missing ones counting 0). Two sums, so that a window
        // across a change of kind reads each day in the terms of the day it scores: a build
        // day's window counts the days that succeeded (each by its own definition), a limit
        // day's window adds the progress recorded (never a success flag added to thousandths).
        var sums = [0], progressSums = [0]
        var score = scoring.isLimit ? 1.0 : 0.0
        let recorded = DayTable(days, from: habit.startDate, to: end)
        let count = max(0, habit.startDate.days(to: end) + 1)
        sums.reserveCapacity(count + 1)
        if habit.hasHistory { progressSums.reserveCapacity(count + 1) }
        var d = habit.startDate
        for i in 0..<count {
            defer { d = d.adding(1) }
            if recorded.skipped[i] { body(i, score); continue }
            // Only a move to another definition can change the scoring.
            if cursor.move(to: d), cursor.current.fields.rule != defined.fields.rule { defined = cursor.current; scoring = Scoring(defined) }
            let progress = recorded.progress[i]
            let rolling: Int
            if habit.hasHistory {
                // Definitions may differ in kind: keep both sums.
                sums.append(sums[sums.count - 1] + (cursor.current.succeeds(progress: progress) ? 1 : 0))
                progressSums.append(progressSums[progressSums.count - 1] + progress)
                let n = sums.count - 1, from = max(0, n - scoring.denominator)
                rolling = scoring.isLimit ? progressSums[n] - progressSums[from] : sums[n] - sums[from]
            } else {
                sums.append(sums[sums.count - 1] + (scoring.isLimit ? progress : (cursor.current.succeeds(progress: progress) ? 1 : 0)))
                let n = sums.count - 1
                rolling = sums[n] - sums[max(0, n - scoring.denominator)]
            }
            let completed: Double
            if scoring.isLimit {
                let target = scoring.target
                if target > 0 { completed = min(1, max(0, 1 - (Double(rolling) - target) / target)) }
                else { completed = rolling > 0 ? 0 : 1 }
            } else {
                completed = min(1, Double(rolling) / Double(scoring.numerator))
            }
            score = score * scoring.multiplier + completed * (1 - scoring.multiplier)
            body(i, score)
        }
        return score
    }
}
