extension Change {
    /// A short human description of the change, naming the habit as `state` knows it
    /// ("check 'Water' +1 on 2026-11-21"), used for undo messages.
    public func describe(in state: HabitState) -> String {
        let name: String = {
            if case .create(_, let f) = self { return "'\(Sanitize.display(f.name))'" }
            return state.entries[habit].map { "'\(Sanitize.display($0.fields.name))'" } ?? "a habit"
        }()
        switch self {
        case .create: return "add \(name)"
        case .set(_, .name(let new)): return "rename \(name) to '\(Sanitize.display(new))'"
        case .set(_, .archivedFrom(let d)): return d == nil ? "unarchive \(name)" : "archive \(name)"
        case .set(_, .position): return "move \(name)"
        case .set: return "edit \(name)"
        case .setFrom(_, let d, _), .clearFrom(_, let d, _): return "edit \(name) from \(d)"
        case .delete: return "delete \(name)"
        case .restore: return "restore \(name)"
        case .progress(_, let d, let delta):
            if delta <= -Limits.maxDayProgress { return "mark \(name) not done on \(d)" }
            return delta > 0 ? "check \(name) +\(Amount.format(delta)) on \(d)" : "uncheck \(name) -\(Amount.format(-delta)) on \(d)"
        case .setProgress(_, let d, let total): return "set \(name) to \(Amount.format(total)) on \(d)"
        case .skip(_, let d, let on): return "\(on ? "skip" : "unskip") \(name) on \(d)"
        case .rate(_, let d, let r): return r.map { "rate \(name) \($0) on \(d)" } ?? "clear the rating of \(name) on \(d)"
        case .note(_, let d, let n): return n == nil ? "clear the note of \(name) on \(d)" : "note on \(name) on \(d)"
        case .notDone(_, let d, let on): return on ? "answer \(name) not done on \(d)" : "withdraw the not-done answer of \(name) on \(d)"
        case .pause(_, let from, let to, let reason):
            let days = from == to ? "on \(from)" : "from \(from) to \(to)"
            return reason == nil ? "end the pause of \(name) \(days)" : "pause \(name) \(days)"
        }
    }

    /// How much a change says about what a command did (higher describes it better).
    var weight: Int {
        switch self {
        case .create, .delete, .restore: return 5
        case .progress, .setProgress: return 4
        case .skip(_, _, true), .notDone(_, _, true), .pause: return 3
        case .set(_, .archivedFrom): return 3
        case .set(_, .name): return 2
        case .rate: return 2
        default: return 1
        }
    }
}

extension Array where Element == Change {
    /// The description of the change that best says what this group of changes did.
    public func describe(in state: HabitState) -> String {
        guard let main = self.enumerated().max(by: { ($0.element.weight, -$0.offset) < ($1.element.weight, -$1.offset) })
        else { return "nothing" }
        return main.element.describe(in: state)
    }
}

extension Change {
    /// Throws a `CoreError` when the change breaks a rule or could not be read back
    /// once written (the repository checks every change before it writes).
    public func validate() throws {
        switch self {
        case .create(_, let fields):
            try fields.validate()
        case .setFrom(_, _, let value):
            guard HabitRule.fieldIndices.contains(value.index) else {
                throw CoreError.notARuleField
            }
            try Change.set(habit, value).validate()
        case .clearFrom(_, _, let index):
            guard HabitRule.fieldIndices.contains(index) else { throw CoreError.notARuleField }
        case .set(_, let value):
            switch value {
            case .name(let s): try Validate.name(s)
            case .icon(let s): if let s { try Validate.icon(s) }
            case .color(let s): if let s { try Validate.color(s) }
            case .unit(let s): if let s { try Validate.unit(s) }
            case .notes(let s): if let s { try Validate.notes(s) }
            case .group(let s): if let s { try Validate.group(s) }
            case .position(let s): if let s { try Validate.position(s) }
            case .reminders(let times): try Validate.reminders(times)
            case .goal(let g): try Validate.goal(g, kind: .limit)
            case .schedule(let s): try s.validateShape()
            case .kind, .startDate, .archivedFrom: break
            }
        case .progress(_, _, let delta):
            guard delta != 0, (-Limits.maxChange...Limits.maxChange).contains(delta) else {
                throw CoreError.changeOutOfRange
            }
        case .setProgress(_, _, let total):
            guard (0...Limits.maxDayProgress).contains(total) else {
                throw CoreError.totalOutOfRange
            }
        case .rate(_, _, let r):
            if let r, !Limits.difficulty.contains(r) { throw CoreError.difficultyOutOfRange(given: nil) }
        case .note(_, _, let n):
            if let n { try Validate.dayNote(n) }
        case .pause(_, let from, let to, let reason):
            try Pauses.checkRange(from: from, to: to)
            if let reason, !reason.isEmpty { try Validate.pauseReason(reason) }
        case .delete, .restore, .skip, .notDone:
            break
        }
    }
}

extension Schedule {
    /// Throws when the schedule is not in its canonical shape (what the codec reads back).
    public func validateShape() throws {
        switch self {
        case .daily: return
        case .weekdays(let set) where !set.isEmpty && set.count < 7: return
        case .everyNDays(let n) where Limits.storedEveryNDays.contains(n): return
        case .perWeek(let n) where Limits.storedTimesPerWeek.contains(n): return
        case .perMonth(let n) where Limits.timesPerMonth.contains(n): return
        default: throw CoreError.scheduleOutOfRange(self)
        }
    }
}
