import HabitCore

/// The timer's duration prompt for one habit's day, on the message line: it starts with the
/// habit's suggested duration (`HabitTimer.suggestedDuration`), Enter starts the timer with
/// what it holds (`HabitTimer.parseDuration`), Esc cancels.
public struct TimerPrompt: LinePrompt {
    public let habit: HabitID
    public let day: LocalDay
    /// The duration as typed so far.
    public var text: String
    /// Why the last Enter was refused (the prompt stays open to fix it).
    public var error: String?
    /// Nothing typed yet: the first character replaces the suggestion, as in the habit
    /// form's fields (backspace edits it instead).
    public var suggested = true

    /// The longest entry the prompt takes.
    public static let maxLength = 12

    public init(habit: HabitID, day: LocalDay, text: String) { self.habit = habit; self.day = day; self.text = text }

    /// Types a character (a digit or a letter, up to `maxLength`).
    public mutating func type(_ c: Character) {
        error = nil
        guard c.isASCII, c.isLetter || c.isNumber else { return }
        if suggested { text = ""; suggested = false }
        guard text.count < Self.maxLength else { return }
        text.append(c)
    }

    /// Erases the last character.
    public mutating func erase() {
        error = nil
        suggested = false
        if !text.isEmpty { text.removeLast() }
    }
}
