import HabitCore

/// Text and schedule rules shared by the import readers: each turns a value from another
/// tracker into one Habitto accepts, and says in words what it had to change.
enum ImportText {
    /// The longest note Habitto keeps (`Validate.notes`).
    static let maxNoteCharacters = 2000
    /// The longest habit name (`Validate.name`).
    static let maxNameCharacters = 64
    /// The largest every-N-days interval that `Schedule(parsing:)` reads back.
    static let maxEveryNDays = Limits.everyNDays.upperBound

    /// The text without leading or trailing whitespace, as `Character.isWhitespace` (the
    /// test `Validate.name` uses) defines it; newlines count as whitespace.
    static func trimmed(_ s: String) -> String {
        guard let first = s.firstIndex(where: { !$0.isWhitespace }),
              let last = s.lastIndex(where: { !$0.isWhitespace }) else { return "" }
        return String(s[first...last])
    }

    /// A habit name Habitto accepts: the trimmed text when it is valid; otherwise control
    /// characters become spaces, invisible ones are removed and the text is cut to 64
    /// characters (`fixed` is true). Nil when nothing usable is left.
    static func habitName(_ raw: String) -> (name: String, fixed: Bool)? {
        label(raw, maxCharacters: maxNameCharacters, rule: Validate.name)
    }

    /// A group Habitto accepts (`Validate.group`: at most 32 characters), made as `habitName`.
    static func groupName(_ raw: String) -> (name: String, fixed: Bool)? {
        label(raw, maxCharacters: maxGroupCharacters, rule: Validate.group)
    }

    /// The longest group (`Validate.group`).
    static let maxGroupCharacters = 32

    private static func label(_ raw: String, maxCharacters: Int, rule: (String) throws -> Void) -> (name: String, fixed: Bool)? {
        let plain = trimmed(raw)
        if (try? rule(plain)) != nil { return (plain, false) }
        var scalars = String.UnicodeScalarView()
        for u in plain.unicodeScalars { scalars.append(Sanitize.isForbidden(u) ? " " : u) }
        var name = trimmed(Sanitize.removingInvisible(String(scalars)))
        if name.count > maxCharacters { name = trimmed(String(name.prefix(maxCharacters))) }
        guard (try? rule(name)) != nil else { return nil }
        return (name, true)
    }

    /// A note Habitto accepts, or nil for an empty one. Line endings become `\n`, tabs
    /// become spaces, other control characters are removed, and the text is cut to 2,000
    /// characters; `problem` says what changed beyond line endings (for a disagreement).
    static func note(_ raw: String) -> (text: String?, problem: String?) {
        var problems: [String] = []
        var scalars = String.UnicodeScalarView()
        var previousCR = false
        var removed = 0
        for u in raw.unicodeScalars {
            defer { previousCR = u == "\r" }
            switch u {
            case "\r": scalars.append("\n")
            case "\n": if !previousCR { scalars.append("\n") }
            case "\t": scalars.append(" ")
            default:
                if Sanitize.isForbidden(u) { removed += 1 } else { scalars.append(u) }
            }
        }
        if removed > 0 { problems.append("removed \(Plural.count(removed, "control character")) from the note") }
        var text = trimmed(String(scalars))
        if text.count > maxNoteCharacters {
            problems.append("the note is \(text.count) characters long; kept the first \(maxNoteCharacters)")
            text = trimmed(String(text.prefix(maxNoteCharacters)))
        }
        let problem = problems.isEmpty ? nil : problems.joined(separator: "; ")
        if text.isEmpty { return (nil, problem) }
        guard (try? Validate.notes(text)) != nil else {
            return (nil, "the note is too large to keep (\(text.utf8.count) bytes); dropped it")
        }
        return (text, problem)
    }

    /// The schedule for "`times` times in `days` days" (both at least 1), and a message
    /// when Habitto has no exact equivalent: times ≥ days is daily, n/7 is n per week,
    /// 1/n is every n days, anything else the nearest times per week (1–7).
    static func schedule(times: Int, days: Int) -> (schedule: Schedule, problem: String?) {
        if times >= days { return (.daily, nil) }
        if days == 7 { return (.perWeek(times), nil) }
        if times == 1 { return everyNDays(days) }
        let perWeek = min(7, max(1, Int((7.0 * Double(times) / Double(days)).rounded())))
        let chosen: Schedule = perWeek == 7 ? .daily : .perWeek(perWeek)
        return (chosen, "\(times) times in \(days) days has no exact Habitto schedule; imported as \(chosen)")
    }

    /// Every `n` days (n ≥ 1; 1 is daily), capped at 365 days with a message.
    static func everyNDays(_ n: Int) -> (schedule: Schedule, problem: String?) {
        if n <= 1 { return (.daily, nil) }
        if n > maxEveryNDays {
            return (.everyNDays(maxEveryNDays), "every \(n) days is longer than Habitto allows; imported as every:\(maxEveryNDays)")
        }
        return (.everyNDays(n), nil)
    }

    /// A limit habit cannot use an N-per-week schedule: such a schedule becomes daily,
    /// with a message.
    static func fitting(_ schedule: Schedule, kind: HabitKind) -> (schedule: Schedule, problem: String?) {
        guard kind == .limit, schedule.isQuota else { return (schedule, nil) }
        return (.daily, "a limit habit cannot use the schedule \(schedule); imported as daily")
    }

    /// Shown text for a value in a message: control characters replaced, cut to 80 characters.
    static func shown(_ s: String) -> String {
        let safe = Sanitize.display(s)
        return safe.count > 80 ? String(safe.prefix(80)) + "…" : safe
    }
}

/// The skipped rows and disagreements a reader collects while it reads.
struct ImportNotes {
    var skipped: [ImportNote] = []
    var disagreements: [ImportNote] = []

    /// Records a row or value that was not imported.
    mutating func skip(_ location: String, _ message: String) {
        skipped.append(ImportNote(location: location, message: message))
    }

    /// Records a place where the source had to be changed to fit, and what was chosen.
    mutating func disagree(_ location: String, _ message: String) {
        disagreements.append(ImportNote(location: location, message: message))
    }

    /// Records `problem` as a disagreement when there is one.
    mutating func disagree(_ location: String, _ problem: String?) {
        if let problem { disagree(location, problem) }
    }
}
