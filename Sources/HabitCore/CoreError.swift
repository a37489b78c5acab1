/// The one error type of HabitCore: a rule was broken. The message says what to do; its
/// description is safe to print (`Sanitize.display`), whatever outside value it quotes.
public enum CoreError: Error, Equatable, CustomStringConvertible, Sendable {
    case invalid(String)
    public var description: String {
        switch self { case .invalid(let m): return Sanitize.display(m) }
    }
}
