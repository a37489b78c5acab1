/// The one wording of what a written intent did: the command line prints it, the UI's
/// message line shows it and a reminder's answer reports it. A front end gives only its
/// marks: the status glyph before a day's line (`mark`) and the "at most" sign (`atMost`).
extension Outcome {
    /// What happened, in one sentence.
    public func sentence(mark: (DayLine) -> String = { _ in "" }, atMost: String = "≤") -> String {
        let name = habit.map { Sanitize.quoted($0.name) } ?? "the habit"
        func day(_ extra: String = "") -> String {
            line.map { Wording.day($0, today: today, mark: mark($0), atMost: atMost) + extra } ?? "Done"
        }
        switch intent {
        case .setTotal(_, let d, let total) where !changed:
            return "\(habit.map { Sanitize.display($0.name) } ?? "The habit") already has \(Amount.format(total)) on \(d): nothing changed"
        case .checkIn, .takeBack, .setTotal, .toggle:
            return day()
        case .skip(_, let d, let on):
            return Wording.skip(name, d, on, changed: changed)
        case .rate(_, let d, let r):
            return Wording.rating(name, d, r)
        case .note(_, let d, let text):
            if !changed { return text == nil ? "\(name) has no note on \(d); nothing changed" : "\(name) already has that note on \(d); nothing changed" }
            return text == nil ? "Cleared the note of \(name) on \(d)" : "Noted on \(name) on \(d)"
        case .answer(_, let d, let answer):
            switch answer {
            case .leave: return "left as it is"
            case .skip: return Wording.skip(name, d, true, changed: changed)
            case .notDone: return day(" · answered not done")
            case .done, .amount: return day()
            }
        case .add: return "Added \(name)"
        case .edit: return "Saved \(name)"
        case .archive: return "Archived \(name); its history stays"
        case .unarchive: return "Unarchived \(name)"
        case .move(_, let target):
            guard changed else { return "\(name) is already there: nothing changed" }
            switch target {
            case .before: return "Moved \(name) up"
            case .after: return "Moved \(name) down"
            case .top: return "Moved \(name) to the top"
            case .bottom: return "Moved \(name) to the bottom"
            }
        case .delete: return "Deleted the habit and its history"
        case .pause(_, let from, let to, _): return Pauses.paused(changed ? 1 : 0, of: habit.map { [$0] } ?? [], from: from, to: to)
        case .endPause: return Pauses.ended([], of: habit.map { [$0] } ?? [])
        }
    }
}

/// The sentences of a day's outcomes, each said once.
public enum Wording {
    /// A habit's day after a check-in, a take-back, a total or an answer:
    /// `✓ 'Read' today: 1/1, done · streak 3 days · difficulty 2` (`mark` first, when given).
    public static func day(_ s: DayLine, today: LocalDay, mark: String = "", atMost: String = "≤") -> String {
        let when = s.day == today ? "today" : "on \(s.day)"
        var text = (mark.isEmpty ? "" : mark + " ") + "\(Sanitize.quoted(s.habit.name)) \(when): \(progress(s, atMost: atMost))"
        if s.habit.kind == .build && s.completed { text += ", done" }
        if s.exceeded { text += ", over the limit" }
        text += " · streak \(s.streakText)"
        if let d = s.difficulty { text += " · difficulty \(d)" }
        return text
    }

    /// A day's progress against the goal: `5/8 glasses`, or `1 (≤0)` for a limit habit.
    public static func progress(_ s: DayLine, atMost: String = "≤") -> String {
        let unit = s.habit.fields.unit.map { " " + Sanitize.display($0) } ?? ""
        let progress = Amount.format(s.progress), goal = Amount.format(s.habit.goal)
        return s.habit.kind == .build ? "\(progress)/\(goal)\(unit)" : "\(progress) (\(atMost)\(goal))\(unit)"
    }

    /// A skip or an un-skip (`name` quoted), or that the day already was so.
    public static func skip(_ name: String, _ day: LocalDay, _ on: Bool, changed: Bool = true) -> String {
        guard changed else { return "\(name) is \(on ? "already" : "not") skipped on \(day); nothing changed" }
        return on ? "Skipped \(name) on \(day): the day neither counts nor breaks the streak" : "Unskipped \(name) on \(day)"
    }

    /// A rating set or cleared (`name` quoted).
    public static func rating(_ name: String, _ day: LocalDay, _ rating: Int?) -> String {
        rating.map { "Rated \(name) on \(day): \($0) (\(difficultyName($0)))" } ?? "Cleared the difficulty of \(name) on \(day)"
    }

    /// A difficulty's name: 1 very easy … 5 very hard.
    public static func difficultyName(_ v: Int) -> String {
        ["very easy", "easy", "medium", "hard", "very hard"][max(0, min(4, v - 1))]
    }
}
