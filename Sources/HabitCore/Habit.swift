import FoundationEssentials

/// Whether a habit is something to do (build) or to keep under a ceiling (limit).
public enum HabitKind: String, Sendable, CaseIterable {
    /// Do at least `goal` per day.
    case build
    /// Do at most `goal` per day.
    case limit
}

/// Every field of a habit. The registers in `HabitState` hold one of each.
public struct HabitFields: Hashable, Sendable {
    public var name: String
    public var icon: String?
    public var color: String?
    public var kind: HabitKind
    public var goal: Int
    public var unit: String?
    public var schedule: Schedule
    public var startDate: LocalDay
    public var archivedFrom: LocalDay?
    public var notes: String?
    /// A group the habit belongs to ("Health"), shown as a heading; nil for none.
    public var group: String?
    /// Where the habit stands in the user's order: a fractional sort key (see `OrderKey`);
    /// nil for a habit never moved, which follows the moved ones in creation order.
    public var position: String?
    /// Times of day `habitto remind` reminds of the habit on its due days; empty for none.
    public var reminders: [ReminderTime]

    /// Fields with the documented defaults (build, goal 1 unit, daily). `goal` is in
    /// thousandths (see `Amount`).
    public init(name: String, icon: String? = nil, color: String? = nil, kind: HabitKind = .build,
                goal: Int = Amount.scale, unit: String? = nil, schedule: Schedule = .daily, startDate: LocalDay,
                archivedFrom: LocalDay? = nil, notes: String? = nil, group: String? = nil,
                position: String? = nil, reminders: [ReminderTime] = []) {
        self.name = name; self.icon = icon; self.color = color; self.kind = kind; self.goal = goal
        self.unit = unit; self.schedule = schedule; self.startDate = startDate
        self.archivedFrom = archivedFrom; self.notes = notes; self.group = group
        self.position = position; self.reminders = reminders
    }

    /// Throws `CoreError.invalid` naming the first field that breaks the rules.
    public func validate() throws {
        try Validate.name(name)
        if let icon { try Validate.icon(icon) }
        if let color { try Validate.color(color) }
        try Validate.goal(goal, kind: kind)
        if let unit { try Validate.unit(unit) }
        if let notes { try Validate.notes(notes) }
        if let group { try Validate.group(group) }
        if let position { try Validate.position(position) }
        try Validate.reminders(reminders)
        if kind == .limit, schedule.isWeekly {
            throw CoreError.invalid("a limit habit cannot use an N/week schedule: use daily, weekdays or chosen days")
        }
        if let archivedFrom, archivedFrom < startDate {
            throw CoreError.invalid("archive date \(archivedFrom) is before the start date \(startDate)")
        }
    }
}

/// A habit as the rules and screens see it: its id and current field values.
public struct Habit: Hashable, Sendable, Identifiable {
    public let id: HabitID
    public var fields: HabitFields
    public init(id: HabitID, fields: HabitFields) { self.id = id; self.fields = fields }

    public var name: String { fields.name }
    public var kind: HabitKind { fields.kind }
    public var goal: Int { fields.goal }
    public var schedule: Schedule { fields.schedule }
    public var startDate: LocalDay { fields.startDate }

    /// The last day the habit is tracked, when it is archived.
    public var lastActiveDay: LocalDay? { fields.archivedFrom.map { $0.adding(-1) } }

    /// True when `day` lies between the start date and the archive date.
    public func isActive(on day: LocalDay) -> Bool {
        day >= startDate && (fields.archivedFrom.map { day < $0 } ?? true)
    }

    /// A yes/no habit: a build habit with a goal of one and no unit. Its day is done or not
    /// done: it reads as at most one (`shown(progress:)`) and a check-in toggles it (`Edits.toggle`).
    public var isYesNo: Bool { kind == .build && goal == Amount.scale && fields.unit == nil }

    /// A day's progress as every rule, screen and export reads it: a yes/no habit's day is
    /// at most its goal (two devices checking it offline merge to done once, never 2/1).
    public func shown(progress: Int) -> Int { isYesNo ? min(progress, goal) : progress }

    /// Whether a day with this much progress succeeds.
    public func succeeds(progress: Int) -> Bool {
        kind == .build ? progress >= goal : progress <= goal
    }

    /// For day-based schedules: whether `day` is a due day (ignores start/archive dates).
    /// Weekly schedules have no fixed days; see `HabitState.isDue`.
    public func isScheduledDay(_ day: LocalDay) -> Bool {
        switch schedule {
        case .daily: return true
        case .weekdays(let set): return set.contains(day.weekday)
        case .everyNDays(let n): return ((startDate.days(to: day) % n) + n) % n == 0
        case .perWeek: return true
        }
    }
}
