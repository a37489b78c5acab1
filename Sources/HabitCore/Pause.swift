/// A run of paused days of one habit: consecutive days whose pause register is on (see
/// `Change.pause`), whatever their reasons, with the reason of its first day.
public struct PauseRun: Hashable, Sendable {
    public let from: LocalDay
    public let to: LocalDay
    /// The reason given, nil when none was.
    public let reason: String?
    public init(from: LocalDay, to: LocalDay, reason: String?) { self.from = from; self.to = to; self.reason = reason }
    /// How many days it covers.
    public var days: Int { from.days(to: to) + 1 }
    public func contains(_ day: LocalDay) -> Bool { from <= day && day <= to }
}

/// The rules of pausing habits (`habitto pause`, the UI's `P`): what a pause writes, what
/// ending one gives back, and which runs of days are paused. Pure: the changes are written
/// by the repository (one command, one undo).
public enum Pauses {
    /// Checks a range as typed: `from` on or before `to`, at most `Limits.maxPauseDays` days.
    public static func checkRange(from: LocalDay, to: LocalDay) throws {
        guard from <= to else { throw CoreError.pauseBackwards(from: from, to: to) }
        let days = from.days(to: to) + 1
        guard days <= Limits.maxPauseDays else { throw CoreError.pauseTooLong(days: days) }
    }

    /// The changes that pause each of `habits` over `from`…`to` with `reason` (nil for
    /// none): one change a habit whose days are not all paused so already. Days before a
    /// habit's start date or from its archive date on are left out of its pause (they count
    /// for nothing anyway); a habit with no day left is refused when it is the only one.
    /// Past, present and future days may be paused.
    public static func pause(_ habits: [Habit], from: LocalDay, to: LocalDay, reason: String?,
                             in state: HabitState) throws -> [Change] {
        try checkRange(from: from, to: to)
        if let reason { try Validate.pauseReason(reason) }
        guard !habits.isEmpty else { throw CoreError.noHabitGiven }
        var out: [Change] = []
        var anyDays = false
        for habit in habits {
            let first = max(from, habit.startDate)
            let last = habit.fields.archivedFrom.map { min(to, $0.adding(-1)) } ?? to
            guard first <= last else { continue }
            anyDays = true
            var day = first, same = true
            while day <= last && same {
                same = state.record(habit.id, day)?.pauseRegister?.value == (reason ?? "")
                day = day.adding(1)
            }
            if !same { out.append(.pause(habit.id, from: first, to: last, reason: reason ?? "")) }
        }
        if !anyDays, let habit = habits.first, habits.count == 1 {
            if let archived = habit.fields.archivedFrom, from >= archived {
                throw CoreError.archivedFrom(habit: habit.name, from: archived)
            }
            throw CoreError.beforeStart(habit: habit.name, day: to, start: habit.startDate)
        }
        return out
    }

    /// The changes that end each habit's current or next pause (`habitto pause --end`): a
    /// pause over `today` ends yesterday (today and the rest are given back), and a pause
    /// that has not started yet is given back whole. Habits with no such pause are passed
    /// over; when none of `habits` has one, that is refused.
    public static func end(_ habits: [Habit], today: LocalDay, in state: HabitState) throws -> [Change] {
        var out: [Change] = []
        for habit in habits {
            guard let run = next(habit, from: today, in: state) else { continue }
            out.append(.pause(habit.id, from: max(run.from, today), to: run.to, reason: nil))
        }
        if out.isEmpty {
            throw CoreError.noPauseToEnd(habit: habits.count == 1 ? habits[0].name : nil, today: today)
        }
        return out
    }

    /// The habit's pause over `day`, or else the first one after it.
    public static func next(_ habit: Habit, from day: LocalDay, in state: HabitState) -> PauseRun? {
        runs(habit, in: state, from: day.adding(-Limits.maxPauseDays)).first { $0.to >= day }
    }

    /// The habit's runs of paused days that end on or after `from`, oldest first (two
    /// pauses that touch are one run).
    public static func runs(_ habit: Habit, in state: HabitState, from: LocalDay = .earliest) -> [PauseRun] {
        let columns = state.entries[habit.id]?.recentColumns(from: from) ?? DayColumns()
        var out: [PauseRun] = []
        var start: LocalDay?, end = from, reason: String?
        func close() {
            if let s = start, end >= from { out.append(PauseRun(from: s, to: end, reason: reason)) }
            start = nil
        }
        for i in 0..<columns.count where columns.isPaused(at: i) {
            let day = columns.day(at: i)
            if start != nil, day == end.adding(1) { end = day; continue }
            close()
            start = day; end = day; reason = state.record(habit.id, day)?.pauseReason
        }
        close()
        return out
    }
}

extension Pauses {
    /// The one wording of a written pause: `written` of `habits` were paused over
    /// `from`…`to` (the others were so already). The command line prints it and the UI's
    /// message line shows it.
    public static func paused(_ written: Int, of habits: [Habit], from: LocalDay, to: LocalDay) -> String {
        let span = from == to ? "on \(from)" : "\(from) to \(to) (\(Plural.count(from.days(to: to) + 1, "day")))"
        guard written > 0 else { return "\(who(habits)) \(habits.count == 1 ? "is" : "are") already paused \(span): nothing changed" }
        let paused = written == habits.count ? who(habits) : "\(Plural.count(written, "habit")) of \(habits.count)"
        return "Paused \(paused) \(span): those days neither count nor break a streak"
    }

    /// The one wording of ended pauses: `changes` are what ending wrote for `habits` (empty
    /// when the days given back are not known).
    public static func ended(_ changes: [Change], of habits: [Habit]) -> String {
        let ranges = changes.compactMap { c -> (HabitID, LocalDay, LocalDay)? in
            if case .pause(let h, let a, let b, nil) = c { return (h, a, b) }
            return nil
        }
        if ranges.count > 1 { return "Ended the pauses of \(Plural.count(ranges.count, "habit"))" }
        let name = habits.first { $0.id == ranges.first?.0 } ?? habits.first
        guard let (_, a, b) = ranges.first else { return "Ended the pause of \(name.map { Sanitize.quoted($0.name) } ?? "the habit")" }
        let span = a == b ? "\(a) is" : "\(a) to \(b) are"
        return "Ended the pause of \(name.map { Sanitize.quoted($0.name) } ?? "the habit"): \(span) no longer paused"
    }

    private static func who(_ habits: [Habit]) -> String {
        habits.count == 1 ? Sanitize.quoted(habits[0].name) : Plural.count(habits.count, "habit")
    }
}
