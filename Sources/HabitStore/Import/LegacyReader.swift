import FoundationEssentials
import HabitCore

/// Reads the legacy Habitto iOS app's UserDefaults dump: a JSON object whose `SavedHabits`
/// and `guest_habits` arrays hold the habits, with `user_progress`, `daily_xp_awards` and
/// `recent_xp_transactions` beside them.
///
/// The legacy app kept each day in up to three places that could disagree
/// (`completionHistory` counts, `completionStatus` flags, `completionTimestamps` lists).
/// The reader takes a day as done when any of them says so, and lists every day where they
/// disagree. Stored XP, level and streaks are passed on for comparison, never imported.
///
/// A broken structure (the top level, a habit list, a habit, its id, name or type, a whole
/// day dictionary) stops the import with an `ImportError`; a single bad day key or value is
/// skipped and listed with its key path.
public enum LegacyReader {
    /// Reads and validates the dump at `path` without writing anything.
    /// - Throws: `ImportError` naming the file and the line or key path, and saying what to do.
    public static func read(path: String) throws -> ImportPlan {
        let bytes = try ImportSupport.read(path)
        let root = try ImportJSON.parse(bytes, path: path, redo: LegacyDump.redo)
        var dump = LegacyDump(path: path)
        let habits = try dump.read(root)
        var plan = ImportPlan(format: .habittoLegacy, files: [path], digest: ImportSupport.digest([bytes]), habits: habits)
        plan.skipped = dump.skipped
        plan.disagreements = dump.disagreements
        plan.storedXP = dump.storedXP
        plan.storedLevel = dump.storedLevel
        plan.storedStreaks = dump.storedStreaks
        return plan
    }
}

/// A value that cannot be used, with why.
private struct Problem: Error { let message: String }

/// The state of one read: where it is, and the notes collected so far.
private struct LegacyDump {
    static let redo = "export the legacy app's UserDefaults to JSON again"
    /// The largest count a day may hold.
    static let maxCount = 1_000_000_000

    let path: String
    /// The file name, for the locations of notes.
    let file: String
    var skipped: [ImportNote] = []
    var disagreements: [ImportNote] = []
    var storedXP: Int?
    var storedLevel: Int?
    var storedStreaks: [String: Int] = [:]

    init(path: String) {
        self.path = path
        let last = path.pathLastComponent
        file = last.isEmpty ? path : last
    }

    // MARK: Notes and errors

    func fatal(_ keyPath: String, _ message: String) -> ImportError {
        ImportError("\(path): \(keyPath): \(message); fix that value in the file or \(Self.redo)")
    }

    mutating func skip(_ keyPath: String, _ message: String) {
        skipped.append(ImportNote(location: "\(file): \(keyPath)", message: message))
    }

    mutating func disagree(_ keyPath: String, _ message: String) {
        disagreements.append(ImportNote(location: "\(file): \(keyPath)", message: message))
    }

    // MARK: The document

    mutating func read(_ root: Any) throws -> [ImportedHabit] {
        guard let top = root as? [String: Any] else {
            throw ImportError("\(path): the top level is \(ImportJSON.describe(root)), not an object with SavedHabits, so this is not a legacy Habitto UserDefaults dump; give the dump's JSON file")
        }
        let saved = try habitList(top, "SavedHabits")
        let guests = try habitList(top, "guest_habits")
        guard saved != nil || guests != nil else {
            throw ImportError("\(path): has neither SavedHabits nor guest_habits, so this is not a legacy Habitto UserDefaults dump; give the dump's JSON file")
        }
        var habits: [ImportedHabit] = []
        var seen: [String: String] = [:]
        for (listKey, list) in [("SavedHabits", saved ?? []), ("guest_habits", guests ?? [])] {
            for (i, element) in list.enumerated() {
                let at = "\(listKey)[\(i)]"
                guard let object = element as? [String: Any] else {
                    throw fatal(at, "expected an object (a habit), found \(ImportJSON.describe(element))")
                }
                let id = try requiredString(object, "id", at: at)
                if let first = seen[id] {
                    disagree(at, "has the same id as \(first) (\(ImportJSON.quoted(id))); kept \(first)")
                    continue
                }
                seen[id] = at
                habits.append(try habit(object, id: id, at: at))
            }
        }
        readProgress(top)
        return habits
    }

