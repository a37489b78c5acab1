/// A countdown for one habit's day (`habitto timer`, the UI's `t`): how long it runs, how
/// long it has run, and whether it is paused. Time is read from outside (seconds on a
/// timer clock: monotonic, so a change of the wall clock does not move it) and passed in;
/// when it ends, or is stopped early and the user asks, `intent` says what it records.
public struct HabitTimer: Hashable, Sendable {
    /// The longest a timer runs, in seconds (12 hours).
    public static let longest = 12 * 3600
    /// The duration a habit that is not counted in minutes (or whose goal is out of range) starts with.
    public static let defaultDuration = 25 * 60

    public let habit: HabitID
    /// The day the check-in goes to (the day shown when it started).
    public let day: LocalDay
    /// How long it runs, in seconds.
    public let duration: Int
    /// Seconds run before the last start or resume.
    public private(set) var banked: Double = 0
    /// When it last started or resumed, on the timer clock; nil while paused.
    public private(set) var runningSince: Double?

    /// A timer of `duration` seconds for `habit`'s `day`, running from `start`.
    public init(habit: HabitID, day: LocalDay, duration: Int, start: Double) {
        self.habit = habit; self.day = day; self.duration = duration; runningSince = start
    }

    /// Whether it is paused.
    public var isPaused: Bool { runningSince == nil }

    /// Seconds run by `now` (never more than the duration; a clock that goes back counts nothing).
    public func elapsed(at now: Double) -> Double {
        min(Double(duration), banked + max(0, now - (runningSince ?? now)))
    }

    /// Seconds left at `now`.
    public func remaining(at now: Double) -> Double { Double(duration) - elapsed(at: now) }

    /// Whether it has run its whole duration by `now`.
    public func isFinished(at now: Double) -> Bool { elapsed(at: now) >= Double(duration) }

    /// Pauses it at `now`, or resumes it when it is paused.
    public mutating func togglePause(at now: Double) {
        if isPaused {
            runningSince = now
        } else {
            banked = elapsed(at: now)
            runningSince = nil
        }
    }

    /// Whether a habit counts minutes (its unit is min, mins, minute or minutes): a timer
    /// then records the minutes it ran; any other habit gets +1.
    public static func countsMinutes(_ habit: Habit) -> Bool {
        guard let unit = habit.fields.unit else { return false }
        return ["min", "mins", "minute", "minutes"].contains(unit.trimmingBlanks.lowercased())
    }

    /// What a timer that ran `seconds` records on `day`: the whole minutes it ran for a habit
    /// counted in minutes (nil under a minute: nothing to record), else a check-in of +1.
    public static func intent(_ habit: Habit, day: LocalDay, ran seconds: Double) -> Intent? {
        guard countsMinutes(habit) else { return .checkIn(habit.id, day) }
        let minutes = Int((seconds / 60).rounded(.down))
        return minutes > 0 ? .checkIn(habit.id, day, amount: minutes * Amount.scale) : nil
    }

    /// What `intent` records, in words: "12 min", "+1".
    public static func recordWords(_ habit: Habit, ran seconds: Double) -> String? {
        guard countsMinutes(habit) else { return "+1" }
        let minutes = Int((seconds / 60).rounded(.down))
        return minutes > 0 ? "\(minutes) min" : nil
    }

    /// The duration a timer for `habit` starts with: a habit counted in minutes, its goal (when
    /// whole and in range); else 25 minutes.
    public static func suggestedDuration(_ habit: Habit) -> Int {
        let goal = habit.fields.goal
        guard countsMinutes(habit), habit.kind == .build, goal % Amount.scale == 0 else { return defaultDuration }
        let seconds = goal / Amount.scale * 60
        return (1...longest).contains(seconds) ? seconds : defaultDuration
    }

    /// Parses a duration: whole minutes (`25`), or numbers with h, m and s in that order
    /// (`25m`, `1h30m`, `90s`, `1h`); from 1 second to `longest`.
    public static func parseDuration(_ text: String) throws(CoreError) -> Int {
        let t = text.trimmingBlanks.lowercased()
        let shown = String(text.trimmingBlanks.prefix(40))
        guard !t.isEmpty, t.count <= 20 else { throw CoreError.timerDurationUnreadable(shown) }
        if t.allSatisfy(\.isASCIIDigit) {
            guard let minutes = Int(t), minutes > 0, minutes <= longest / 60 else { throw CoreError.timerDurationOutOfRange(shown) }
            return minutes * 60
        }
        var total = 0, number = "", seen: [Character] = []
        for c in t {
            if c.isASCIIDigit { number.append(c); continue }
            let order: [Character] = ["h", "m", "s"]
            guard let rank = order.firstIndex(of: c), !number.isEmpty, let n = Int(number),
                  seen.allSatisfy({ order.firstIndex(of: $0)! < rank }) else { throw CoreError.timerDurationUnreadable(shown) }
            guard n <= longest else { throw CoreError.timerDurationOutOfRange(shown) }
            total += n * [3600, 60, 1][rank]
            seen.append(c)
            number = ""
        }
        guard number.isEmpty else { throw CoreError.timerDurationUnreadable(shown) }
        guard total > 0, total <= longest else { throw CoreError.timerDurationOutOfRange(shown) }
        return total
    }

    /// A duration as `parseDuration` reads it back: `25m`, `1h30m`, `1m30s`.
    public static func durationText(_ seconds: Int) -> String {
        let h = seconds / 3600, m = seconds % 3600 / 60, s = seconds % 60
        let parts = [(h, "h"), (m, "m"), (s, "s")].filter { $0.0 > 0 }.map { "\($0.0)\($0.1)" }
        return parts.isEmpty ? "0s" : parts.joined()
    }

    /// Seconds as a clock: `24:13`, `1:02:03` from an hour (whole seconds, rounded up, so a
    /// countdown shows 0:00 only when it has ended).
    public static func clock(_ seconds: Double) -> String {
        let whole = max(0, Int(seconds.rounded(.up)))
        let h = whole / 3600, m = whole % 3600 / 60, s = whole % 60
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return h > 0 ? "\(h):\(two(m)):\(two(s))" : "\(m):\(two(s))"
    }
}

private extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
