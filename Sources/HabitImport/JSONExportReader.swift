import FoundationEssentials
import HabitCore
import HabitStore

/// Reads Habitto's own export (`habitto export --format json`, see `Export`):
/// `{"format": "habitto-export", "version": 1, "habits": [...]}`, each habit with its id,
/// fields and days, plus the optional habit `group` and day `note`.
///
/// The format is Habitto's own, so reading is all or nothing: any value that breaks a rule
/// stops the import with an `ImportError` naming its key path (`habits[2].goal`).
public enum JSONExportReader {
    /// Reads and validates the export at `path` without writing anything.
    /// - Throws: `ImportError` naming the file and the line or key path, and saying what to do.
    public static func read(path: String) throws -> ImportPlan {
        let bytes = try ImportSupport.read(path)
        let root = try ImportJSON.parse(bytes, path: path, redo: ExportDocumentReader.redo)
        let habits = try ExportDocumentReader(path: path).habits(root)
        return ImportPlan(format: .json, files: [path], digest: ImportSupport.digest([bytes]), habits: habits)
    }
}

/// Reads one export document; every error names its key path.
private struct ExportDocumentReader {
    static let redo = "export the data again with `habitto export --format json`"
    /// The largest progress a day may hold.
    static let maxProgress = Limits.maxDayProgress

    let path: String

    func fail(_ keyPath: String, _ message: String) -> ImportError {
        ImportError("\(path): \(keyPath): \(message); fix that value or \(Self.redo)")
    }

    func habits(_ root: Any) throws -> [ImportedHabit] {
        guard let top = root as? [String: Any] else {
            throw ImportError("\(path): the top level is \(ImportJSON.describe(root)), not an object with \"format\": \"\(Export.format)\", so this is not a Habitto export; \(Self.redo)")
        }
        guard let format = top["format"] as? String, format == Export.format else {
            let found = top["format"].map(shown) ?? "no format"
            throw ImportError("\(path): format: expected \"\(Export.format)\", found \(found), so this is not a Habitto JSON export; \(Self.redo)")
        }
        guard let versionValue = top["version"], let version = ImportJSON.int(versionValue) else {
            throw ImportError("\(path): version: expected \(Export.version), found \(top["version"].map(shown) ?? "no version"); \(Self.redo)")
        }
        guard version == Export.version else {
            let hint = version > Export.version ? "it was written by a newer Habitto: update Habitto and import it again"
                                                : "this Habitto reads version \(Export.version)"
            throw ImportError("\(path): version: expected \(Export.version), found \(version); \(hint)")
        }
        guard let list = top["habits"] as? [Any] else {
            throw fail("habits", "expected an array of habits, found \(top["habits"].map(shown) ?? "nothing")")
        }
        var seen: [HabitID: String] = [:]
        var out: [ImportedHabit] = []
        for (i, element) in list.enumerated() {
            let at = "habits[\(i)]"
            let habit = try self.habit(element, at: at)
            if let id = habit.id {
                if let first = seen[id] { throw fail("\(at).id", "\(id) is also the id of \(first); each habit needs its own id") }
                seen[id] = at
            }
            out.append(habit)
        }
        return out
    }

    func habit(_ element: Any, at: String) throws -> ImportedHabit {
        guard let h = element as? [String: Any] else {
            throw fail(at, "expected an object (a habit), found \(ImportJSON.describe(element))")
        }
        let idText = try string(h, "id", at: at)
        guard let id = HabitID(idText) else {
            throw fail("\(at).id", "\(ImportJSON.quoted(idText)) is not a habit id: expected 16 lower-case hex characters")
        }
        let name = try string(h, "name", at: at)
        try check("\(at).name") { try Validate.name(name) }
        let icon = try optionalString(h, "icon", at: at)
        if let icon { try check("\(at).icon") { try Validate.icon(icon) } }
        let color = try optionalString(h, "color", at: at)
        if let color { try check("\(at).color") { try Validate.color(color) } }
        let kindText = try string(h, "kind", at: at)
        guard let kind = HabitKind(rawValue: kindText) else {
            throw fail("\(at).kind", "\(ImportJSON.quoted(kindText)) not understood: expected \"build\" or \"limit\"")
        }
        let goal = try amount(h, "goal", at: at)
        try check("\(at).goal") { try Validate.goal(goal, kind: kind) }
        let unit = try optionalString(h, "unit", at: at)
        if let unit { try check("\(at).unit") { try Validate.unit(unit) } }
        let scheduleText = try string(h, "schedule", at: at)
        let schedule = try check("\(at).schedule") { try Schedule(parsing: scheduleText) }
        let startDate = try day(try string(h, "startDate", at: at), "\(at).startDate")
        let archivedFrom = try optionalString(h, "archivedFrom", at: at).map { try day($0, "\(at).archivedFrom") }
        let notes = try optionalString(h, "notes", at: at)
        if let notes { try check("\(at).notes") { try Validate.notes(notes) } }
        let group = try optionalString(h, "group", at: at)
        if let group { try check("\(at).group") { try Self.validateGroup(group) } }
        let position = try optionalString(h, "position", at: at)
        if let position { try check("\(at).position") { try Validate.position(position) } }
        let reminders = try reminderTimes(h, at: "\(at).reminders")

        let fields = HabitFields(name: name, icon: icon, color: color, kind: kind, goal: goal, unit: unit,
                                 schedule: schedule, startDate: startDate, archivedFrom: archivedFrom, notes: notes,
                                 position: position, reminders: reminders)
        let rule = kind == .limit && schedule.isQuota ? "\(at).schedule"
                 : archivedFrom.map { $0 < startDate } == true ? "\(at).archivedFrom" : at
        try check(rule) { try fields.validate() }

        let days = try importedDays(h, habit: Habit(id: id, fields: fields), at: at)
        var imported = ImportedHabit(sourceKey: idText, id: id, fields: fields, group: group, days: days, location: at)
        imported.definitions = try definitions(h, fields: fields, at: "\(at).definitions")
        return imported
    }

