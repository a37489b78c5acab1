/// The bounds every value is checked against, from local input, a remote or an import.
/// Amounts are thousandths (see `Amount`): each bound is 1,000,000 units.
public enum Limits {
    /// The largest goal, and the largest amount one check-in records.
    public static let maxGoal = 1_000_000 * Amount.scale
    /// The largest size of one progress change (a check-in, an uncheck, an undo).
    public static let maxChange = 1_000_000 * Amount.scale
    /// The most progress a day holds; a check-in that would go past it is refused, and a
    /// merge keeps a day's running total within it.
    public static let maxDayProgress = 1_000_000 * Amount.scale
    /// A difficulty rating: 1 (very easy) to 5 (very hard).
    public static let difficulty = 1...5
    /// N of an "N per week" schedule as typed or decoded (7 per week is normalised to daily, so a
    /// stored per-week schedule is at most 6).
    public static let timesPerWeek = 1...7
    /// N of an "N per month" schedule.
    public static let timesPerMonth = 1...31
}
