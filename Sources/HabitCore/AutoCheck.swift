/// What an auto habit's command said about a day (see `AutoCheck`).
public enum AutoMeasure: Hashable, Sendable {
    /// A yes/no habit's command exited 0: the habit is done.
    case done
    /// A yes/no habit's command exited 1: not done yet (nothing is recorded).
    case notDone
    /// A counted habit's command printed this day's total, in thousandths.
    case total(Int)
}

/// The rules of auto habits: what the result of a habit's command records on a day.
public enum AutoCheck {
    /// Reads what a command printed for a counted habit: the first line, blanks around it
    /// ignored, must be an amount ("3", "1.5"; at most three decimals, no sign). Throws
    /// a `CoreError` saying what was printed instead.
    public static func total(fromOutput text: String) throws -> Int {
        let firstLine = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        let trimmed = firstLine.trimmingBlanks
        guard !trimmed.isEmpty else { throw CoreError.printedNoNumber }
        guard let amount = try? Amount.parse(trimmed) else {
            let shown = trimmed.count > 40 ? String(trimmed.prefix(40)) + "…" : trimmed
            throw CoreError.printedNotANumber(shown)
        }
        guard amount <= Limits.maxDayProgress else {
            throw CoreError.printedTooMuch(amount)
        }
        return amount
    }

    /// The changes that record `measure` for `habit` on `day`: a "set" step that makes the
    /// day's total the command's reading plus the day's check-ins and take-backs
    /// (`DayRecord.handSteps`), within 0…`Limits.maxDayProgress`. So a check-in made by hand
    /// adds to what the command read and a take-back takes from it, whichever comes first,
    /// and running the command again, here or on another device, gives the same figure
    /// instead of replacing what was entered by hand. A yes/no habit's reading of done is
    /// its goal (a day taken back by hand stays taken back). A skipped day the command finds
    /// something on is un-skipped, as a check-in does. No change when the day already holds
    /// that figure, or for `notDone`. Throws a `CoreError` where a check-in on `day` would be
    /// refused (see `Edits.checkDay`), and for a total given to a yes/no habit or done given
    /// to a counted one.
    public static func changes(_ habit: Habit, on day: LocalDay, _ measure: AutoMeasure, today: LocalDay,
                               in state: HabitState) throws -> [Change] {
        try Edits.checkDay(habit, day, today: today)
        let reading: Int
        switch measure {
        case .notDone: return []
        case .done:
            guard habit.isYesNo else { throw CoreError.countsAnAmount(habit: habit.name) }
            if Edits.isDone(habit, on: day, in: state) { return [] }
            reading = habit.goal
        case .total(let t):
            guard !habit.isYesNo else { throw CoreError.isYesNo(habit: habit.name) }
            reading = t
        }
        let byHand = state.record(habit.id, day)?.handSteps ?? 0
        let total = min(Limits.maxDayProgress, max(0, reading + byHand))
        guard state.progress(habit.id, day) != total else { return [] }
        var changes: [Change] = []
        if total > 0 && state.isSkipped(habit.id, day) { changes.append(.skip(habit.id, day, false)) }
        changes.append(.setProgress(habit.id, day, total: total))
        return changes
    }
}
