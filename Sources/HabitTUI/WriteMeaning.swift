import HabitCore

/// What a write means, said once: the changes it asks for (by the shared rules in `Edits`),
/// what to say when it would change nothing, and its confirmation. The reducer checks a
/// write with these before asking for it, the UI's effect runner commits and confirms it,
/// and the command line's commands that do the same thing use the same changes and sentences.
extension Write {
    /// The habit the write is about; nil for a new habit.
    public var habit: HabitID? {
        switch self {
        case .progress(let h, _, _), .setTotal(let h, _, _), .skip(let h, _, _), .rate(let h, _, _), .edit(let h, _, _),
             .archive(let h), .unarchive(let h), .delete(let h), .move(let h, _), .answer(let h, _, _), .note(let h, _, _):
            return h
        case .add:
            return nil
        }
    }

    /// The changes the write asks for on `state`, by the shared rules (the repository runs
    /// this again under its lock). `newID` is the id a new habit (`.add`) gets; only `.add`
    /// needs one. Throws the rule a write breaks, or that its habit no longer exists.
    public func changes(newID: HabitID? = nil, today: LocalDay, in state: HabitState) throws -> [Change] {
        func habit(_ id: HabitID) throws -> Habit {
            guard let h = state.habit(id) else { throw CoreError.habitGone }
            return h
        }
        switch self {
        case .progress(let id, let day, let delta):
            let h = try habit(id)
            return delta > 0 ? try Edits.checkIn(h, on: day, amount: delta, today: today, in: state)
                             : try Edits.uncheck(h, on: day, amount: -delta, today: today, in: state)
        case .setTotal(let id, let day, let total): return try Edits.setTotal(try habit(id), on: day, total, today: today, in: state)
        case .skip(let id, let day, let on): return try Edits.setSkipped(try habit(id), on: day, on, today: today, in: state)
        case .rate(let id, let day, let r): return try Edits.rate(try habit(id), on: day, r, today: today, in: state)
        case .add(let fields):
            guard let newID else { throw CoreError.newHabitNeedsID }
            return try Edits.add(newID, fields, in: state)
        case .edit(let id, let fields, let from): return try Edits.update(try habit(id), to: fields, from: from, in: state)
        case .archive(let id): return try Edits.archive(try habit(id), today: today, in: state)
        case .unarchive(let id): return try Edits.unarchive(try habit(id))
        case .move(let id, let target): return try Edits.move(try habit(id).id, to: target, in: state)
        case .delete(let id): return Edits.delete(try habit(id))
        case .answer(let id, let day, let answer):
            return try CatchUp.changes(answer, for: CatchUpItem(habit: try habit(id), day: day), today: today, in: state)
        case .note(let id, let day, let text): return try Edits.note(try habit(id), on: day, text, today: today, in: state)
        }
    }

    /// What the message line says when the write changes nothing on `state` (its `changes`
    /// are empty); nil when such a write still goes ahead and its confirmation stands.
    public func nothingChanged(in state: HabitState) -> String? {
        switch self {
        case .setTotal(let id, let day, let total):
            guard let h = state.habit(id) else { return nil }
            return "\(Sanitize.display(h.name)) already has \(Amount.format(total)) on \(day): nothing changed"
        case .move(let id, _):
            guard let h = state.habit(id) else { return nil }
            return "\(Sanitize.quoted(h.name)) is already there: nothing changed"
        case .note(_, let day, let text):
            return text == nil ? "There is no note on \(day) to clear: nothing changed" : "The note is unchanged"
        default:
            return nil
        }
    }

    /// The UI's confirmation once the write is in `state`: its `statement`, with how to undo
    /// it after the writes whose effect is out of sight (an archive, a delete, a note).
    public func confirmation(newID: HabitID? = nil, state: HabitState, today: LocalDay, settings: RuleSettings) -> String {
        let said = statement(newID: newID, state: state, today: today, settings: settings)
        switch self {
        case .archive, .unarchive, .delete, .note: return said + " (u undoes)"
        default: return said
        }
    }

    /// What the write did, in one sentence, once it is in `state`. Where the command line
    /// states the same fact (a skip, a note) it prints this sentence too.
    public func statement(newID: HabitID? = nil, state: HabitState, today: LocalDay, settings: RuleSettings) -> String {
        func name(_ id: HabitID?) -> String { id.flatMap(state.habit).map { Sanitize.quoted($0.name) } ?? "the habit" }
        switch self {
        case .progress(let id, let day, _), .setTotal(let id, let day, _):
            return progressStatement(id, day, name(id), state: state, today: today, settings: settings)
        case .skip(let id, let day, let on):
            return on ? "Skipped \(name(id)) on \(day): the day neither counts nor breaks the streak" : "Unskipped \(name(id)) on \(day)"
        case .rate(let id, _, let r): return r.map { "Rated \(name(id)) \($0) of 5" } ?? "Cleared the rating of \(name(id))"
        case .add: return "Added \(name(newID))"
        case .edit(let id, _, _): return "Saved \(name(id))"
        case .archive(let id): return "Archived \(name(id)); its history stays"
        case .unarchive(let id): return "Unarchived \(name(id))"
        case .move(let id, let target):
            switch target {
            case .before: return "Moved \(name(id)) up"
            case .after: return "Moved \(name(id)) down"
            case .top: return "Moved \(name(id)) to the top"
            case .bottom: return "Moved \(name(id)) to the bottom"
            }
        case .delete: return "Deleted the habit and its history"
        case .note(let id, let day, let text):
            return text == nil ? "Cleared the note of \(name(id)) on \(day)" : "Noted on \(name(id)) on \(day)"
        case .answer(let id, let day, _):
            guard let h = state.habit(id) else { return "Done" }
            let s = state.summary(h, on: day, today: today, settings: settings)
            let unit = h.fields.unit.map { " " + $0 } ?? ""
            let what = s.skipped ? "skipped" : "\(Amount.format(s.progress))/\(Amount.format(h.goal))\(unit)\(s.completed ? ", done" : "")"
            return "Recorded \(name(id)) on \(day): \(what)\(s.difficulty.map { ", difficulty \($0)" } ?? "")"
        }
    }

    /// A check-in's, take-back's or total's statement: the day's amount after it, and
    /// "done! streak N" when it completed a build habit, "over the limit" past a limit.
    private func progressStatement(_ id: HabitID, _ day: LocalDay, _ name: String, state: HabitState, today: LocalDay,
                                   settings: RuleSettings) -> String {
        guard let h = state.habit(id) else { return "Done" }
        let s = state.summary(h, on: day, today: today, settings: settings)
        let unit = h.fields.unit.map { " " + $0 } ?? ""
        let progress = Amount.format(s.progress), goal = Amount.format(h.goal)
        let amount = h.kind == .build ? "\(progress)/\(goal)\(unit)" : "\(progress) (at most \(goal))\(unit)"
        let on = day == today ? "" : " on \(day)"
        if case .progress(_, _, let d) = self, d < 0, h.isYesNo { return "Marked \(name) not done\(on)" }
        let verb: String
        switch self {
        case .progress(_, _, Amount.scale): verb = "Checked in"
        case .progress(_, _, -Amount.scale): verb = "Took back one from"
        case .progress(_, _, let d) where d > 0: verb = "Added \(Amount.format(d)) to"
        case .progress(_, _, let d): verb = "Took back \(Amount.format(-d)) from"
        default: verb = "Set"
        }
        let extra = h.kind == .build && s.completed ? " — done! streak \(s.line.streakText)" : s.exceeded ? " — over the limit" : ""
        return "\(verb) \(name): \(amount)\(on)\(extra)"
    }
}
