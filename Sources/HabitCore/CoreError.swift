/// The one error type of HabitCore: a rule was broken. Each case carries what the refusal is
/// about (a habit's name, a day, a value as typed); `description` is the one place its text
/// is written, and says what to do. The description is safe to print (`Sanitize.display`),
/// whatever outside value it quotes.
public enum CoreError: Error, Equatable, CustomStringConvertible, Sendable {
    // Finding a habit.
    case noHabitGiven
    /// No habit fits `query`; `nearest` is a name close to it.
    case habitNotFound(query: String, nearest: String?)
    /// `query` fits several habits (see `Edits.find`).
    case ambiguous(query: String, matches: [Habit])
    /// Another habit has this name already (any case).
    case duplicateName(String)
    /// A habit a write names was deleted meanwhile (by another device, say).
    case habitGone
    /// A habit a move names is not in the order.
    case noSuchHabit
    case movedRelativeToItself(habit: String)
    case tooManyToOrder

    // The day a value is recorded on.
    case beforeStart(habit: String, day: LocalDay, start: LocalDay)
    /// `what`: what is recorded ("check-ins", "ratings", "notes").
    case inFuture(day: LocalDay, today: LocalDay, what: String)
    case archivedFrom(habit: String, from: LocalDay)
    case notDue(habit: String, day: LocalDay, schedule: Schedule)
    case alreadyArchived(habit: String, from: LocalDay)
    case notArchived(habit: String)
    case archivedBeforeStart(archived: LocalDay, start: LocalDay)

    // Amounts and difficulties.
    /// A check-in of `adding` would take the day (holding `progress`) past `Limits.maxDayProgress`.
    case dayFull(habit: String, progress: Int, adding: Int, day: LocalDay)
    case nothingToTakeBack(habit: String, day: LocalDay)
    case negativeTotal
    /// A day's total (thousandths) asked for above `Limits.maxDayProgress`.
    case totalTooLarge(Int)
    /// A progress change outside ±`Limits.maxChange`, or of 0.
    case changeOutOfRange
    /// A day's total outside 0…`Limits.maxDayProgress`.
    case totalOutOfRange
    /// A difficulty outside `Limits.difficulty`; `given`: as typed, when it was.
    case difficultyOutOfRange(given: String?)
    /// An amount as typed (`Amount.parse`) that is not a number, has more than `decimals`
    /// decimals, or is too large.
    case amountNotANumber(String, decimals: Int)
    case amountTooPrecise(String, decimals: Int)
    case amountTooLarge(String)
    case goalOutOfRange(goal: Int, kind: HabitKind)

    // A habit's fields and text.
    case nameEmpty
    case nameTooLong(length: Int)
    case iconNotOneCharacter
    case colorNotUnderstood(String)
    case unitLength
    case orderKeyInvalid(String)
    case groupLength
    /// `field`: "habit name", "icon", "unit", "group", "note", "notes".
    case edgeSpace(field: String)
    case dayNoteLength
    /// A pause's reason is empty or longer than 80 characters.
    case pauseReasonLength
    /// A pause whose first day comes after its last.
    case pauseBackwards(from: LocalDay, to: LocalDay)
    /// A pause longer than `Limits.maxPauseDays`.
    case pauseTooLong(days: Int)
    /// `pause --end` with no pause over today or after it (for the habit, when one was named).
    case noPauseToEnd(habit: String?, today: LocalDay)
    case notesTooLong(length: Int)
    case textTooLong(field: String)
    case controlCharacter(field: String, Unicode.Scalar)
    case invisibleCharacter(field: String, Unicode.Scalar)
    /// `form` ("every:N", "N/week", "N/month") needs a whole number in `range`.
    case scheduleNumber(text: String, form: String, range: ClosedRange<Int>)
    /// `suggestion`: "; did you mean 'x'?" or "".
    case scheduleNotUnderstood(text: String, suggestion: String)
    /// A schedule not in its canonical shape (see `Schedule.validateShape`).
    case scheduleOutOfRange(Schedule)
    case limitWithQuota(SchedulePeriod)
    case reminderTimeNotUnderstood(String)
    case tooManyReminders(Int)
    case reminderOutOfRange(minutes: Int)
    case remindersUnsorted
    /// Only the rule's fields (kind, goal, unit, schedule) change from a day on.
    case notARuleField
    /// An imported group name (`shown` as the import quotes it) breaks `error`.
    indirect case notAGroupName(shown: String, CoreError)
    /// `error`, found in a habit's definition from `day` on (not in its first).
    indirect case inDefinition(CoreError, from: LocalDay)

    // Catch-up answers (`CatchUp.parse`, `CatchUp.changes`).
    case oneAnswer(choices: String)
    case difficultyWithoutDone
    /// `line` is not an answer to a yes/no habit's (`yesNo`) or a counted one's question.
    case notAnAnswer(String, yesNo: Bool)
    case limitNeedsAmount(habit: String)
    case doneAlready(habit: String, progress: Int, goal: Int, day: LocalDay)

    // What an auto habit's command printed (`AutoCheck`), and its command.
    case printedNoNumber
    case printedNotANumber(String)
    case printedTooMuch(Int)
    case countsAnAmount(habit: String)
    case isYesNo(habit: String)
    case emptyCommand
    case multilineCommand
    case commandTooLong(maxBytes: Int)

    // The UI's prompts and form.
    /// The amount prompt's input is not an amount.
    case amountPromptUnreadable
    /// The amount prompt's 0.
    case zeroChangesNothing
    /// A form field's problem, after the field's label.
    case formField(label: String, problem: String)
    /// A write that creates a habit was given no new id.
    case newHabitNeedsID

    // Timers.
    /// A timer's duration as typed (`habitto timer`, the UI's `t`) is not one.
    case timerDurationUnreadable(String)
    /// A timer's duration is over `HabitTimer.longest` (or zero).
    case timerDurationOutOfRange(String)

    public var description: String { Sanitize.display(text) }
}