    /// `SavedHabits` or `guest_habits`: nil when absent or null.
    func habitList(_ top: [String: Any], _ key: String) throws -> [Any]? {
        guard let value = top[key], !ImportJSON.isNull(value) else { return nil }
        guard let list = value as? [Any] else {
            throw fatal(key, "expected an array of habits, found \(ImportJSON.describe(value))")
        }
        return list
    }

    func requiredString(_ object: [String: Any], _ key: String, at: String) throws -> String {
        guard let value = object[key], !ImportJSON.isNull(value) else {
            throw fatal("\(at).\(key)", "missing; every habit needs its \(key)")
        }
        guard let s = value as? String else {
            throw fatal("\(at).\(key)", "expected a string, found \(ImportJSON.describe(value))")
        }
        guard !trimmed(s).isEmpty else { throw fatal("\(at).\(key)", "is empty; every habit needs its \(key)") }
        return s
    }

    // MARK: One habit

    mutating func habit(_ h: [String: Any], id: String, at: String) throws -> ImportedHabit {
        let name = try cleanName(try requiredString(h, "name", at: at), at: at)
        let title = ImportJSON.quoted(name)
        let kind = try habitKind(h, at: at)
        let (goal, unit, baseline) = readGoal(h, kind: kind, at: at)
        let schedule = readSchedule(h, kind: kind, at: at)
        let icon = optionalText(h, "icon", at: at) { try Validate.icon($0) }
        let color = optionalText(h, "color", at: at) { try Validate.color($0) }
        let notes = readNotes(h, baseline: baseline, unit: unit, at: at)

        let days = kind == .build
            ? try buildDays(h, goal: goal, title: title, at: at)
            : try limitDays(h, title: title, at: at)

        // Dates: the start never after the first recorded day, the archive never before the last.
        let firstDay = days.keys.min(), lastDay = days.keys.max()
        var start: LocalDay
        if let given = dateField(h, "startDate", at: at) {
            start = given
        } else if let created = dateField(h, "createdAt", at: at, quiet: true) {
            start = created
            disagree("\(at).startDate", "no usable startDate; the habit starts on its createdAt day, \(created)")
        } else if let firstDay {
            start = firstDay
            disagree("\(at).startDate", "no usable startDate or createdAt; the habit starts on its first recorded day, \(firstDay)")
        } else {
            throw fatal("\(at).startDate", "missing, and the habit has no createdAt and no recorded days to start from")
        }
        if let firstDay, firstDay < start {
            disagree("\(at).startDate", "\(start) is after the first recorded day, \(firstDay); the habit starts on \(firstDay)")
            start = firstDay
        }
        var archivedFrom: LocalDay?
        if let end = dateField(h, "endDate", at: at) {
            var from = end.adding(1)
            if let lastDay, lastDay >= from {
                disagree("\(at).endDate", "\(end) is before the last recorded day, \(lastDay); archived from \(lastDay.adding(1))")
                from = lastDay.adding(1)
            }
            if from < start {
                disagree("\(at).endDate", "\(end) is before the start date, \(start); archived from the start")
                from = start
            }
            archivedFrom = from
        }

        if let value = h["streak"], !ImportJSON.isNull(value) {
            if let streak = ImportJSON.int(value) {
                storedStreaks[id] = streak
            } else {
                skip("\(at).streak", "expected a number, found \(ImportJSON.describe(value)); not compared")
            }
        }

        // The legacy app counts whole units; Habitto's amounts are thousandths.
        let fields = HabitFields(name: name, icon: icon, color: color, kind: kind, goal: goal * Amount.scale, unit: unit,
                                 schedule: schedule, startDate: start, archivedFrom: archivedFrom, notes: notes)
        do { try fields.validate() } catch { throw fatal(at, "\(error)") }
        return ImportedHabit(sourceKey: id, fields: fields, days: days, location: at)
    }

