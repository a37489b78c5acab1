import FoundationEssentials

/// A time of day a habit reminds its user at, in minutes after midnight (00:00–23:59),
/// written `HH:MM`.
public struct ReminderTime: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Minutes after midnight; `Validate.reminders` accepts 0…1439 only.
    public let minutes: Int
    /// A time `minutes` after midnight (checked by `Validate.reminders`, not here).
    public init(minutes: Int) { self.minutes = minutes }
    /// `hour`:`minute`, e.g. `ReminderTime(hour: 8, minute: 30)` for 08:30.
    public init(hour: Int, minute: Int) { minutes = hour * 60 + minute }

    /// Earlier times first.
    public static func < (a: ReminderTime, b: ReminderTime) -> Bool { a.minutes < b.minutes }
    /// `HH:MM`, e.g. `08:05`.
    public var description: String {
        let h = minutes / 60, m = minutes % 60
        return (h < 10 ? "0" : "") + "\(h):" + (m < 10 ? "0" : "") + "\(m)"
    }

    /// The most reminder times a habit can have.
    public static let maxCount = 8

    /// Reads a comma-separated list such as `08:00,20:30` (`H:MM` is accepted too) into
    /// valid reminder times, sorted, duplicates dropped; "" gives none. Throws a message
    /// that says what to write.
    public static func parseList(_ text: String) throws -> [ReminderTime] {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingBlanks }
        if parts == [""] { return [] }
        let times = try parts.map { part -> ReminderTime in
            let hm = part.split(separator: ":", omittingEmptySubsequences: false)
            guard hm.count == 2, (1...2).contains(hm[0].count), hm[1].count == 2,
                  hm.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
                  let h = Int(hm[0]), let m = Int(hm[1]), (0...23).contains(h), (0...59).contains(m)
            else {
                throw CoreError.reminderTimeNotUnderstood(String(part))
            }
            return ReminderTime(hour: h, minute: m)
        }
        let list = Array(Set(times)).sorted()
        try Validate.reminders(list)
        return list
    }

    /// The times as the user writes them: `08:00,20:30`, "" for none.
    public static func format(_ times: [ReminderTime]) -> String { times.map(\.description).joined(separator: ",") }
}

extension Validate {
    /// At most `ReminderTime.maxCount` times, each 00:00–23:59, sorted, no duplicates:
    /// the one check every reminder list passes (typed, imported, decoded or synced).
    public static func reminders(_ times: [ReminderTime]) throws {
        guard times.count <= ReminderTime.maxCount else {
            throw CoreError.tooManyReminders(times.count)
        }
        for (i, t) in times.enumerated() {
            guard (0..<24 * 60).contains(t.minutes) else {
                throw CoreError.reminderOutOfRange(minutes: t.minutes)
            }
            if i > 0, times[i - 1] >= t { throw CoreError.remindersUnsorted }
        }
    }
}

/// One reminder that is due: a habit, the habit day and the reminder time it is for, and
/// the instant that time falls on.
public struct DueReminder: Hashable, Sendable {
    /// The habit as it is now.
    public let habit: Habit
    public let day: LocalDay
    public let time: ReminderTime
    public let at: Date
    public init(habit: Habit, day: LocalDay, time: ReminderTime, at: Date) {
        self.habit = habit; self.day = day; self.time = time; self.at = at
    }
}

/// The instant a local date's clock time (minutes after midnight) falls on in some time
/// zone; nil when there is none.
public typealias LocalInstant = (LocalDay, Int) -> Date?

/// Which reminders are due at an instant (what `habitto remind` notifies of).
public enum Reminders {
    /// A reminder fires from its time until this many minutes later, no later: a computer
    /// that wakes at night does not fire the morning's reminders.
    public static let graceMinutes = 120

    /// The instant reminder time `time` falls on during habit day `day`: that date's clock
    /// time, or the next date's for a time before the day-start hour (a day that starts at
    /// 04:00 runs until 03:59 the next morning).
    public static func instant(of time: ReminderTime, on day: LocalDay, local: LocalInstant, dayStartHour: Int) -> Date? {
        let date = time.minutes < dayStartHour * 60 ? day.adding(1) : day
        return local(date, time.minutes)
    }

    /// `instant(of:on:local:dayStartHour:)` in `timeZone`, through a Gregorian `Calendar`
    /// (a named zone needs Foundation's time zone data, which `habitto` does not link: it
    /// passes the C library's rule instead).
    public static func instant(of time: ReminderTime, on day: LocalDay, in timeZone: TimeZone, dayStartHour: Int) -> Date? {
        instant(of: time, on: day, local: calendarInstant(timeZone), dayStartHour: dayStartHour)
    }

    /// The instant of a local date and minute of the day in `timeZone`, through a `Calendar`.
    public static func calendarInstant(_ timeZone: TimeZone) -> LocalInstant {
        { date, minutes in
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = timeZone
            let c = date.components
            return calendar.date(from: DateComponents(year: c.year, month: c.month, day: c.day,
                                                      hour: minutes / 60, minute: minutes % 60))
        }
    }

    /// Whether a habit still wants a reminder on `day`: due that day (active, scheduled, an
    /// N/week quota not yet met), not skipped, not answered "not done" (the day is decided),
    /// and not yet done. A build habit is done at
    /// its goal; a limit habit (nothing to do but stay under) is "done" once anything is
    /// recorded for the day, so its reminder is a nudge to log it.
    public static func wanted(_ habit: Habit, on day: LocalDay, in state: HabitState, settings: RuleSettings) -> Bool {
        guard state.isDue(habit, on: day, settings: settings), !state.isSkipped(habit.id, day),
              !state.isAnsweredNotDone(habit.id, day) else { return false }
        return habit.on(day).kind == .build ? !Edits.isDone(habit, on: day, in: state) : state.progress(habit.id, day) == 0
    }

    /// The reminders due at `now` on habit day `today`, in habit order then time: each
    /// reminder time of a wanted habit that has passed today, at most `graceMinutes` ago.
    public static func due(in state: HabitState, now: Date, today: LocalDay, timeZone: TimeZone,
                           dayStartHour: Int, settings: RuleSettings) -> [DueReminder] {
        due(in: state, now: now, today: today, local: calendarInstant(timeZone), dayStartHour: dayStartHour, settings: settings)
    }

    /// The same, with the local time zone's rule given as a function.
    public static func due(in state: HabitState, now: Date, today: LocalDay, local: LocalInstant,
                           dayStartHour: Int, settings: RuleSettings) -> [DueReminder] {
        var out: [DueReminder] = []
        for habit in state.habits where !habit.fields.reminders.isEmpty {
            guard wanted(habit, on: today, in: state, settings: settings) else { continue }
            for time in habit.fields.reminders {
                guard let at = instant(of: time, on: today, local: local, dayStartHour: dayStartHour) else { continue }
                let age = now.timeIntervalSince(at)
                if age >= 0, age <= Double(graceMinutes * 60) { out.append(DueReminder(habit: habit, day: today, time: time, at: at)) }
            }
        }
        return out
    }
}
