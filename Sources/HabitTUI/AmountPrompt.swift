import HabitCore

/// The typed-amount prompt for one habit's day: `3` or `+3` adds, `-2` takes back, `=8`
/// sets the day's total. The number goes through `Amount.parse`; the sign and `=` are the
/// prompt's.
public struct AmountPrompt: LinePrompt {
    /// What a typed entry asks for, in the amount representation.
    public enum Entry: Hashable, Sendable {
        case add(Int)
        case takeBack(Int)
        case total(Int)
    }

    public let habit: HabitID
    public let day: LocalDay
    /// What the user typed so far.
    public var text = ""
    /// Why the last Enter was refused (the prompt stays open to fix it).
    public var error: String?

    public init(habit: HabitID, day: LocalDay) { self.habit = habit; self.day = day }

    /// The longest entry the prompt takes.
    public static let maxLength = 16

    /// Parses an entry: `3`, `+3`, `1.5`, `-2`, `=8`.
    public static func parse(_ text: String) throws -> Entry {
        let t = text.trimmingBlanks
        guard let first = t.first else {
            throw CoreError.amountPromptUnreadable
        }
        let rest = String(t.dropFirst())
        // A sign alone asks for an amount, as an empty entry does.
        if "+-=".contains(first), rest.trimmingBlanks.isEmpty { throw CoreError.amountPromptUnreadable }
        let entry: Entry
        switch first {
        case "+": entry = .add(try Amount.parse(rest))
        case "-": entry = .takeBack(try Amount.parse(rest))
        case "=": return .total(try Amount.parse(rest))
        default: entry = .add(try Amount.parse(t))
        }
        if entry == .add(0) || entry == .takeBack(0) {
            throw CoreError.zeroChangesNothing
        }
        return entry
    }

    /// The write an entry asks for.
    public func intent(_ entry: Entry) -> Intent {
        switch entry {
        case .add(let n): .checkIn(habit, day, amount: n)
        case .takeBack(let n): .takeBack(habit, day, amount: n)
        case .total(let n): .setTotal(habit, day, n)
        }
    }

    /// Types a character (printable, up to `maxLength`).
    public mutating func type(_ c: Character) {
        error = nil
        guard text.count < Self.maxLength, !c.isNewline, c.isASCII, !(c.asciiValue.map { $0 < 32 || $0 == 127 } ?? true) else { return }
        text.append(c)
    }

    /// Erases the last character.
    public mutating func erase() {
        error = nil
        if !text.isEmpty { text.removeLast() }
    }
}