    /// The name, with control characters replaced by spaces, invisible ones removed, and cut
    /// to 64 characters.
    mutating func cleanName(_ raw: String, at: String) throws -> String {
        var name = raw
        if raw.unicodeScalars.contains(where: Sanitize.isForbidden) {
            name = replacingControls(raw, keepNewlines: false)
            disagree("\(at).name", "\(ImportJSON.quoted(raw)) contains control characters; replaced them with spaces")
        }
        if Sanitize.invisibleScalar(in: name) != nil {
            name = Sanitize.removingInvisible(name)
            disagree("\(at).name", "\(ImportJSON.quoted(raw)) contains invisible characters; removed them")
        }
        name = trimmed(name)
        if name.count > 64 {
            disagree("\(at).name", "\(ImportJSON.quoted(name)) is \(name.count) characters long; cut to the first 64")
            name = trimmed(String(name.prefix(64)))
        }
        do { try Validate.name(name) } catch { throw fatal("\(at).name", "\(error)") }
        return name
    }

    func habitKind(_ h: [String: Any], at: String) throws -> HabitKind {
        let keyPath = "\(at).habitType"
        guard let value = h["habitType"], !ImportJSON.isNull(value) else {
            throw fatal(keyPath, "missing; expected \"formation\" (a habit to build) or \"breaking\" (a habit to quit)")
        }
        guard let text = value as? String else {
            throw fatal(keyPath, "expected a string, found \(ImportJSON.describe(value))")
        }
        switch trimmed(text).lowercased() {
        case "formation": return .build
        case "breaking": return .limit
        default:
            throw fatal(keyPath, "\(ImportJSON.quoted(text)) not understood; expected \"formation\" (a habit to build) or \"breaking\" (a habit to quit)")
        }
    }

    // MARK: Goal

    /// The goal text split up: "20 pages per day" → 20, "pages", per day.
    struct GoalText {
        var count: Int
        var unit: String?
        var perDay: Bool
    }

    static func parseGoal(_ text: String) -> GoalText? {
        let words = text.split(whereSeparator: { $0.isWhitespace }).map(String.init)
        guard let first = words.first, first.allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int(first) else {
            return nil
        }
        let stops: Set<String> = ["per", "a", "an", "each", "every", "everyday", "daily", "/day", "on", "in", "weekly"]
        let rest = words.dropFirst()
        let unitWords = rest.prefix { !stops.contains($0.lowercased()) }
        let period = rest.dropFirst(unitWords.count).map { $0.lowercased() }
        let weekly = period.contains { $0.hasPrefix("week") || $0.hasPrefix("month") || $0 == "weekly" }
        var unit: String? = unitWords.joined(separator: " ")
        if let u = unit, u.isEmpty || ["time", "times", "x"].contains(u.lowercased()) { unit = nil }
        return GoalText(count: n, unit: unit, perDay: !weekly)
    }

