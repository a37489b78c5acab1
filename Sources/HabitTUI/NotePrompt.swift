import HabitCore

/// A one-line prompt on the message line (the amount's, the note's): typed into, erased
/// from the end.
public protocol LinePrompt: Hashable, Sendable {
    /// Types a character.
    mutating func type(_ c: Character)
    /// Erases the last character.
    mutating func erase()
}

/// A line prompt holding typed text, up to `maxLength` characters, and the reason its
/// last Enter was refused: typing or erasing clears that reason.
public protocol TextPrompt: LinePrompt {
    var text: String { get set }
    var error: String? { get set }
    static var maxLength: Int { get }
}

extension TextPrompt {
    /// Types a character (up to `maxLength`).
    public mutating func type(_ c: Character) {
        error = nil
        guard text.count < Self.maxLength else { return }
        text.append(c)
    }

    /// Erases the last character.
    public mutating func erase() {
        error = nil
        if !text.isEmpty { text.removeLast() }
    }
}

/// The note prompt for one habit's day, on the message line: it starts with the day's
/// note, Enter saves what it holds (an empty note clears the day's note), Esc cancels.
public struct NotePrompt: TextPrompt {
    public let habit: HabitID
    public let day: LocalDay
    /// The note as edited so far (a note written with line breaks elsewhere keeps them).
    public var text: String
    /// Why the last Enter was refused (the prompt stays open to fix it).
    public var error: String?

    public init(habit: HabitID, day: LocalDay, text: String = "") { self.habit = habit; self.day = day; self.text = text }

    /// The most the prompt holds: a little more than a note may have, so that a long
    /// paste is refused with the reason rather than cut without a word.
    public static let maxLength = 2100

    /// The note Enter saves: nil (clear) for an empty or blank text, else the text, checked
    /// by `Validate.dayNote`.
    public func note() throws -> String? {
        if text.allSatisfy(\.isWhitespace) { return nil }
        try Validate.dayNote(text)
        return text
    }
}
