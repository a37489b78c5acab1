/// Amounts (goals, progress, check-ins) in thousandths of a unit.
///
/// Placeholder for the shared contract of issue 13: this branch keeps whole units
/// internally, so `scale` is 1 here; the decimal version replaces this file.
public enum Amount {
    public static let scale = 1            // one unit
    /// Parses "3", "1.5", "0.125" (at most three decimals, no sign) into thousandths;
    /// throws CoreError.invalid with a one-line message otherwise.
    public static func parse(_ text: String) throws -> Int {
        guard !text.isEmpty, text.count <= 7, text.allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int(text) else {
            throw CoreError.invalid("'\(Sanitize.display(text))' is not an amount: give a whole number such as 3")
        }
        return n * scale
    }
    /// "8", "1.5", "0.125": whole units without decimals, trailing zeros dropped.
    public static func format(_ thousandths: Int) -> String { String(thousandths / scale) }
}