    /// The goal, the unit and (for habits to quit) the baseline.
    mutating func readGoal(_ h: [String: Any], kind: HabitKind, at: String) -> (Int, String?, Int) {
        let keyPath = "\(at).goal"
        var parsed: GoalText?
        var shown = "missing"
        if let value = h["goal"], !ImportJSON.isNull(value) {
            if let text = value as? String {
                parsed = Self.parseGoal(text)
                shown = ImportJSON.quoted(text)
            } else if let n = ImportJSON.int(value) {
                parsed = GoalText(count: n, unit: nil, perDay: true)
                shown = String(n)
            } else {
                shown = ImportJSON.describe(value)
            }
        }
        let range = kind == .build ? 1...1_000_000 : 0...1_000_000
        let fromText = parsed.map(\.count).flatMap { range.contains($0) ? $0 : nil }

        var goal: Int
        if kind == .build {
            if let fromText {
                goal = fromText
            } else {
                goal = 1
                disagree(keyPath, parsed == nil
                    ? "goal \(shown) not understood (expected a number first, like \"8 times per day\"); used 1 per day"
                    : "goal \(shown) is out of range (a habit to build needs 1 to 1000000); used 1 per day")
            }
        } else {
            var target: Int?
            if let value = h["target"], !ImportJSON.isNull(value) {
                if let t = ImportJSON.int(value), (0...1_000_000).contains(t) {
                    target = t > 0 ? t : nil
                } else {
                    skip("\(at).target", "expected a number from 0 to 1000000, found \(ImportJSON.describe(value)); ignored")
                }
            }
            if let target {
                goal = target
                if let fromText, fromText != target {
                    disagree("\(at).target", "target is \(target) but goal \(shown) says \(fromText); used the target, \(target)")
                } else if fromText == nil {
                    skip(keyPath, "goal \(shown) not understood; used the target, \(target)")
                }
            } else if let fromText {
                goal = fromText
            } else {
                goal = 1
                disagree(keyPath, "goal \(shown) not understood and no target; used at most 1 per day")
            }
        }
        if let parsed, !parsed.perDay {
            disagree(keyPath, "goal \(shown) is not per day; Habitto goals count per day, so the goal is \(goal) per day")
        }

        var unit: String?
        if let u = parsed?.unit {
            do {
                try Validate.unit(u)
                unit = u
            } catch {
                skip(keyPath, "unit \(ImportJSON.quoted(u)) left out: \(error)")
            }
        }

        var baseline = 0
        if kind == .limit, let value = h["baseline"], !ImportJSON.isNull(value) {
            if let b = ImportJSON.int(value), b >= 0 {
                baseline = b
            } else {
                skip("\(at).baseline", "expected a count of 0 or more, found \(ImportJSON.describe(value)); left out")
            }
        }
        return (goal, unit, baseline)
    }

    // MARK: Schedule

    /// The legacy app's schedule texts; nil when not understood.
    static func parseSchedule(_ text: String) -> Schedule? {
        let t = text.lowercased().split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
        switch t {
        case "everyday", "every day", "daily": return .daily
        case "weekdays": return .weekdays([.monday, .tuesday, .wednesday, .thursday, .friday])
        case "weekends", "weekend": return .weekdays([.saturday, .sunday])
        default: break
        }
        let words = t.split(separator: " ").map(String.init)
        // "Every 3 days"
        if words.count == 3, words[0] == "every", let n = Int(words[1]), words[2] == "days" || words[2] == "day" {
            guard (1...365).contains(n) else { return nil }
            return n == 1 ? .daily : .everyNDays(n)
        }
        // "3 days a week", "3 times a week", "3 times per week"
        if words.count == 4, let n = Int(words[0]), ["day", "days", "time", "times"].contains(words[1]),
           ["a", "per", "each"].contains(words[2]), words[3] == "week" {
            guard (1...7).contains(n) else { return nil }
            return n == 7 ? .daily : .perWeek(n)
        }
        // "Monday, Wednesday, Friday" or "mon, wed and fri"
        var days = Set<Weekday>()
        for part in t.replacingAll(" and ", with: ",").split(separator: ",", omittingEmptySubsequences: false) {
            guard let day = Weekday(name: part.trimmingBlanks) else { return nil }
            days.insert(day)
        }
        guard !days.isEmpty else { return nil }
        return days.count == 7 ? .daily : .weekdays(days)
    }

    mutating func readSchedule(_ h: [String: Any], kind: HabitKind, at: String) -> Schedule {
        let keyPath = "\(at).schedule"
        guard let value = h["schedule"], !ImportJSON.isNull(value) else {
            disagree(keyPath, "missing; used daily")
            return .daily
        }
        guard let text = value as? String else {
            disagree(keyPath, "expected a string, found \(ImportJSON.describe(value)); used daily")
            return .daily
        }
        guard let schedule = Self.parseSchedule(text) else {
            disagree(keyPath, "\(ImportJSON.quoted(text)) not understood; used daily")
            return .daily
        }
        if kind == .limit, schedule.isWeekly {
            disagree(keyPath, "\(ImportJSON.quoted(text)) counts per week, which a habit to quit cannot use; used daily")
            return .daily
        }
        return schedule
    }

    // MARK: Icon, colour, notes, dates

