/// A user's request, whichever front end it comes from (the UI's keys, the command line's
/// commands, a reminder's answer): what it asks for, said once. `changes` turns it into
/// the changes to write by the shared rules (`Edits`), or throws the rule it breaks; once
/// written, `Outcome` says what happened, in the one wording every front end shows.
public enum Intent: Hashable, Sendable {
    /// Adds `amount` (> 0) of progress, with a difficulty and a note when given. On a yes/no
    /// day that shows done it records the answer again (see `Edits.checkIn`).
    case checkIn(HabitID, LocalDay, amount: Int = Amount.scale, difficulty: Int? = nil, note: String? = nil)
    /// Takes back up to `amount` of progress; a yes/no day is marked not done.
    case takeBack(HabitID, LocalDay, amount: Int = Amount.scale)
    /// Sets the day's total (one progress change of the difference).
    case setTotal(HabitID, LocalDay, Int)
    /// The UI's space key: a yes/no day that shows done (and is not skipped) is taken back,
    /// any other day is checked in by one unit.
    case toggle(HabitID, LocalDay)
    case skip(HabitID, LocalDay, Bool)
    /// Sets (1–5) or clears (nil) the day's difficulty.
    case rate(HabitID, LocalDay, Int?)
    /// Sets (or clears, with nil) a habit's day's note.
    case note(HabitID, LocalDay, String?)
    /// An answer for a habit-day to catch up on (`habitto ask`, the catch-up screen).
    case answer(HabitID, LocalDay, CatchUp.Answer)
    case add(HabitFields)
    /// New field values; the rule fields (kind, goal, unit, schedule) from `from` on, from
    /// the start when nil (see `Edits.update`).
    case edit(HabitID, HabitFields, from: LocalDay?)
    case archive(HabitID)
    case unarchive(HabitID)
    /// Moves a habit in the order of habits (`Edits.move`): one command, one undo.
    case move(HabitID, MoveTarget)
    case delete(HabitID)
    /// Pauses the habit over `from`…`to` (`Pauses.pause`), with a reason when given.
    case pause(HabitID, from: LocalDay, to: LocalDay, reason: String?)
    /// Ends the habit's current pause at yesterday, or calls off its next one (`Pauses.end`).
    case endPause(HabitID)

    /// The habit the intent is about; nil for a new habit.
    public var habit: HabitID? {
        switch self {
        case .checkIn(let h, _, _, _, _), .takeBack(let h, _, _), .setTotal(let h, _, _), .toggle(let h, _), .skip(let h, _, _),
             .rate(let h, _, _), .note(let h, _, _), .answer(let h, _, _), .edit(let h, _, _), .archive(let h), .unarchive(let h),
             .move(let h, _), .delete(let h), .pause(let h, _, _, _), .endPause(let h):
            return h
        case .add:
            return nil
        }
    }

    /// The day a day's intent records on; nil for the habit's own intents.
    public var day: LocalDay? {
        switch self {
        case .checkIn(_, let d, _, _, _), .takeBack(_, let d, _), .setTotal(_, let d, _), .toggle(_, let d), .skip(_, let d, _),
             .rate(_, let d, _), .note(_, let d, _), .answer(_, let d, _):
            return d
        case .add, .edit, .archive, .unarchive, .move, .delete, .pause, .endPause:
            return nil
        }
    }

