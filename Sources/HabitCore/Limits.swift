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
    /// N of an "N per week" schedule as typed (`N/week`): `7/week` is read as daily.
    public static let timesPerWeek = 1...7
    /// N of a `Schedule.perWeek`, as validation and decoding accept it: 7 per week is daily,
    /// so a stored per-week schedule is at most 6.
    public static let storedTimesPerWeek = 1...6
    /// N of an "N per month" schedule, typed, validated and decoded.
    public static let timesPerMonth = 1...31
    /// N of an "every N days" schedule as typed (`every:N`): `every:1` is read as daily.
    public static let everyNDays = 1...365
    /// N of a `Schedule.everyNDays`, as validation and decoding accept it: every day is
    /// daily, so a stored one is every 2 days at least.
    public static let storedEveryNDays = 2...365
    /// The most days one pause covers (a year and a day, so that any year fits).
    public static let maxPauseDays = 366
}