    /// An optional string field that must pass `check`; left out (with a note) otherwise.
    mutating func optionalText(_ h: [String: Any], _ key: String, at: String,
                               check: (String) throws -> Void) -> String? {
        guard let value = h[key], !ImportJSON.isNull(value) else { return nil }
        guard let text = value as? String else {
            skip("\(at).\(key)", "expected a string, found \(ImportJSON.describe(value)); left out")
            return nil
        }
        if text.isEmpty { return nil }
        do {
            try check(text)
            return text
        } catch {
            skip("\(at).\(key)", "\(ImportJSON.quoted(text)) left out: \(error)")
            return nil
        }
    }

    /// The description, then for habits to quit the baseline line.
    mutating func readNotes(_ h: [String: Any], baseline: Int, unit: String?, at: String) -> String? {
        let keyPath = "\(at).description"
        let baselineLine = baseline > 0 ? "Baseline before quitting: \(baseline) \(unit.map { "\($0) " } ?? "")per day" : nil
        var description: String?
        if let value = h["description"], !ImportJSON.isNull(value) {
            if let raw = value as? String {
                var text = raw.replacingAll("\r\n", with: "\n")
                if text.unicodeScalars.contains(where: { Sanitize.isForbidden($0) && $0 != "\n" }) {
                    text = replacingControls(text, keepNewlines: true)
                    disagree(keyPath, "contains control characters; replaced them with spaces")
                }
                text = trimmed(text)
                let budget = 2000 - (baselineLine.map { $0.count + 1 } ?? 0)
                if text.count > budget {
                    disagree(keyPath, "is \(text.count) characters long; cut to the first \(budget)")
                    text = trimmed(String(text.prefix(budget)))
                }
                if !text.isEmpty {
                    do {
                        try Validate.notes(text)
                        description = text
                    } catch {
                        skip(keyPath, "left out: \(error)")
                    }
                }
            } else {
                skip(keyPath, "expected a string, found \(ImportJSON.describe(value)); left out")
            }
        }
        let lines = [description, baselineLine].compactMap { $0 }
        return lines.isEmpty ? nil : lines.joined(separator: "\n")
    }

    /// The day of a date field (date part as written); nil, with a note, when unusable.
    mutating func dateField(_ h: [String: Any], _ key: String, at: String, quiet: Bool = false) -> LocalDay? {
        guard let value = h[key], !ImportJSON.isNull(value) else { return nil }
        if let text = value as? String, let day = ImportSupport.day(text) { return day }
        if !quiet {
            let found = value is String ? ImportJSON.quoted(value as? String ?? "") : ImportJSON.describe(value)
            skip("\(at).\(key)", "\(found) is not a date (expected yyyy-MM-dd or an ISO-8601 timestamp); left out")
        }
        return nil
    }

    // MARK: Days

    /// A dictionary of days: each key a day, each value read by `parse`. A bad key or value
    /// is skipped; a day given twice (`2025-09-28` and `2025-09-28T00:00:00Z`) keeps the
    /// larger value.
    mutating func dayMap(_ h: [String: Any], _ key: String, title: String, at: String,
                         show: (Int) -> String, parse: (Any) -> Result<Int, Problem>) throws -> [LocalDay: Int] {
        let base = "\(at).\(key)"
        guard let value = h[key], !ImportJSON.isNull(value) else { return [:] }
        guard let dictionary = value as? [String: Any] else {
            throw fatal(base, "expected an object of days, found \(ImportJSON.describe(value))")
        }
        var out: [LocalDay: Int] = [:]
        var keys: [LocalDay: String] = [:]
        for (k, v) in dictionary.sorted(by: { $0.key < $1.key }) {
            let keyPath = base + ImportJSON.subscriptKey(k)
            guard let day = ImportSupport.day(k) else {
                skip(keyPath, "not a date (expected yyyy-MM-dd or an ISO-8601 timestamp like 2025-09-28T00:00:00Z); day left out")
                continue
            }
            switch parse(v) {
            case .failure(let problem):
                skip(keyPath, "\(problem.message); day left out")
            case .success(let n):
                if let old = out[day], let oldKey = keys[day] {
                    if old != n {
                        disagree(base, "\(title) \(day) is given twice: \(ImportJSON.quoted(oldKey)) has \(show(old)), \(ImportJSON.quoted(k)) has \(show(n)); took \(show(max(old, n)))")
                    }
                    out[day] = max(old, n)
                } else {
                    out[day] = n
                    keys[day] = k
                }
            }
        }
        return out
    }

