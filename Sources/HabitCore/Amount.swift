/// Amounts (goals, progress, check-ins) in thousandths of a unit.
///
/// Every amount is an exact integer number of thousandths, never floating point: `2.5 km`
/// is 2500, one check-in of a yes/no habit is `scale`. Data written before amounts had
/// decimals holds whole units; its readers multiply by `scale` (see `ByteReader`).
public enum Amount {
    /// One unit.
    public static let scale = 1000
    /// The most decimals an amount has.
    public static let decimals = 3

    /// Parses "3", "1.5", "0.125" (at most three decimals, no sign) into thousandths;
    /// throws a `CoreError` (not a number, too many decimals, too large) otherwise.
    public static func parse(_ text: String) throws -> Int {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = parts[0], fraction = parts.count > 1 ? parts[1] : ""
        let isDigits = { (s: Substring) in s.unicodeScalars.allSatisfy { ("0"..."9").contains($0) } }
        guard !text.isEmpty, isDigits(whole), isDigits(fraction), !whole.isEmpty || !fraction.isEmpty,
              parts.count == 1 || !fraction.isEmpty
        else {
            throw CoreError.amountNotANumber(text, decimals: decimals)
        }
        guard fraction.count <= decimals else {
            throw CoreError.amountTooPrecise(text, decimals: decimals)
        }
        let digits = whole.drop { $0 == "0" }
        guard digits.count <= 12, let units = Int(whole.isEmpty ? "0" : whole) else {
            throw CoreError.amountTooLarge(text)
        }
        let padded = fraction + String(repeating: "0", count: decimals - fraction.count)
        return units * scale + (Int(padded) ?? 0)
    }

    /// "8", "1.5", "0.125": whole units without decimals, trailing zeros dropped.
    public static func format(_ thousandths: Int) -> String {
        let sign = thousandths < 0 ? "-" : ""
        let magnitude = thousandths.magnitude
        let units = magnitude / UInt(scale), fraction = magnitude % UInt(scale)
        guard fraction != 0 else { return sign + String(units) }
        var digits = String(fraction)
        digits = String(repeating: "0", count: decimals - digits.count) + digits
        while digits.hasSuffix("0") { digits.removeLast() }
        return "\(sign)\(units).\(digits)"
    }
}
