import FoundationEssentials

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
        let t = text.trimmingBlanks.lowercased()
        switch t {
        case "daily", "every:1", "7/week": self = .daily; return
        case "weekdays": self = .weekdays([.monday, .tuesday, .wednesday, .thursday, .friday]); return
        case "weekends": self = .weekdays([.saturday, .sunday]); return
        default: break
        }
        if t.hasPrefix("every:") {
            guard let n = Int(t.dropFirst(6)), (1...365).contains(n) else {
                throw CoreError.invalid("schedule \(Sanitize.quoted(text)): every:N needs a whole number N from 1 to 365")
            }
            self = n == 1 ? .daily : .everyNDays(n)
            return
        }
        if t.hasSuffix("/week") {
            guard let n = Int(t.dropLast(5)), (1...7).contains(n) else {
                throw CoreError.invalid("schedule \(Sanitize.quoted(text)): N/week needs a whole number N from 1 to 7")
            }
            self = n == 7 ? .daily : .perWeek(n)
            return
        }
        var days = Set<Weekday>()
        for part in t.split(separator: ",", omittingEmptySubsequences: false) {
            guard let d = Weekday(name: part.trimmingBlanks) else {
                throw CoreError.invalid(
                    "schedule \(Sanitize.quoted(text)) not understood: use daily, weekdays, weekends, mon,wed,fri, every:3 or 3/week")
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

/// The rules for user-entered text. Each throws `CoreError.invalid` with a message that
/// says what is allowed.
public enum Validate {
    /// 1–64 characters, no control characters, no invisible characters (see
    /// `Sanitize.invisibleScalar(in:)`), no leading or trailing space.
    public static func name(_ s: String) throws {
        if s.isEmpty || s.allSatisfy(\.isWhitespace) { throw CoreError.invalid("habit name is empty: give 1 to 64 characters") }
        if s.count > 64 { throw CoreError.invalid("habit name is \(s.count) characters long: use at most 64") }
        try fitsEncoding(s, what: "habit name")
        try noControl(s, what: "habit name", allowNewline: false)
        try noInvisible(s, what: "habit name")
        if s.first!.isWhitespace || s.last!.isWhitespace {
            throw CoreError.invalid("habit name must not start or end with a space")
        }
    }
    /// Exactly one character (an emoji counts as one).
    public static func icon(_ s: String) throws {
        guard s.count == 1, !s.first!.isWhitespace else { throw CoreError.invalid("icon must be exactly one character or emoji") }
        try fitsEncoding(s, what: "icon")
        try noControl(s, what: "icon", allowNewline: false)
        try noInvisible(s, what: "icon")
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
    /// Goals are thousandths (see `Amount`): build habits need a goal above 0 (0.001 at
    /// least), limit habits 0 or more; at most 1,000,000 units.
    public static func goal(_ g: Int, kind: HabitKind) throws {
        let minimum = kind == .build ? 1 : 0
        guard g >= minimum, g <= Limits.maxGoal else {
            throw CoreError.invalid("goal \(Amount.format(g)) is out of range: a \(kind.rawValue) habit needs \(kind == .build ? "more than 0" : "0 or more") and at most \(Amount.format(Limits.maxGoal))")
        }
    }
    /// 1–24 characters, no control characters.
    public static func unit(_ s: String) throws {
        guard !s.isEmpty, s.count <= 24 else { throw CoreError.invalid("unit must be 1 to 24 characters") }
        try fitsEncoding(s, what: "unit")
        try noControl(s, what: "unit", allowNewline: false)
        try noInvisible(s, what: "unit")
    }
    /// 1–32 characters, no control characters, no leading or trailing space.
    /// An order key: 1 to `OrderKey.maxLength` characters of `OrderKey.digits`, not ending
    /// in the lowest digit (so that a key between any two always exists).
    public static func position(_ s: String) throws {
        guard OrderKey.isValid(s) else {
            throw CoreError.invalid("order key '\(Sanitize.display(String(s.prefix(OrderKey.maxLength + 1))))' is not valid: use 1 to \(OrderKey.maxLength) of 0-9, A-Z, a-z, not ending in 0")
        }
    }
    public static func group(_ s: String) throws {
        guard !s.isEmpty, s.count <= 32 else { throw CoreError.invalid("group must be 1 to 32 characters") }
        try fitsEncoding(s, what: "group")
        try noControl(s, what: "group", allowNewline: false)
        try noInvisible(s, what: "group")
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
            throw CoreError.invalid("\(what) contains a control character (\(codePoint(scalar))): remove it")
        }
    }

    /// Labels (names, icons, units, groups) must show what they hold.
    static func noInvisible(_ s: String, what: String) throws {
        if let scalar = Sanitize.invisibleScalar(in: s) {
            throw CoreError.invalid("\(what) contains an invisible character (\(codePoint(scalar))): remove it")
        }
    }

    static func codePoint(_ u: Unicode.Scalar) -> String {
        let code = String(u.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - code.count)) + code
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
    /// Scalars that show nothing, or only blank space, on their own: every format character
    /// (Unicode category Cf: zero-width space, joiners, direction marks U+200E/U+200F/U+061C,
    /// word joiner and invisible operators U+2060–U+2064, U+180E, U+FEFF, tag characters),
    /// the Hangul fillers (U+115F, U+1160, U+3164, U+FFA0), the blank braille pattern
    /// (U+2800), the combining grapheme joiner (U+034F), the Khmer inherent vowels (U+17B4,
    /// U+17B5) and the variation selectors.
    public static func isInvisible(_ u: Unicode.Scalar) -> Bool {
        switch u.value {
        case 0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x180B...0x180F, 0x2800, 0x3164, 0xFFA0,
             0xFE00...0xFE0F, 0xE0100...0xE01EF: return true
        default: return u.properties.generalCategory == .format
        }
    }

    /// The first invisible scalar (`isInvisible`) that a label may not hold, or nil. Three
    /// uses of invisible scalars are part of visible text and are kept: a variation selector
    /// right after a visible character (❤️), a zero-width joiner or non-joiner between two
    /// visible characters (👨‍👩‍👧, Persian and Indic words), and the tag characters of an
    /// emoji flag (🏴 followed by tags U+E0020–U+E007E and the cancel tag U+E007F).
    public static func invisibleScalar(in s: String) -> Unicode.Scalar? {
        let u = Array(s.unicodeScalars)
        return invisibleIndex(in: u).map { u[$0] }
    }

    /// The text without the invisible scalars a label may not hold (for importers, which
    /// repair what another tracker allowed).
    public static func removingInvisible(_ s: String) -> String {
        var u = Array(s.unicodeScalars)
        while let i = invisibleIndex(in: u) { u.remove(at: i) }
        var out = String.UnicodeScalarView()
        out.append(contentsOf: u)
        return String(out)
    }

    private static func invisibleIndex(in u: [Unicode.Scalar]) -> Int? {
        func isVariationSelector(_ v: UInt32) -> Bool {
            (0xFE00...0xFE0F).contains(v) || (0xE0100...0xE01EF).contains(v) || (0x180B...0x180D).contains(v) || v == 0x180F
        }
        func isTag(_ i: Int) -> Bool { u.indices.contains(i) && (0xE0020...0xE007E).contains(u[i].value) }
        func visible(_ i: Int) -> Bool {
            u.indices.contains(i) && !isInvisible(u[i]) && !isForbidden(u[i]) && !u[i].properties.isWhitespace
        }
        var i = 0
        while i < u.count {
            let v = u[i].value
            if v == 0x1F3F4, isTag(i + 1) {
                // An emoji tag sequence: tags, then the cancel tag that ends it.
                var j = i + 1
                while isTag(j) { j += 1 }
                guard j < u.count, u[j].value == 0xE007F else { return j - 1 }
                i = j + 1
                continue
            }
            if isInvisible(u[i]) {
                if isVariationSelector(v), visible(i - 1) { i += 1; continue }
                if v == 0x200C || v == 0x200D {
                    var before = i - 1
                    while before >= 0, isVariationSelector(u[before].value) { before -= 1 }
                    if visible(before), visible(i + 1) { i += 1; continue }
                }
                return i
            }
            i += 1
        }
        return nil
    }

    /// A value from outside (typed, read from a file or a remote, a path) as a message shows
    /// it: in single quotes, with every forbidden scalar replaced (`display`).
    public static func quoted(_ s: String) -> String { "'" + display(s) + "'" }

    /// The text with every forbidden scalar replaced by U+FFFD.
    public static func display(_ s: String) -> String {
        guard s.unicodeScalars.contains(where: isForbidden) else { return s }
        var out = String.UnicodeScalarView()
        for u in s.unicodeScalars { out.append(isForbidden(u) ? "\u{FFFD}" : u) }
        return String(out)
    }
}

/// The bounds every value is checked against, from local input, a remote or an import.
/// Amounts are thousandths (see `Amount`): each bound is 1,000,000 units.
public enum Limits {
    /// The largest goal, and the largest amount one check-in records.
    public static let maxGoal = 1_000_000 * Amount.scale
    /// The largest size of one progress change (a check-in, an uncheck, an undo).
    public static let maxChange = 1_000_000 * Amount.scale
    /// The most progress a day holds; a check-in that would go past it is refused, and a
    /// merge keeps a day's running total within it.
    public static let maxDayProgress = 1_000_000 * Amount.scale
}

/// The one error type of HabitCore: a rule was broken. The message says what to do; its
/// description is safe to print (`Sanitize.display`), whatever outside value it quotes.
public enum CoreError: Error, Equatable, CustomStringConvertible, Sendable {
    case invalid(String)
    public var description: String {
        switch self { case .invalid(let m): return Sanitize.display(m) }
    }
}
