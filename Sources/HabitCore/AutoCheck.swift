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
        // A measurement withdraws a skip, not a pause (the user paused the days on purpose).
        if total > 0 && state.record(habit.id, day)?.isSkipRegisterOn == true { changes.append(.skip(habit.id, day, false)) }
        changes.append(.setProgress(habit.id, day, total: total))
        return changes
    }
}

extension AutoMeasure {
    /// How a screen or a command shows a reading: "done", "not done", "3.5".
    public var summary: String {
        switch self {
        case .done: "done"
        case .notDone: "not done"
        case .total(let t): Amount.format(t)
        }
    }
}

/// What one run of an auto habit's command came to (`auto --run`, `remind`, the today
/// screen's `r`), worded once by `sentence` for the command line and the UI.
public struct AutoRunReport: Equatable, Sendable {
    public enum Result: Equatable, Sendable {
        /// The command gave a reading; `recorded` says whether it changed the day.
        case measured(AutoMeasure, recorded: Bool)
        /// The command gave no result: why, in words that follow "the command " ("failed (exit 2)").
        case commandFailed(String)
        /// The rules refused the reading (nothing was recorded).
        case refused(CoreError)
        /// The habit is not tracked today (archived, not started): its command did not run.
        case notTracked
    }
    public let habit: HabitID
    /// The habit's name as shown (its icon, if any, is the caller's `icon`).
    public let name: String
    public let result: Result
    public init(habit: HabitID, name: String, result: Result) { self.habit = habit; self.name = name; self.result = result }

    /// Whether the run gave no reading that could be recorded.
    public var failed: Bool {
        if case .measured = result { return false }
        return true
    }

    /// The report's one line: "Water: 3 (recorded)", "auto: 'Steps': the command failed
    /// (exit 2); nothing was recorded". `icon` goes before the name of a reading.
    public func sentence(icon: String = "") -> String {
        let shown = Sanitize.display(name)
        switch result {
        case .measured(let m, let recorded): return "\(icon)\(shown): \(m.summary)\(recorded ? " (recorded)" : "")"
        case .commandFailed(let why): return "auto: '\(shown)': the command \(Sanitize.display(why)); nothing was recorded"
        case .refused(let e): return "auto: '\(shown)': \(e.description); nothing was recorded"
        case .notTracked: return "auto: '\(shown)': its command did not run: the habit is not tracked today"
        }
    }
}