    /// The changes the intent asks for on `state`, by the shared rules (the repository runs
    /// this again under its lock): the one place a request becomes changes. `newID` is the
    /// id a new habit (`.add`) gets; only `.add` needs one. Throws the rule it breaks, or
    /// that its habit no longer exists.
    public func changes(newID: HabitID? = nil, today: LocalDay, in state: HabitState) throws -> [Change] {
        func habit(_ id: HabitID) throws -> Habit {
            guard let h = state.habit(id) else { throw CoreError.habitGone }
            return h
        }
        switch self {
        case .checkIn(let id, let day, let amount, let difficulty, let note):
            let h = try habit(id)
            let checked = try Edits.checkIn(h, on: day, amount: amount, difficulty: difficulty, today: today, in: state)
            return try checked + (note.map { try Edits.note(h, on: day, $0, today: today, in: state) } ?? [])
        case .takeBack(let id, let day, let amount):
            return try Edits.uncheck(try habit(id), on: day, amount: amount, today: today, in: state)
        case .toggle(let id, let day):
            let h = try habit(id)
            // The one decision of a yes/no day: done (and not skipped) is taken back, else checked in.
            if h.on(day).isYesNo && Edits.isDone(h, on: day, in: state) && !state.isSkipped(id, day) {
                return try Edits.uncheck(h, on: day, amount: Amount.scale, today: today, in: state)
            }
            return try Edits.checkIn(h, on: day, amount: Amount.scale, today: today, in: state)
        case .setTotal(let id, let day, let total): return try Edits.setTotal(try habit(id), on: day, total, today: today, in: state)
        case .skip(let id, let day, let on): return try Edits.setSkipped(try habit(id), on: day, on, today: today, in: state)
        case .rate(let id, let day, let r): return try Edits.rate(try habit(id), on: day, r, today: today, in: state)
        case .note(let id, let day, let text): return try Edits.note(try habit(id), on: day, text, today: today, in: state)
        case .answer(let id, let day, let answer):
            return try CatchUp.changes(answer, for: CatchUpItem(habit: try habit(id), day: day), today: today, in: state)
        case .add(let fields):
            guard let newID else { throw CoreError.newHabitNeedsID }
            return try Edits.add(newID, fields, in: state)
        case .edit(let id, let fields, let from): return try Edits.update(try habit(id), to: fields, from: from, in: state)
        case .archive(let id): return try Edits.archive(try habit(id), today: today, in: state)
        case .unarchive(let id): return try Edits.unarchive(try habit(id))
        case .move(let id, let target): return try Edits.move(try habit(id).id, to: target, in: state)
        case .delete(let id): return Edits.delete(try habit(id))
        case .pause(let id, let from, let to, let reason):
            return try Pauses.pause([try habit(id)], from: from, to: to, reason: reason, in: state)
        case .endPause(let id): return try Pauses.end([try habit(id)], today: today, in: state)
        }
    }

    /// What happened once the intent's changes (`changed`: whether there were any) are in
    /// `state`: the value every front end words (`Outcome.sentence`).
    public func outcome(newID: HabitID? = nil, changed: Bool, state: HabitState, today: LocalDay,
                        settings: RuleSettings = .init()) -> Outcome {
        let id = habit ?? newID
        let h = id.flatMap(state.habit)
        let line = h.flatMap { h in day.map { state.dayLine(h, on: $0, today: today, settings: settings) } }
        return Outcome(intent: self, habit: h, line: line, changed: changed, today: today)
    }
}

/// What a written intent did: the intent, the habit and its day as they are after it, and
/// whether it recorded anything. Values, so the UI's actions and tests compare them; the
/// wording is `sentence`, one for every front end.
public struct Outcome: Hashable, Sendable {
    public let intent: Intent
    /// The habit after the write; nil when it is gone (deleted, here or elsewhere).
    public let habit: Habit?
    /// The habit's day after the write, for an intent on a day.
    public let line: DayLine?
    /// Whether the write recorded any change.
    public let changed: Bool
    public let today: LocalDay

    public init(intent: Intent, habit: Habit?, line: DayLine?, changed: Bool, today: LocalDay) {
        self.intent = intent; self.habit = habit; self.line = line; self.changed = changed; self.today = today
    }

    /// Whether the intent's effect is out of sight once done (an archive, a delete, a note):
    /// the UI then says how to undo it.
    public var isOutOfSight: Bool {
        switch intent {
        case .archive, .unarchive, .delete, .note: true
        default: false
        }
    }
}
