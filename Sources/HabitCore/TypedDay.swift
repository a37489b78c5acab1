import FoundationEssentials

/// A day as a person types it, read in one place for every date Habitto takes (`--date`,
/// `--start`, `edit --from`, the form's start date):
///
/// - `YYYY-MM-DD` (1900-01-01 to 9999-12-31);
/// - `today`, `yesterday`, `tomorrow`;
/// - `-N` and `+N`: N days before or after today (N from 0 to 36,500);
/// - a weekday, `mon` … `sun` or `monday` … `sunday`: the most recent such day, today
///   when today is one (`mon` on a Monday is today, on a Tuesday yesterday), as a tracker
///   of what was done means "on Monday".
///
/// Case and blanks at either end do not matter. Anything else is refused (nil), never
/// guessed at; `TypedDay.forms` says what is accepted, for the refusal's message.
public enum TypedDay {
    /// The forms accepted, as a refusal lists them after "use".
    public static let forms = "YYYY-MM-DD (1900 to 9999), today, yesterday, tomorrow, -N or +N days from today, or a weekday such as mon (the latest, today included)"

    /// The most days `-N` and `+N` reach from today.
    public static let maxOffset = 36_500

    /// The day `text` names, counted from `today`; nil when it is none of the forms or
    /// falls outside the days Habitto accepts.
    public static func parse(_ text: String, today: LocalDay) -> LocalDay? {
        let s = text.trimmingBlanks.lowercased()
        if let day = LocalDay(s) { return day }
        let day: LocalDay
        switch s {
        case "today": day = today
        case "yesterday": day = today.adding(-1)
        case "tomorrow": day = today.adding(1)
        default:
            if let weekday = Weekday(name: s) {
                day = today.adding(-((today.weekday.rawValue - weekday.rawValue + 7) % 7))
            } else if let offset = offset(s) {
                day = today.adding(offset)
            } else {
                return nil
            }
        }
        return (LocalDay.earliest...LocalDay.latest).contains(day) ? day : nil
    }

    /// `-N` or `+N` with N in ASCII digits, at most `maxOffset`.
    static func offset(_ s: String) -> Int? {
        guard let sign = s.first, sign == "-" || sign == "+" else { return nil }
        let digits = s.utf8.dropFirst()
        guard !digits.isEmpty, digits.count <= 5, digits.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        let n = digits.reduce(0) { $0 * 10 + Int($1 - 48) }
        guard n <= maxOffset else { return nil }
        return sign == "-" ? -n : n
    }
}
