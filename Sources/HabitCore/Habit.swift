import Foundation

/// A habit's stable identity: 64 random bits, written as 16 lower-case hex characters.
public struct HabitID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let value: UInt64
    public init(value: UInt64) { self.value = value }
    /// Accepts only 16 lower-case hex characters.
    public init?(_ raw: String) {
        guard raw.utf8.count == 16, isLowerHex(raw), let v = UInt64(raw, radix: 16) else { return nil }
        value = v
    }
    /// The 16-character hex form.
    public var rawValue: String { hex(value, width: 16) }
    /// A new random id from the given generator.
    public static func random<G: RandomNumberGenerator>(using g: inout G) -> HabitID {
        HabitID(value: UInt64.random(in: .min ... .max, using: &g))
    }
    public var description: String { rawValue }
    public static func < (a: HabitID, b: HabitID) -> Bool { a.value < b.value }
}

func isLowerHex(_ s: String) -> Bool {
    s.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }
}

func hex(_ v: UInt64, width: Int) -> String {
    let s = String(v, radix: 16)
    return String(repeating: "0", count: max(0, width - s.count)) + s
}

/// Whether a habit is something to do (build) or to keep under a ceiling (limit).
public enum HabitKind: String, Sendable, CaseIterable {
    /// Do at least `goal` per day.
    case build
    /// Do at most `goal` per day.
    case limit
}

/// When a habit is due.
public enum Schedule: Hashable, Sendable, CustomStringConvertible {
    /// Every day.
    case daily
    /// On the chosen weekdays (a non-empty set).
    case weekdays(Set<Weekday>)
    /// Every `n` days (n ≥ 2) counted from the start date.
    case everyNDays(Int)
    /// `n` times in each week (1–7), on any days.
    case perWeek(Int)

    /// Parses `daily`, `weekdays`, `weekends`, `mon,wed,fri`, `every:3`, `3/week`.
    public init(parsing text: String) throws {
        let t = text.trimmingCharacters(in: .whitespaces).lowercased()
        switch t {
        case "daily", "every:1", "7/week": self = .daily; return
        case "weekdays": self = .weekdays([.monday, .tuesday, .wednesday, .thursday, .friday]); return
        case "weekends": self = .weekdays([.saturday, .sunday]); return
        default: break
        }
        if t.hasPrefix("every:") {
            guard let n = Int(t.dropFirst(6)), (1...365).contains(n) else {
                throw CoreError.invalid("schedule '\(text)': every:N needs a whole number N from 1 to 365")
            }
            self = n == 1 ? .daily : .everyNDays(n)
            return
        }
        if t.hasSuffix("/week") {
            guard let n = Int(t.dropLast(5)), (1...7).contains(n) else {
                throw CoreError.invalid("schedule '\(text)': N/week needs a whole number N from 1 to 7")
            }
            self = n == 7 ? .daily : .perWeek(n)
            return
        }
        var days = Set<Weekday>()
        for part in t.split(separator: ",", omittingEmptySubsequences: false) {
            guard let d = Weekday(name: part.trimmingCharacters(in: .whitespaces)) else {
                throw CoreError.invalid(
                    "schedule '\(text)' not understood: use daily, weekdays, weekends, mon,wed,fri, every:3 or 3/week")
            }
            days.insert(d)
        }
        self = days.count == 7 ? .daily : .weekdays(days)
    }

    /// The canonical text form, which `init(parsing:)` reads back.
    public var description: String {
        switch self {
        case .daily: return "daily"
        case .weekdays(let set):
            if set == [.monday, .tuesday, .wednesday, .thursday, .friday] { return "weekdays" }
            if set == [.saturday, .sunday] { return "weekends" }
            return set.sorted().map(\.shortName).joined(separator: ",")
        case .everyNDays(let n): return "every:\(n)"
        case .perWeek(let n): return "\(n)/week"
        }
    }

    /// Loop Habit Tracker's frequency as numerator / denominator: times per number of days.
    public var frequency: (numerator: Int, denominator: Int) {
        switch self {
        case .daily: return (1, 1)
        case .weekdays(let set): return (set.count, 7)
        case .everyNDays(let n): return (1, n)
        case .perWeek(let n): return (n, 7)
        }
    }

    /// True for schedules whose streaks count weeks instead of days.
    public var isWeekly: Bool { if case .perWeek = self { return true } else { return false } }
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

