import FoundationEssentials

/// UTC timestamps as text, written by hand: a `DateFormatter` or `ISO8601DateFormatter`
/// loads ICU's data when first used, a large part of a short command's time. The day comes from `LocalDay` (proleptic Gregorian), the time of day from
/// the seconds; the instant is taken to the nearest millisecond and its fraction of a
/// second dropped, as the formatters do.
public enum UTCTime {
    /// `2026-11-21T09:00:00Z`: what `ISO8601DateFormatter` writes by default.
    public static func iso8601(_ date: Date) -> String {
        let (day, h, m, s) = split(date)
        return "\(day)T\(two(h)):\(two(m)):\(two(s))Z"
    }

    /// `20261121-090000`: a backup's time stamp.
    public static func compact(_ date: Date) -> String {
        let (day, h, m, s) = split(date)
        return day.description.filter { $0 != "-" } + "-\(two(h))\(two(m))\(two(s))"
    }

    static func split(_ date: Date) -> (LocalDay, Int, Int, Int) {
        // To the millisecond first, as the formatters do, then down to the second.
        let t = date.timeIntervalSince1970
        let ms = t.isFinite ? Int((max(-1e14, min(1e14, t)) * 1000).rounded()) : 0
        let seconds = ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000)
        let days = seconds >= 0 ? seconds / 86_400 : -((-seconds + 86_399) / 86_400)
        let rest = seconds - days * 86_400
        return (LocalDay(ordinal: days), rest / 3600, rest % 3600 / 60, rest % 60)
    }

    /// An HTTP date (RFC 9110, section 5.6.7), in any of its three forms: `Sun, 06 Nov 1994
    /// 08:49:37 GMT` (the preferred one), the obsolete `Sunday, 06-Nov-94 08:49:37 GMT` (a
    /// two-digit year more than 50 years ahead is taken as the century before) and `Sun Nov
    ///  6 08:49:37 1994`. The weekday's name is checked for its form but not against the date.
    /// Nil for anything else.
    public static func httpDate(_ text: String, now: Date) -> Date? {
        let words = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let shortDays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
        let longDays = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
        func number(_ s: String, digits: ClosedRange<Int>) -> Int? {
            guard digits.contains(s.utf8.count), s.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
            return Int(s)
        }
        func clock(_ s: String) -> Int? {
            let p = s.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            guard p.count == 3, let h = number(p[0], digits: 2...2), let m = number(p[1], digits: 2...2),
                  let sec = number(p[2], digits: 2...2), h < 24, m < 60, sec <= 60 else { return nil }
            return h * 3600 + m * 60 + sec
        }
        func instant(_ year: Int, _ month: String, _ day: Int, _ time: Int) -> Date? {
            guard let m = months.firstIndex(of: month), let d = LocalDay(year: year, month: m + 1, day: day) else { return nil }
            return Date(timeIntervalSince1970: Double(d.ordinal * 86_400 + time))
        }
        if words.count == 6, words[0].hasSuffix(","), shortDays.contains(String(words[0].dropLast())), words[5] == "GMT",
           let day = number(words[1], digits: 2...2), let year = number(words[3], digits: 4...4), let time = clock(words[4]) {
            return instant(year, words[2], day, time)
        }
        if words.count == 4, words[0].hasSuffix(","), longDays.contains(String(words[0].dropLast())), words[3] == "GMT",
           let time = clock(words[2]) {
            let p = words[1].split(separator: "-", omittingEmptySubsequences: false).map(String.init)
            guard p.count == 3, let day = number(p[0], digits: 2...2), let yy = number(p[2], digits: 2...2) else { return nil }
            let thisYear = split(now).0.components.year
            var year = thisYear - thisYear % 100 + yy
            if year > thisYear + 50 { year -= 100 }
            return instant(year, p[1], day, time)
        }
        if words.count == 5, shortDays.contains(words[0]), let day = number(words[2], digits: 1...2),
           let time = clock(words[3]), let year = number(words[4], digits: 4...4) {
            return instant(year, words[1], day, time)
        }
        return nil
    }

    static func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
}