    /// A habit's `days`: each an object with its date once, and only on days the habit has.
    func importedDays(_ h: [String: Any], habit: Habit, at: String) throws -> [LocalDay: ImportedDay] {
        guard let dayList = h["days"] as? [Any] else {
            throw fail("\(at).days", "expected an array of days, found \(h["days"].map(shown) ?? "nothing")")
        }
        var days: [LocalDay: ImportedDay] = [:]
        for (j, element) in dayList.enumerated() {
            let dayAt = "\(at).days[\(j)]"
            guard let d = element as? [String: Any] else {
                throw fail(dayAt, "expected an object (a day), found \(ImportJSON.describe(element))")
            }
            let date = try day(try string(d, "date", at: dayAt), "\(dayAt).date")
            if days[date] != nil { throw fail("\(dayAt).date", "\(date) is given twice; each day appears once") }
            days[date] = try importedDay(d, date, habit: habit, at: dayAt)
        }
        return days
    }

    /// One day of a habit's `days`.
    func importedDay(_ d: [String: Any], _ date: LocalDay, habit: Habit, at dayAt: String) throws -> ImportedDay {
        let progress = try amount(d, "progress", at: dayAt)
        guard progress >= 0, progress <= Self.maxProgress else {
            throw fail("\(dayAt).progress", "expected a number from 0 to \(Amount.format(Self.maxProgress)), found \(Amount.format(progress))")
        }
        guard let skippedValue = d["skipped"], let skipped = ImportJSON.bool(skippedValue) else {
            throw fail("\(dayAt).skipped", "expected true or false, found \(d["skipped"].map(shown) ?? "nothing")")
        }
        var difficulty: Int?
        if let value = d["difficulty"], !ImportJSON.isNull(value) {
            guard let n = ImportJSON.int(value), Limits.difficulty.contains(n) else {
                throw fail("\(dayAt).difficulty", "expected a difficulty from 1 to 5 or null, found \(shown(value))")
            }
            difficulty = n
        }
        let note = try optionalString(d, "note", at: dayAt)
        if let note { try check("\(dayAt).note") { try Validate.dayNote(note) } }
        // Answered as not done: optional (exports write it only where it is one).
        var notDone = false
        if let value = d["notDone"] {
            guard let b = ImportJSON.bool(value) else { throw fail("\(dayAt).notDone", "expected true or false, found \(shown(value))") }
            notDone = b
        }
        // Paused: optional (exports write it only where it is one), with an optional reason.
        var paused: String?
        if let value = d["paused"] {
            guard let b = ImportJSON.bool(value) else { throw fail("\(dayAt).paused", "expected true or false, found \(shown(value))") }
            if b { paused = try optionalString(d, "pauseReason", at: dayAt) ?? "" }
        }
        if let reason = paused, !reason.isEmpty { try check("\(dayAt).pauseReason") { try Validate.pauseReason(reason) } }
        // As if typed: nothing before the start date or from the archive date on (days
        // after today are refused when the import runs, see `Importer.targets`).
        if progress > 0 || skipped || difficulty != nil || note != nil || notDone || paused != nil {
            try check("\(dayAt).date") {
                try Edits.checkDay(habit, date, today: .latest, allowFuture: true)
            }
        }
        return ImportedDay(progress: progress, skipped: skipped, difficulty: difficulty, note: note,
                                 notDone: notDone && progress == 0 && !skipped, paused: paused)
    }

