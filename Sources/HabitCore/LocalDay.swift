import FoundationEssentials

/// A calendar day in the user's local calendar, independent of time zones and daylight
/// saving: the number of days since 1970-01-01 in the proleptic Gregorian calendar.
/// Day keys are written `YYYY-MM-DD`.
public struct LocalDay: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Days since 1970-01-01.
    public let ordinal: Int

    /// The earliest and latest days Habitto accepts.
    public static let earliest = LocalDay(year: 1900, month: 1, day: 1)!
    public static let latest = LocalDay(year: 9999, month: 12, day: 31)!

    /// A day from its days-since-1970 number.
    public init(ordinal: Int) { self.ordinal = ordinal }

    /// A day from a year, month and day of month; nil when no such day exists.
    public init?(year: Int, month: Int, day: Int) {
        guard (1...12).contains(month), day >= 1, day <= LocalDay.daysIn(month: month, year: year)
        else { return nil }
        // Days-from-civil (H. Hinnant), valid for the proleptic Gregorian calendar.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = month > 2 ? month - 3 : month + 9
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        ordinal = era * 146097 + doe - 719468
    }

    /// A day as a person types it, in the form and on the command line alike, in any of
    /// the forms `TypedDay` reads (`2026-11-21`, `yesterday`, `-3`, `+1`, `mon`).
    public init?(typed text: String, today: LocalDay) {
        guard let day = TypedDay.parse(text, today: today) else { return nil }
        self = day
    }

    /// Parses a strict `YYYY-MM-DD` key between 1900-01-01 and 9999-12-31.
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-")
        else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for i in range {
                let b = bytes[i]
                guard b >= 48, b <= 57 else { return nil }
                value = value * 10 + Int(b - 48)
            }
            return value
        }
        guard let y = number(0..<4), let m = number(5..<7), let d = number(8..<10),
              y >= 1900, let day = LocalDay(year: y, month: m, day: d)
        else { return nil }
        self = day
    }

    /// Year, month (1–12) and day of month.
    public var components: (year: Int, month: Int, day: Int) {
        let z = ordinal + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    /// The ISO weekday.
    public var weekday: Weekday {
        let r = ((ordinal + 3) % 7 + 7) % 7 // 1970-01-01 was a Thursday (r = 3).
        return Weekday(rawValue: r + 1)!
    }

    /// The `YYYY-MM-DD` key.
    public var description: String {
        let c = components
        func pad(_ v: Int, _ width: Int) -> String {
            let s = String(v)
            return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
        }
        return "\(pad(c.year, 4))-\(pad(c.month, 2))-\(pad(c.day, 2))"
    }

    /// The day `n` days later (earlier for negative `n`).
    public func adding(_ n: Int) -> LocalDay { LocalDay(ordinal: ordinal + n) }

    /// Days from `self` to `other` (positive when `other` is later).
    public func days(to other: LocalDay) -> Int { other.ordinal - ordinal }

    /// The same day of the month `n` months later (earlier when negative), or the month's
    /// last day when it is shorter (31 Mar − 1 month = 28 or 29 Feb).
    public func addingMonths(_ n: Int) -> LocalDay {
        let c = components
        let index = c.year * 12 + (c.month - 1) + n
        let year = index / 12, month = index % 12 + 1
        return LocalDay(year: year, month: month, day: min(c.day, LocalDay.daysIn(month: month, year: year))) ?? self
    }

    /// The first day of the week containing this day, for weeks that start on `weekStart`.
    public func startOfWeek(_ weekStart: Weekday) -> LocalDay {
        let back = ((weekday.rawValue - weekStart.rawValue) % 7 + 7) % 7
        return adding(-back)
    }

    /// The first day of this day's calendar month.
    public var startOfMonth: LocalDay { adding(1 - components.day) }

    /// The last day of this day's calendar month.
    public var endOfMonth: LocalDay {
        let c = components
        return adding(LocalDay.daysIn(month: c.month, year: c.year) - c.day)
    }

    public static func < (a: LocalDay, b: LocalDay) -> Bool { a.ordinal < b.ordinal }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2:
            let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
            return leap ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// The habit day that an instant falls on in `timeZone`: the local calendar date,
    /// moved to the previous day while the local hour is before `dayStartHour` (0–23).
    /// Pure: the instant is passed in, never read from a clock.
    public static func containing(_ instant: Date, in timeZone: TimeZone, dayStartHour: Int = 0) -> LocalDay {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let c = calendar.dateComponents([.year, .month, .day, .hour], from: instant)
        let day = LocalDay(year: c.year!, month: c.month!, day: c.day!)!
        return (c.hour ?? 0) < dayStartHour ? day.adding(-1) : day
    }
}

/// ISO weekdays, Monday = 1 … Sunday = 7.
public enum Weekday: Int, CaseIterable, Sendable, Comparable {
    case monday = 1, tuesday, wednesday, thursday, friday, saturday, sunday

    /// Three-letter lower-case name (`mon` … `sun`).
    public var shortName: String {
        ["mon", "tue", "wed", "thu", "fri", "sat", "sun"][rawValue - 1]
    }

    /// The day's name in full, lower-case (`monday` … `sunday`).
    public var fullName: String { Self.fullNames[rawValue - 1] }

    private static let fullNames = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]

    /// Parses `mon`, `monday`, `Mon` and so on.
    public init?(name: String) {
        let lower = name.lowercased()
        for (i, f) in Self.fullNames.enumerated() where lower == f || lower == String(f.prefix(3)) {
            self.init(rawValue: i + 1)
            return
        }
        return nil
    }

    public static func < (a: Weekday, b: Weekday) -> Bool { a.rawValue < b.rawValue }
}
