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

/// The state of one read: where it is, and the notes collected so far. Its parts are read
/// in LegacyFields.swift (goal, schedule, text fields, dates) and LegacyDays.swift.
struct LegacyDump {
    /// A value that cannot be used, with why.
    struct Problem: Error { let message: String }

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
        guard !ImportText.trimmed(s).isEmpty else { throw fatal("\(at).\(key)", "is empty; every habit needs its \(key)") }
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
        var startsToday = false
        if let given = dateField(h, "startDate", at: at) {
            start = given
        } else if let created = dateField(h, "createdAt", at: at, quiet: true) {
            start = created
            disagree("\(at).startDate", "no usable startDate; the habit starts on its createdAt day, \(created)")
        } else if let firstDay {
            start = firstDay
            disagree("\(at).startDate", "no usable startDate or createdAt; the habit starts on its first recorded day, \(firstDay)")
        } else {
            // Nothing to start from: the day of the import (`startsOnImportDay`), set by the importer.
            start = LocalDay(ordinal: 0)
            startsToday = true
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
        var habit = ImportedHabit(sourceKey: id, fields: fields, days: days, location: at)
        habit.startsOnImportDay = startsToday
        return habit
    }

    /// The name, with control characters replaced by spaces, invisible ones removed, and cut
    /// to 64 characters.
    mutating func cleanName(_ raw: String, at: String) throws -> String {
        var name = raw
        if raw.unicodeScalars.contains(where: Sanitize.isForbidden) {
            name = Self.replacingControls(raw, keepNewlines: false)
            disagree("\(at).name", "\(ImportJSON.quoted(raw)) contains control characters; replaced them with spaces")
        }
        if Sanitize.invisibleScalar(in: name) != nil {
            name = Sanitize.removingInvisible(name)
            disagree("\(at).name", "\(ImportJSON.quoted(raw)) contains invisible characters; removed them")
        }
        name = ImportText.trimmed(name)
        if name.count > 64 {
            disagree("\(at).name", "\(ImportJSON.quoted(name)) is \(name.count) characters long; cut to the first 64")
            name = ImportText.trimmed(String(name.prefix(64)))
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
        switch ImportText.trimmed(text).lowercased() {
        case "formation": return .build
        case "breaking": return .limit
        default:
            throw fatal(keyPath, "\(ImportJSON.quoted(text)) not understood; expected \"formation\" (a habit to build) or \"breaking\" (a habit to quit)")
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

    // MARK: Text

    /// The text with every control character (but newlines, when kept) replaced by a space.
    static func replacingControls(_ s: String, keepNewlines: Bool) -> String {
        var out = String.UnicodeScalarView()
        for u in s.unicodeScalars {
            out.append(Sanitize.isForbidden(u) && !(keepNewlines && u == "\n") ? " " : u)
        }
        return String(out)
    }
}
