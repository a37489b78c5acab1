import HabitCore

/// The pause prompt (`P`) for one habit, on the message line: it starts with the selected
/// day and a space, the first day of the pause. What Enter reads (`entry`):
/// - `FROM TO [REASON]`: pause FROM through TO, each in any form `TypedDay` reads
///   (`2026-12-24`, `+7`, `fri`), with an optional reason after them;
/// - `FROM` alone: that one day;
/// - `end`: end the habit's current pause at yesterday, or call off its next one.
/// Esc cancels.
public struct PausePrompt: TextPrompt {
    public let habit: HabitID
    /// The day the prompt was opened on (its text starts with it).
    public let day: LocalDay
    public var text: String
    /// Why the last Enter was refused (the prompt stays open to fix it).
    public var error: String?

    public init(habit: HabitID, day: LocalDay) {
        self.habit = habit; self.day = day; text = "\(day) "
    }

    /// The most the prompt holds: two dates and a reason, with room to spare.
    public static let maxLength = 120

    /// What the prompt's text asks for.
    public enum Entry: Hashable, Sendable {
        case pause(from: LocalDay, to: LocalDay, reason: String?)
        case end
    }

    /// Why a prompt's text is not an entry.
    public enum Problem: Error, Hashable, Sendable, CustomStringConvertible {
        case empty
        case notADay(String)
        public var description: String {
            switch self {
            case .empty: return "type the first and last day (2026-12-24 +7), or end"
            case .notADay(let text): return "'\(Sanitize.display(text))' is not a day: use \(TypedDay.forms)"
            }
        }
    }

    /// The entry the text asks for, its days read from `today`; throws `Problem` or the
    /// rules' `CoreError` (a range backwards or too long, a reason too long).
    public func entry(today: LocalDay) throws -> Entry {
        let words = text.split(whereSeparator: \.isWhitespace).map(String.init)
        guard let first = words.first else { throw Problem.empty }
        if words.count == 1, first.lowercased() == "end" { return .end }
        guard let from = TypedDay.parse(first, today: today) else { throw Problem.notADay(first) }
        var to = from, rest = words.dropFirst()
        if let second = rest.first, let day = TypedDay.parse(second, today: today) { to = day; rest = rest.dropFirst() }
        let reason = rest.isEmpty ? nil : rest.joined(separator: " ")
        try Pauses.checkRange(from: from, to: to)
        if let reason { try Validate.pauseReason(reason) }
        return .pause(from: from, to: to, reason: reason)
    }

    /// The intent the entry asks for.
    public func intent(_ entry: Entry) -> Intent {
        switch entry {
        case .pause(let from, let to, let reason): return .pause(habit, from: from, to: to, reason: reason)
        case .end: return .endPause(habit)
        }
    }
}
