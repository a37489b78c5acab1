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

    /// The rule fields (kind, goal, unit, schedule).
    public var rule: HabitRule { HabitRule(self) }

    /// Throws a `CoreError` naming the first field that breaks the rules.
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
        try rule.validate()
        if let archivedFrom, archivedFrom < startDate {
            throw CoreError.archivedBeforeStart(archived: archivedFrom, start: startDate)
        }
    }
}

/// The fields a habit's days are judged by (kind, goal, unit, schedule): its definition.
/// A habit keeps a history of them, each in force from a day on (see `Habit.definitions`).
public struct HabitRule: Hashable, Sendable {
    public var kind: HabitKind
    public var goal: Int
    public var unit: String?
    public var schedule: Schedule
    public init(kind: HabitKind, goal: Int, unit: String?, schedule: Schedule) {
        self.kind = kind; self.goal = goal; self.unit = unit; self.schedule = schedule
    }
    /// The rule fields of `fields`.
    public init(_ fields: HabitFields) {
        self.init(kind: fields.kind, goal: fields.goal, unit: fields.unit, schedule: fields.schedule)
    }
    /// Writes the rule fields into `fields`.
    public func apply(to fields: inout HabitFields) {
        fields.kind = kind; fields.goal = goal; fields.unit = unit; fields.schedule = schedule
    }
    /// The register indices of the rule fields (see `FieldValue.index`): the fields whose
    /// changes can take effect from a day (`Change.setFrom`).
    public static let fieldIndices: ClosedRange<Int> = 3...6

    /// Throws a `CoreError` when the fields do not go together.
    public func validate() throws {
        try Validate.goal(goal, kind: kind)
        if let unit { try Validate.unit(unit) }
        if kind == .limit, schedule.isQuota {
            throw CoreError.limitWithQuota(schedule.period)
        }
    }
}

/// A definition and the first day it is in force.
public struct DatedRule: Hashable, Sendable {
    /// The first day (`LocalDay.earliest` for the habit's first definition).
    public let from: LocalDay
    public let rule: HabitRule
    public init(from: LocalDay, rule: HabitRule) { self.from = from; self.rule = rule }
}

/// A habit as the rules and screens see it: its id and current field values, and the
/// definitions its days were judged by before the current one.
public struct Habit: Hashable, Sendable, Identifiable {
    public let id: HabitID
    /// The current values: the rule fields are those of the newest definition.
    public var fields: HabitFields
    /// The definitions in force before the current one, oldest first (the first from
    /// `LocalDay.earliest`); empty when the rule fields never changed from a later day.
    public private(set) var earlier: [DatedRule] = []
    /// The first day the current definition is in force (`LocalDay.earliest` when it is
    /// the only one).
    public private(set) var currentFrom: LocalDay = .earliest

    public init(id: HabitID, fields: HabitFields) { self.id = id; self.fields = fields }

    /// A habit whose rule fields were `definitions` (oldest first, the first from
    /// `LocalDay.earliest`); `fields` takes the newest one's rule fields.
    public init(id: HabitID, fields: HabitFields, definitions: [DatedRule]) {
        self.id = id; self.fields = fields
        guard let last = definitions.last else { return }
        last.rule.apply(to: &self.fields)
        earlier = Array(definitions.dropLast())
        currentFrom = earlier.isEmpty ? .earliest : last.from
    }

    /// Every definition, oldest first: each is in force from its day until the next one's.
    public var definitions: [DatedRule] { earlier + [DatedRule(from: currentFrom, rule: HabitRule(fields))] }

    /// True when the rule fields changed from a later day (the days are not all judged alike).
    public var hasHistory: Bool { !earlier.isEmpty }

    /// The definition in force on `day`.
    public func rule(on day: LocalDay) -> HabitRule {
        guard hasHistory, day < currentFrom else { return HabitRule(fields) }
        return earlier.last(where: { $0.from <= day })?.rule ?? earlier[0].rule
    }

    /// The habit as it was defined on `day`: its rule fields those in force then, with no
    /// other definition (every rule reads a day through this).
    public func on(_ day: LocalDay) -> Habit {
        guard hasHistory else { return self }
        var f = fields
        rule(on: day).apply(to: &f)
        return Habit(id: id, fields: f)
    }

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
    /// done: it reads as at most one (`shown(progress:)`) and the space key toggles it (`Intent.toggle`).
    public var isYesNo: Bool { kind == .build && goal == Amount.scale && fields.unit == nil }

    /// A day's progress as every rule, screen and export reads it: a yes/no habit's day is
    /// at most its goal (two devices checking it offline merge to done once, never 2/1).
    public func shown(progress: Int) -> Int { isYesNo ? min(progress, goal) : progress }

    /// Whether a day with this much progress succeeds.
    public func succeeds(progress: Int) -> Bool {
        kind == .build ? progress >= goal : progress <= goal
    }

    /// For day-based schedules: whether `day` is a due day (ignores start/archive dates).
    /// N-per-week and N-per-month schedules have no fixed days; see `HabitState.isDue`.
    /// Reads the current definition: rules read a day through `on(_:)`.
    public func isScheduledDay(_ day: LocalDay) -> Bool {
        switch schedule {
        case .daily: return true
        case .weekdays(let set): return set.contains(day.weekday)
        case .everyNDays(let n): return ((startDate.days(to: day) % n) + n) % n == 0
        case .perWeek, .perMonth: return true
        }
    }
}
