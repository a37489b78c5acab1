/// Counts with nouns that agree with them: "1 operation", "2 operations", "0 batches".
/// Every message that prints a count of something says it through here.
public enum Plural {
    /// `n` and the noun in the number it takes: `count(1, "batch")` is "1 batch",
    /// `count(3, "batch")` "3 batches". `plural` names an irregular plural.
    public static func count<N: BinaryInteger>(_ n: N, _ singular: String, _ plural: String? = nil) -> String {
        "\(n) \(noun(n, singular, plural))"
    }

    /// The noun alone, singular for 1 and plural otherwise (English rules: -s, -es after
    /// s, x, z, ch and sh, -ies after a consonant and y).
    public static func noun<N: BinaryInteger>(_ n: N, _ singular: String, _ plural: String? = nil) -> String {
        n == 1 || n == -1 ? singular : plural ?? pluralOf(singular)
    }

    /// The regular English plural of `singular`.
    public static func pluralOf(_ singular: String) -> String {
        let lower = singular.lowercased()
        if ["s", "x", "z", "ch", "sh"].contains(where: { lower.hasSuffix($0) }) { return singular + "es" }
        if lower.hasSuffix("y"), let before = lower.dropLast().last, !"aeiou".contains(before) {
            return singular.dropLast() + "ies"
        }
        return singular + "s"
    }
}

extension DayLine {
    /// The streak with its unit, in the number it takes: "1 day", "0 days", "4 occurrences".
    public var streakText: String { Plural.count(streak, String(streakUnit.dropLast()), streakUnit) }

    /// The streak's unit in one letter or two for narrow columns: d, wk (weeks), x (occurrences).
    public var streakAbbreviation: String { ["weeks": "wk", "months": "mo", "occurrences": "x"][streakUnit] ?? "d" }
}
