#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// UTC timestamps as text, written by hand: a `DateFormatter` or `ISO8601DateFormatter`
/// loads ICU's data when first used, which cost `habitto status` about 2 ms (README,
/// Performance). The day comes from `LocalDay` (proleptic Gregorian), the time of day from
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

    static func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
}