    /// The optional `definitions` list (see `Export.fields`): each definition's fields valid
    /// and going together, the first from null, the others from days after the start date in
    /// ascending order, and the last one the habit's own kind, goal, unit and schedule.
    func definitions(_ h: [String: Any], fields: HabitFields, at: String) throws -> [DatedRule] {
        guard let value = h["definitions"], !ImportJSON.isNull(value) else { return [] }
        guard let list = value as? [Any], !list.isEmpty else {
            throw fail(at, "expected a non-empty array of definitions, found \(shown(value))")
        }
        var out: [DatedRule] = []
        for (k, element) in list.enumerated() {
            let defAt = "\(at)[\(k)]"
            guard let d = element as? [String: Any] else {
                throw fail(defAt, "expected an object (a definition), found \(ImportJSON.describe(element))")
            }
            let fromText = try optionalString(d, "from", at: defAt)
            let from = try fromText.map { try day($0, "\(defAt).from") } ?? .earliest
            guard (k == 0) == (fromText == nil) else {
                throw fail("\(defAt).from", k == 0 ? "the first definition is from the start: null" : "expected the day it counts from")
            }
            if k > 0, from <= max(out[k - 1].from, fields.startDate) {
                throw fail("\(defAt).from", "\(from) must be after the start date and the definition before")
            }
            let kindText = try string(d, "kind", at: defAt)
            guard let kind = HabitKind(rawValue: kindText) else {
                throw fail("\(defAt).kind", "\(ImportJSON.quoted(kindText)) not understood: expected \"build\" or \"limit\"")
            }
            let scheduleText = try string(d, "schedule", at: defAt)
            let rule = HabitRule(kind: kind, goal: try amount(d, "goal", at: defAt), unit: try optionalString(d, "unit", at: defAt),
                                 schedule: try check("\(defAt).schedule") { try Schedule(parsing: scheduleText) })
            try check(defAt) { try rule.validate() }
            out.append(DatedRule(from: from, rule: rule))
        }
        guard out[out.count - 1].rule == fields.rule else {
            throw fail(at, "the last definition must be the habit's own kind, goal, unit and schedule")
        }
        return out
    }

    /// A group name, by the one rule local input uses (`Validate.group`).
    static func validateGroup(_ s: String) throws {
        do { try Validate.group(s) } catch let e as CoreError {
            throw CoreError.notAGroupName(shown: ImportJSON.quoted(s), e)
        }
    }

    // MARK: Values

    /// Runs a rule check, turning its error into an `ImportError` at `keyPath`.
    func check<T>(_ keyPath: String, _ body: () throws -> T) throws -> T {
        do { return try body() } catch { throw fail(keyPath, "\(error)") }
    }

    /// The optional `reminders` array of `HH:MM` strings, by the rule local input uses
    /// (`ReminderTime.parseList`); none when the member is missing or null.
    func reminderTimes(_ o: [String: Any], at: String) throws -> [ReminderTime] {
        guard let value = o["reminders"], !ImportJSON.isNull(value) else { return [] }
        guard let list = value as? [Any], let texts = list as? [String], !texts.contains(where: { $0.contains(",") }) else {
            throw fail(at, "expected an array of \"HH:MM\" strings, found \(shown(value))")
        }
        if texts.isEmpty { return [] }
        return try check(at) { try ReminderTime.parseList(texts.joined(separator: ",")) }
    }

    func string(_ o: [String: Any], _ key: String, at: String) throws -> String {
        guard let value = o[key], !ImportJSON.isNull(value) else { throw fail("\(at).\(key)", "missing") }
        guard let s = value as? String else { throw fail("\(at).\(key)", "expected a string, found \(shown(value))") }
        return s
    }

    /// A string or null; an absent key counts as null.
    func optionalString(_ o: [String: Any], _ key: String, at: String) throws -> String? {
        guard let value = o[key], !ImportJSON.isNull(value) else { return nil }
        guard let s = value as? String else { throw fail("\(at).\(key)", "expected a string or null, found \(shown(value))") }
        return s
    }

    func int(_ o: [String: Any], _ key: String, at: String) throws -> Int {
        guard let value = o[key], !ImportJSON.isNull(value) else { throw fail("\(at).\(key)", "missing") }
        guard let n = ImportJSON.int(value) else { throw fail("\(at).\(key)", "expected a whole number, found \(shown(value))") }
        return n
    }

    /// An amount: a number with at most three decimals, in thousandths.
    func amount(_ o: [String: Any], _ key: String, at: String) throws -> Int {
        guard let value = o[key], !ImportJSON.isNull(value) else { throw fail("\(at).\(key)", "missing") }
        guard let n = ImportJSON.amount(value) else {
            throw fail("\(at).\(key)", "expected a number with at most three decimals, found \(shown(value))")
        }
        return n
    }

    func day(_ text: String, _ keyPath: String) throws -> LocalDay {
        guard let d = LocalDay(text) else {
            throw fail(keyPath, "\(ImportJSON.quoted(text)) is not a day: expected YYYY-MM-DD between 1900-01-01 and 9999-12-31")
        }
        return d
    }

    /// A value for "found …": strings are quoted, other values described.
    func shown(_ v: Any) -> String {
        if let s = v as? String { return ImportJSON.quoted(s) }
        return ImportJSON.describe(v)
    }
}