    static func count(_ v: Any) -> Result<Int, Problem> {
        guard ImportJSON.isNumber(v) else { return .failure(Problem(message: "expected a number, found \(ImportJSON.describe(v))")) }
        guard let n = ImportJSON.int(v), n >= 0, n <= maxCount else {
            return .failure(Problem(message: "expected a whole number from 0 to \(maxCount), found \(ImportJSON.describe(v))"))
        }
        return .success(n)
    }

    static func flag(_ v: Any) -> Result<Int, Problem> {
        guard let b = ImportJSON.bool(v) else { return .failure(Problem(message: "expected true or false, found \(ImportJSON.describe(v))")) }
        return .success(b ? 1 : 0)
    }

    static func timestamps(_ v: Any) -> Result<Int, Problem> {
        guard let list = v as? [Any] else {
            return .failure(Problem(message: "expected an array of timestamps, found \(ImportJSON.describe(v))"))
        }
        return .success(min(list.count, maxCount))
    }

    static func difficulty(_ v: Any) -> Result<Int, Problem> {
        guard let n = ImportJSON.int(v), (1...5).contains(n) else {
            return .failure(Problem(message: "expected a difficulty from 1 to 5, found \(ImportJSON.describe(v))"))
        }
        return .success(n)
    }

    /// A habit to build: a day is done when any source says so; every day on which the
    /// sources the habit uses disagree is listed.
    mutating func buildDays(_ h: [String: Any], goal: Int, title: String, at: String) throws -> [LocalDay: ImportedDay] {
        let history = try dayMap(h, "completionHistory", title: title, at: at, show: { "\($0)" }, parse: Self.count)
        let status = try dayMap(h, "completionStatus", title: title, at: at, show: { $0 == 1 ? "true" : "false" }, parse: Self.flag)
        let stamps = try dayMap(h, "completionTimestamps", title: title, at: at, show: { "\($0) timestamps" }, parse: Self.timestamps)
        let ratings = try dayMap(h, "difficultyHistory", title: title, at: at, show: { "\($0)" }, parse: Self.difficulty)
        try ignored(h, "actualUsage", at: at, because: "a habit to build records completionHistory")

        var days: [LocalDay: ImportedDay] = [:]
        let all = Set(history.keys).union(status.keys).union(stamps.keys).union(ratings.keys)
        for day in all.sorted() {
            let counted = history[day], flagged = status[day], stamped = stamps[day]
            let progress = max(counted ?? 0, stamped ?? 0, flagged == 1 ? goal : 0)
            // Each source the habit uses votes; a day it has no entry for counts as not done.
            var votes: [Bool] = []
            var said: [String] = []
            if !status.isEmpty {
                votes.append(flagged == 1)
                said.append(flagged.map { $0 == 1 ? "completionStatus says done" : "completionStatus says not done" }
                    ?? "completionStatus has no entry")
            }
            if !history.isEmpty {
                votes.append((counted ?? 0) >= goal)
                said.append(counted.map { "completionHistory has \($0)" } ?? "completionHistory has no entry")
            }
            if !stamps.isEmpty {
                votes.append((stamped ?? 0) >= goal)
                said.append(stamped.flatMap { $0 > 0 ? "completionTimestamps has \($0)" : nil } ?? "completionTimestamps has none")
            }
            if votes.contains(true), votes.contains(false) {
                disagree(at, "\(title) \(day): \(said.joined(separator: ", ")); counted as done (\(progress) of \(goal))")
            }
            if progress > 0 || ratings[day] != nil {
                days[day] = ImportedDay(progress: progress * Amount.scale, difficulty: ratings[day])
            }
        }
        return days
    }