    /// Fields with the documented defaults (build, goal 1, daily).
    public init(name: String, icon: String? = nil, color: String? = nil, kind: HabitKind = .build,
                goal: Int = 1, unit: String? = nil, schedule: Schedule = .daily, startDate: LocalDay,
                archivedFrom: LocalDay? = nil, notes: String? = nil, group: String? = nil) {
        self.name = name; self.icon = icon; self.color = color; self.kind = kind; self.goal = goal
        self.unit = unit; self.schedule = schedule; self.startDate = startDate
        self.archivedFrom = archivedFrom; self.notes = notes; self.group = group
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

/// The rules for user-entered text. Each throws `CoreError.invalid` with a message that
/// says what is allowed.
public enum Validate {
    /// 1–64 characters, no control characters, no leading or trailing space.
    public static func name(_ s: String) throws {
        if s.isEmpty || s.allSatisfy(\.isWhitespace) { throw CoreError.invalid("habit name is empty: give 1 to 64 characters") }
        if s.count > 64 { throw CoreError.invalid("habit name is \(s.count) characters long: use at most 64") }
        try fitsEncoding(s, what: "habit name")
        try noControl(s, what: "habit name", allowNewline: false)
        if s.first!.isWhitespace || s.last!.isWhitespace {
            throw CoreError.invalid("habit name must not start or end with a space")
        }
    }
    /// Exactly one character (an emoji counts as one).
    public static func icon(_ s: String) throws {
        guard s.count == 1, !s.first!.isWhitespace else { throw CoreError.invalid("icon must be exactly one character or emoji") }
        try fitsEncoding(s, what: "icon")
        try noControl(s, what: "icon", allowNewline: false)
    }
    /// Named colours and `#RRGGBB`.
    public static let colorNames = ["black", "red", "green", "yellow", "blue", "magenta", "cyan", "white",
                                    "orange", "purple", "pink", "gray"]
    public static func color(_ s: String) throws {
        let lower = s.lowercased()
        if colorNames.contains(lower) { return }
        let hexDigits = lower.dropFirst()
        if lower.hasPrefix("#"), hexDigits.count == 6, hexDigits.allSatisfy(\.isHexDigit) { return }
        throw CoreError.invalid("color '\(Sanitize.display(s))' not understood: use #RRGGBB or one of \(colorNames.joined(separator: ", "))")
    }
    /// Build habits need goal ≥ 1, limit habits goal ≥ 0; at most 1,000,000.
    public static func goal(_ g: Int, kind: HabitKind) throws {
        let minimum = kind == .build ? 1 : 0
        guard g >= minimum, g <= Limits.maxGoal else {
            throw CoreError.invalid("goal \(g) is out of range: a \(kind.rawValue) habit needs a whole number from \(minimum) to \(Limits.maxGoal)")
        }
    }
    /// 1–24 characters, no control characters.
    public static func unit(_ s: String) throws {
        guard !s.isEmpty, s.count <= 24 else { throw CoreError.invalid("unit must be 1 to 24 characters") }
        try fitsEncoding(s, what: "unit")
        try noControl(s, what: "unit", allowNewline: false)
    }
    /// 1–32 characters, no control characters, no leading or trailing space.
    public static func group(_ s: String) throws {
        guard !s.isEmpty, s.count <= 32 else { throw CoreError.invalid("group must be 1 to 32 characters") }
        try fitsEncoding(s, what: "group")
        try noControl(s, what: "group", allowNewline: false)
        if s.first!.isWhitespace || s.last!.isWhitespace {
            throw CoreError.invalid("group must not start or end with a space")
        }
    }
    /// A day's note: 1–2,000 characters; newlines allowed, other control characters not.
    public static func dayNote(_ s: String) throws {
        guard !s.isEmpty, s.count <= 2000 else { throw CoreError.invalid("a day's note must be 1 to 2000 characters") }
        try fitsEncoding(s, what: "note")
        try noControl(s, what: "note", allowNewline: true)
    }
    /// At most 2,000 characters; newlines allowed, other control characters not.
    public static func notes(_ s: String) throws {
        guard s.count <= 2000 else { throw CoreError.invalid("notes are \(s.count) characters long: use at most 2000") }
        try fitsEncoding(s, what: "notes")
        try noControl(s, what: "notes", allowNewline: true)
    }

    /// At most the 65,536 UTF-8 bytes `ByteReader.string` reads back: one character can
    /// carry any number of combining marks, so counting characters does not bound the size.
    static func fitsEncoding(_ s: String, what: String) throws {
        guard s.utf8.count <= 65_536 else { throw CoreError.invalid("\(what) is too long: use at most 65536 bytes of text") }
    }

    static func noControl(_ s: String, what: String, allowNewline: Bool) throws {
        for scalar in s.unicodeScalars where Sanitize.isForbidden(scalar) {
            if allowNewline && scalar == "\n" { continue }
            let code = String(scalar.value, radix: 16, uppercase: true)
            throw CoreError.invalid("\(what) contains a control character (U+\(String(repeating: "0", count: max(0, 4 - code.count)) + code)): remove it")
        }
    }
}

/// Makes text safe to print on a terminal.
public enum Sanitize {
    /// Control characters (C0, DEL, C1), line and paragraph separators, and bidirectional
    /// overrides, which could move the cursor, change colours or reorder what is shown.
    public static func isForbidden(_ u: Unicode.Scalar) -> Bool {
        switch u.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }
    /// The text with every forbidden scalar replaced by U+FFFD.
    public static func display(_ s: String) -> String {
        guard s.unicodeScalars.contains(where: isForbidden) else { return s }
        var out = String.UnicodeScalarView()
        for u in s.unicodeScalars { out.append(isForbidden(u) ? "\u{FFFD}" : u) }
        return String(out)
    }
}

/// The bounds every value is checked against, from local input, a remote or an import.
public enum Limits {
    /// The largest goal, and the largest amount one check-in records.
    public static let maxGoal = 1_000_000
    /// The largest size of one progress change (a check-in, an uncheck, an undo).
    public static let maxChange = 1_000_000
    /// The most progress a day holds; a check-in that would go past it is refused, and a
    /// merge keeps a day's running total within it.
    public static let maxDayProgress = 1_000_000
}

/// The one error type of HabitCore: a rule was broken. The message says what to do.
public enum CoreError: Error, Equatable, CustomStringConvertible, Sendable {
    case invalid(String)
    public var description: String {
        switch self { case .invalid(let m): return m }
    }
}
