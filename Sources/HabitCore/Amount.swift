import Foundation

/// Amounts (goals, progress, check-ins) in thousandths of a unit.
///
/// On this branch amounts are still whole units internally (`scale` is 1); the decimal
/// representation replaces this file with the same API.
public enum Amount {
    /// One unit.
    public static let scale = 1
    /// Parses "3", "1.5", "0.125" (at most three decimals, no sign) into thousandths;
    /// throws CoreError.invalid with a one-line message otherwise.
    public static func parse(_ text: String) throws -> Int {
        let t = text.trimmingCharacters(in: .whitespaces)
        guard !t.isEmpty, t.count <= 9, t.allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int(t) else {
            throw CoreError.invalid("'\(Sanitize.display(text))' is not an amount: type a whole number such as 3")
        }
        return n * scale
    }
    /// "8", "1.5", "0.125": whole units without decimals, trailing zeros dropped.
    public static func format(_ thousandths: Int) -> String { String(thousandths / scale) }
}