    /// A habit to quit: each day's `actualUsage` is its progress; a day of 0 is kept only
    /// when it has a difficulty.
    mutating func limitDays(_ h: [String: Any], title: String, at: String) throws -> [LocalDay: ImportedDay] {
        let usage = try dayMap(h, "actualUsage", title: title, at: at, show: { "\($0)" }, parse: Self.count)
        let ratings = try dayMap(h, "difficultyHistory", title: title, at: at, show: { "\($0)" }, parse: Self.difficulty)
        for key in ["completionHistory", "completionStatus", "completionTimestamps"] {
            try ignored(h, key, at: at, because: "a habit to quit records actualUsage")
        }
        var days: [LocalDay: ImportedDay] = [:]
        for day in Set(usage.keys).union(ratings.keys) {
            let progress = usage[day] ?? 0
            if progress > 0 || ratings[day] != nil {
                days[day] = ImportedDay(progress: progress * Amount.scale, difficulty: ratings[day])
            }
        }
        return days
    }

    /// A day dictionary the habit's kind does not use: one note when it is not empty.
    mutating func ignored(_ h: [String: Any], _ key: String, at: String, because reason: String) throws {
        guard let value = h[key], !ImportJSON.isNull(value) else { return }
        guard let dictionary = value as? [String: Any] else {
            throw fatal("\(at).\(key)", "expected an object of days, found \(ImportJSON.describe(value))")
        }
        if !dictionary.isEmpty {
            skip("\(at).\(key)", "\(dictionary.count) \(dictionary.count == 1 ? "entry" : "entries") ignored: \(reason)")
        }
    }

    // MARK: XP

    /// Stored XP and level, and the XP lists compared with them. Only for the report.
    mutating func readProgress(_ top: [String: Any]) {
        if let value = top["user_progress"], !ImportJSON.isNull(value) {
            if let progress = value as? [String: Any] {
                storedXP = storedInt(progress, "xpTotal", at: "user_progress")
                storedLevel = storedInt(progress, "level", at: "user_progress")
            } else {
                skip("user_progress", "expected an object, found \(ImportJSON.describe(value)); stored XP not compared")
            }
        }
        compareXP(top, "daily_xp_awards", field: "xpGranted", verb: "grant")
        compareXP(top, "recent_xp_transactions", field: "amount", verb: "add up to")
    }

    mutating func storedInt(_ object: [String: Any], _ key: String, at: String) -> Int? {
        guard let value = object[key], !ImportJSON.isNull(value) else { return nil }
        guard let n = ImportJSON.int(value) else {
            skip("\(at).\(key)", "expected a number, found \(ImportJSON.describe(value)); not compared")
            return nil
        }
        return n
    }

    mutating func compareXP(_ top: [String: Any], _ key: String, field: String, verb: String) {
        guard let value = top[key], !ImportJSON.isNull(value) else { return }
        guard let list = value as? [Any] else {
            skip(key, "expected an array, found \(ImportJSON.describe(value)); not compared")
            return
        }
        var sum = 0
        for (i, element) in list.enumerated() {
            let at = "\(key)[\(i)]"
            guard let object = element as? [String: Any] else {
                skip(at, "expected an object, found \(ImportJSON.describe(element)); not counted")
                continue
            }
            guard let raw = object[field], let xp = ImportJSON.int(raw), abs(xp) <= 1 << 40 else {
                skip("\(at).\(field)", "expected a number, found \(object[field].map(ImportJSON.describe) ?? "nothing"); not counted")
                continue
            }
            sum += xp
        }
        if let storedXP, sum != storedXP {
            disagree(key, "\(key) \(verb) \(sum) XP, user_progress says \(storedXP); neither is imported: Habitto works XP out from the imported days")
        }
    }
}

// MARK: - Text helpers

/// The text without leading and trailing white space.
private func trimmed(_ s: String) -> String {
    String(s.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
}

/// The text with every control character (but newlines, when kept) replaced by a space.
private func replacingControls(_ s: String, keepNewlines: Bool) -> String {
    var out = String.UnicodeScalarView()
    for u in s.unicodeScalars {
        out.append(Sanitize.isForbidden(u) && !(keepNewlines && u == "\n") ? " " : u)
    }
    return String(out)
}
