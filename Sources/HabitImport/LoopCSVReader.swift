import FoundationEssentials
import HabitCore
import HabitStore
#if canImport(Glibc)
import Glibc
import HabitSys
#endif

/// Reads Loop Habit Tracker's CSV export: `Habits.csv` and one folder per habit (`001 Name`)
/// holding `Checkmarks.csv`, as a folder or as Loop's `.zip`. Pure apart from reading the
/// files (and, for a zip, unpacking it into a temporary folder that is always removed):
/// nothing is written to the store.
public enum LoopCSVReader {
    /// The plan for the export at `path`: a folder holding `Habits.csv`, that `Habits.csv`
    /// itself, or Loop's `.zip`. Habits come in position order. Throws an `ImportError`
    /// naming the file and line, and what to do, when the export cannot be read at all;
    /// single rows that cannot be used are listed in `skipped` instead.
    public static func read(path: String) throws -> ImportPlan {
        let path = LoopSource.withoutTrailingSlash(path)
        switch LoopSource.kind(of: path) {
        case .directory:
            return try read(LoopSource(root: path, shown: path))
        case .habitsFile:
            let folder = path.pathParent
            return try read(LoopSource(root: folder.isEmpty ? "." : folder, shown: folder.isEmpty ? "." : folder))
        case .zip:
            return try LoopZip.withUnpacked(path) { try read($0) }
        case .other:
            throw ImportError("\(path): is not Loop's export; give the folder that holds Habits.csv, or Loop's .zip export")
        case .missing(let reason):
            throw ImportError("\(path): cannot be read (\(reason)); give Loop's export folder (holding Habits.csv) or its .zip")
        }
    }

    /// Reads the export whose files lie in `source`.
    static func read(_ source: LoopSource) throws -> ImportPlan {
        var notes = ImportNotes()
        let habitsBytes = try source.read("Habits.csv")
        let table = try CSVTable(habitsBytes, file: "Habits.csv", required: LoopHabitRow.required,
                                 expected: LoopHabitRow.expectedHeader)
        let rows = LoopHabitRow.rows(of: table, notes: &notes)
        let folders = try source.habitFolders()
        var files = [source.shown("Habits.csv")]
        var parts = [habitsBytes]
        var read: [(row: LoopHabitRow, marks: LoopCheckmarks)] = []
        for row in rows {
            let marks = try checkmarks(of: row, in: source, folders: folders, files: &files, parts: &parts, notes: &notes)
            read.append((row, marks))
        }
        LoopSource.noteUnused(folders, used: rows, notes: &notes)
        let habits = build(read, notes: &notes)
        var plan = ImportPlan(format: .loopCSV, files: files, digest: ImportSupport.digest(parts), habits: habits)
        plan.skipped = notes.skipped
        plan.disagreements = notes.disagreements
        return plan
    }

    /// The days in the habit's `Checkmarks.csv`, whose path and bytes are added to `files`
    /// and `parts`; no days (noted) when the habit has no folder or the folder no file.
    private static func checkmarks(of row: LoopHabitRow, in source: LoopSource, folders: [Int: [String]],
                                   files: inout [String], parts: inout [[UInt8]],
                                   notes: inout ImportNotes) throws -> LoopCheckmarks {
        guard let folder = LoopSource.folder(for: row, in: folders, notes: &notes) else {
            notes.skip(row.location, "no folder named '\(ImportText.shown(row.positionText)) …' holds this habit's Checkmarks.csv; the habit is imported without days")
            return LoopCheckmarks()
        }
        let relative = folder + "/Checkmarks.csv"
        guard source.exists(relative) else {
            notes.skip(row.location, "the folder '\(ImportText.shown(folder))' has no Checkmarks.csv; the habit is imported without days")
            return LoopCheckmarks()
        }
        let bytes = try source.read(relative)
        files.append(source.shown(relative))
        parts.append(bytes)
        return try LoopCheckmarks(bytes, file: relative, numerical: row.numerical, notes: &notes)
    }

    /// The imported habits, with start and archive dates from the days read.
    ///
    /// A habit starts on its first Checkmarks row; one with no rows starts on the day of
    /// the import (`ImportedHabit.startsOnImportDay`), so no missed days are invented.
    private static func build(_ read: [(row: LoopHabitRow, marks: LoopCheckmarks)],
                              notes: inout ImportNotes) -> [ImportedHabit] {
        var habits: [ImportedHabit] = []
        for (row, marks) in read {
            var fields = row.fields
            fields.startDate = marks.first ?? LocalDay(ordinal: 0)
            if row.archived { fields.archivedFrom = (marks.last ?? fields.startDate).adding(1) }
            if marks.autoDays > 0 {
                notes.skip(marks.file, "\(Plural.count(marks.autoDays, "YES_AUTO day")) (filled in by Loop from the frequency) not imported as check-ins; Habitto works such days out from the schedule")
            }
            do {
                try fields.validate()
            } catch {
                notes.skip(row.location, "\(error); habit not imported")
                continue
            }
            var habit = ImportedHabit(sourceKey: row.sourceKey, fields: fields, days: marks.days, location: row.location)
            habit.startsOnImportDay = marks.first == nil
            habits.append(habit)
        }
        return habits
    }
}

// MARK: - Habits.csv

/// One usable row of `Habits.csv`: the habit's fields apart from its dates.
struct LoopHabitRow {
    static let required = ["Position", "Name", "FrequencyNumerator", "FrequencyDenominator"]
    static let expectedHeader = "Position,Name,Type,Question,Description,FrequencyNumerator,FrequencyDenominator,Color,Unit,Target Type,Target Value,Archived?"

    let line: Int
    let position: Int
    /// The Position as written (`001`), which the habit's folder name starts with.
    let positionText: String
    /// The name as written (trimmed), which the folder name continues with.
    let sourceName: String
    let numerical: Bool
    /// Name, colour, kind, goal, unit, schedule, notes; the dates are placeholders.
    var fields: HabitFields
    let archived: Bool

    var location: String { "Habits.csv:\(line)" }
    /// `001 Meditate`: the position as written and the name, as Loop names the folder.
    var sourceKey: String { "\(positionText) \(sourceName)" }

    /// The usable rows in position order (then line order). Rows that cannot be used are
    /// noted as skipped; a later row with a position or name already taken is skipped or
    /// renamed.
    static func rows(of table: CSVTable, notes: inout ImportNotes) -> [LoopHabitRow] {
        var rows: [LoopHabitRow] = []
        var positions: [Int: Int] = [:]
        var names: [String: Int] = [:]
        for record in table.rows {
            guard var row = LoopHabitRow(record, table: table, notes: &notes) else { continue }
            if let other = positions[row.position] {
                notes.skip(row.location, "Position \(row.position) is already used by Habits.csv:\(other); habit not imported")
                continue
            }
            guard row.makeNameUnique(taken: names, notes: &notes) else { continue }
            positions[row.position] = row.line
            names[row.fields.name.lowercased()] = row.line
            rows.append(row)
        }
        return rows.sorted { ($0.position, $0.line) < ($1.position, $1.line) }
    }

    /// Reads one record; nil (with a skipped note) when it cannot be a habit.
    init?(_ record: CSVRecord, table: CSVTable, notes: inout ImportNotes) {
        let location = "Habits.csv:\(record.line)"
        let positionText = table.value(record, "Position")
        guard let position = Int(positionText), position >= 0 else {
            notes.skip(location, "Position '\(ImportText.shown(positionText))' is not a whole number; habit not imported")
            return nil
        }
        let sourceName = ImportText.trimmed(table.raw(record, "Name"))
        guard let (name, fixed) = ImportText.habitName(sourceName) else {
            notes.skip(location, "the name is empty or has nothing Habitto can use; habit not imported")
            return nil
        }
        if fixed {
            notes.disagree(location, "the name '\(ImportText.shown(sourceName))' is not a valid Habitto name (1–64 characters, no control or invisible characters); imported as '\(name)'")
        }
        let typeText = table.value(record, "Type")
        guard let numerical = LoopHabitRow.isNumerical(typeText) else {
            notes.skip(location, "Type '\(ImportText.shown(typeText))' is neither YES_NO nor NUMERICAL; habit not imported")
            return nil
        }
        var fields = HabitFields(name: name, startDate: LocalDay(ordinal: 0))
        if numerical { LoopHabitRow.target(record, table: table, location: location, fields: &fields, notes: &notes) }
        fields.color = LoopHabitRow.color(table.value(record, "Color"), location: location, notes: &notes)
        fields.unit = LoopHabitRow.unit(table.value(record, "Unit"), location: location, notes: &notes)
        fields.notes = LoopHabitRow.notes(record, table: table, location: location, notes: &notes)
        fields.schedule = LoopHabitRow.schedule(record, table: table, kind: fields.kind, location: location, notes: &notes)
        let archived = ["true", "1", "yes"].contains(table.value(record, "Archived?").lowercased())
        self.init(line: record.line, position: position, positionText: positionText, sourceName: sourceName,
                  numerical: numerical, fields: fields, archived: archived)
    }

    private init(line: Int, position: Int, positionText: String, sourceName: String, numerical: Bool,
                 fields: HabitFields, archived: Bool) {
        self.line = line; self.position = position; self.positionText = positionText
        self.sourceName = sourceName; self.numerical = numerical; self.fields = fields; self.archived = archived
    }

    /// YES_NO (or empty, or Loop's code 0) is false, NUMERICAL (or 1) true, anything else nil.
    static func isNumerical(_ type: String) -> Bool? {
        switch type.uppercased() {
        case "", "YES_NO", "0": return false
        case "NUMERICAL", "1": return true
        default: return nil
        }
    }

    /// Kind and goal of a numerical habit: AT_LEAST (or empty) is a build habit with goal
    /// target (1 when the target is 0); AT_MOST a limit habit with goal target, both kept
    /// to three decimals (the thousandths Loop stores amounts in).
    static func target(_ record: CSVRecord, table: CSVTable, location: String, fields: inout HabitFields,
                       notes: inout ImportNotes) {
        let typeText = table.value(record, "Target Type")
        switch typeText.uppercased() {
        case "", "AT_LEAST", "0": fields.kind = .build
        case "AT_MOST", "1": fields.kind = .limit
        default:
            fields.kind = .build
            notes.disagree(location, "Target Type '\(ImportText.shown(typeText))' is neither AT_LEAST nor AT_MOST; imported as a build habit (at least)")
        }
        let valueText = table.value(record, "Target Value")
        let minimum = fields.kind == .build ? 1 : 0
        guard let target = Double(valueText), target.isFinite, target >= 0 else {
            fields.goal = fields.kind == .build ? Amount.scale : 0
            notes.disagree(location, "Target Value '\(ImportText.shown(valueText))' is not a number; imported with goal \(Amount.format(fields.goal))")
            return
        }
        // Clamped as a Double first: Int(_:) traps on values beyond Int's range.
        let thousandths = target * Double(Amount.scale)
        var goal = Int(min(Double(Limits.maxGoal), max(0, thousandths.rounded())))
        if goal < minimum { goal = Amount.scale }
        fields.goal = goal
        if abs(Double(goal) - thousandths) > 1e-6 * max(1, thousandths) {
            notes.disagree(location, "Target Value \(valueText) imported as the goal \(Amount.format(goal))")
        }
    }

    /// `#RRGGBB` as written, else nil (a value that is not is noted).
    static func color(_ text: String, location: String, notes: inout ImportNotes) -> String? {
        guard !text.isEmpty else { return nil }
        let digits = text.dropFirst()
        if text.hasPrefix("#"), digits.count == 6, digits.allSatisfy(\.isHexDigit) { return text }
        notes.skip(location, "Color '\(ImportText.shown(text))' is not #RRGGBB; the habit has no colour")
        return nil
    }

    /// The unit when Habitto accepts it (1–24 characters), else nil (noted).
    static func unit(_ text: String, location: String, notes: inout ImportNotes) -> String? {
        guard !text.isEmpty else { return nil }
        if (try? Validate.unit(text)) != nil { return text }
        notes.skip(location, "Unit '\(ImportText.shown(text))' is not a valid Habitto unit (1–24 characters, no control characters); the habit has no unit")
        return nil
    }

    /// Question and Description joined by a newline; nil when both are empty.
    static func notes(_ record: CSVRecord, table: CSVTable, location: String, notes: inout ImportNotes) -> String? {
        let parts = [table.raw(record, "Question"), table.raw(record, "Description")]
            .map(ImportText.trimmed).filter { !$0.isEmpty }
        guard !parts.isEmpty else { return nil }
        let (text, problem) = ImportText.note(parts.joined(separator: "\n"))
        notes.disagree(location, problem.map { "habit notes: \($0)" })
        return text
    }

    /// The schedule for FrequencyNumerator / FrequencyDenominator, fitted to the kind.
    static func schedule(_ record: CSVRecord, table: CSVTable, kind: HabitKind, location: String,
                         notes: inout ImportNotes) -> Schedule {
        let numText = table.value(record, "FrequencyNumerator")
        let denText = table.value(record, "FrequencyDenominator")
        guard let num = Int(numText), let den = Int(denText), num >= 1, den >= 1 else {
            notes.disagree(location, "frequency '\(ImportText.shown(numText))/\(ImportText.shown(denText))' is not two whole numbers of at least 1; imported as daily")
            return .daily
        }
        let (schedule, problem) = ImportText.schedule(times: num, days: den)
        notes.disagree(location, problem)
        let (fitted, limitProblem) = ImportText.fitting(schedule, kind: kind)
        notes.disagree(location, limitProblem)
        return fitted
    }

    /// Habitto needs names that differ in more than case: a later habit whose name is
    /// taken becomes `Name (position)`. False (with a skipped note) when even that is taken.
    mutating func makeNameUnique(taken: [String: Int], notes: inout ImportNotes) -> Bool {
        guard let other = taken[fields.name.lowercased()] else { return true }
        let suffix = " (\(position))"
        let base = ImportText.trimmed(String(fields.name.prefix(ImportText.maxNameCharacters - suffix.count)))
        let renamed = base + suffix
        guard taken[renamed.lowercased()] == nil else {
            notes.skip(location, "the name '\(fields.name)' is already used by Habits.csv:\(other); habit not imported")
            return false
        }
        notes.disagree(location, "the name '\(fields.name)' is already used by Habits.csv:\(other) (Habitto names must differ); imported as '\(renamed)'")
        fields.name = renamed
        return true
    }
}

// MARK: - Checkmarks.csv

/// The days read from one habit's `Checkmarks.csv`.
struct LoopCheckmarks {
    /// The file's name relative to the export (`001 Meditate/Checkmarks.csv`).
    var file = ""
    var days: [LocalDay: ImportedDay] = [:]
    /// The earliest and latest day of any imported row, whatever its value.
    var first: LocalDay?
    var last: LocalDay?
    /// YES_AUTO rows, which are not check-ins.
    var autoDays = 0

    init() {}

    /// Reads every row; a row that cannot be used is noted as skipped with its line.
    init(_ bytes: [UInt8], file: String, numerical: Bool, notes: inout ImportNotes) throws {
        self.file = file
        let table = try CSVTable(bytes, file: file, required: ["Date", "Value"], expected: "Date,Value,Notes")
        var seen: [LocalDay: Int] = [:]
        for record in table.rows {
            let location = "\(file):\(record.line)"
            let dateText = table.value(record, "Date")
            guard let day = LocalDay(dateText) else {
                notes.skip(location, "date '\(ImportText.shown(dateText))' is not a real yyyy-MM-dd day; row not imported")
                continue
            }
            if let firstLine = seen[day] {
                notes.disagree(location, "a second row for \(day) (the first is line \(firstLine)); kept the first")
                continue
            }
            seen[day] = record.line
            let (note, problem) = ImportText.note(table.raw(record, "Notes"))
            notes.disagree(location, problem)
            let valueText = table.value(record, "Value")
            do {
                let entry = numerical
                    ? try LoopCheckmarks.amount(valueText, note: note, location: location, notes: &notes)
                    : try LoopCheckmarks.mark(valueText, note: note)
                if entry.auto { autoDays += 1 }
                if let imported = entry.day { days[day] = imported }
                first = min(first ?? day, day)
                last = max(last ?? day, day)
            } catch let reason as LoopRowReason {
                notes.skip(location, "\(reason.message); row not imported")
            }
        }
    }

    /// A yes/no value (by name or Loop's legacy number): YES_MANUAL (2) is a check-in;
    /// YES_AUTO (1) is not (only its note is kept); NO (0) and UNKNOWN (-1) keep only a
    /// note; SKIP (3) is a skipped day.
    static func mark(_ text: String, note: String?) throws -> (day: ImportedDay?, auto: Bool) {
        switch text.uppercased() {
        case "YES_MANUAL", "2": return (ImportedDay(progress: Amount.scale, note: note), false)
        case "YES_AUTO", "1": return (note.map { ImportedDay(note: $0) }, true)
        case "NO", "0", "UNKNOWN", "-1": return (note.map { ImportedDay(note: $0) }, false)
        case "SKIP", "3": return (ImportedDay(skipped: true, note: note), false)
        default:
            throw LoopRowReason(message: "value '\(ImportText.shown(text))' is not YES_MANUAL, YES_AUTO, NO, SKIP or UNKNOWN")
        }
    }

    /// A numerical value: thousandths (2500 is 2.5), kept exactly (Habitto's amounts are
    /// thousandths too). SKIP and UNKNOWN are accepted as for yes/no habits.
    static func amount(_ text: String, note: String?, location: String,
                       notes: inout ImportNotes) throws -> (day: ImportedDay?, auto: Bool) {
        switch text.uppercased() {
        case "SKIP": return (ImportedDay(skipped: true, note: note), false)
        case "UNKNOWN": return (note.map { ImportedDay(note: $0) }, false)
        default: break
        }
        guard let thousandths = Int(text) else {
            throw LoopRowReason(message: "value '\(ImportText.shown(text))' is not a whole number (Loop writes amounts in thousandths)")
        }
        guard thousandths >= 0 else { throw LoopRowReason(message: "value \(thousandths) is negative") }
        if thousandths == 0 && note == nil { return (nil, false) }
        return (ImportedDay(progress: thousandths, note: note), false)
    }
}

/// Why one Checkmarks row was not imported.
struct LoopRowReason: Error {
    let message: String
}

// MARK: - Files

/// Where an export's files lie (`root`) and how the plan names them (`shown`: the folder
/// given, or the zip for an unpacked zip).
struct LoopSource {
    let root: String
    let shownRoot: String

    init(root: String, shown: String) { self.root = root; self.shownRoot = shown }

    /// What a path given to the reader is.
    enum Kind { case directory, habitsFile, zip, other, missing(String) }

    /// What `path` is: a folder, a `Habits.csv`, a zip (by name or by its `PK` signature).
    static func kind(of path: String) -> Kind {
        var st = stat()
        do { try sysCall("stat") { stat(path, &st) } } catch { return .missing(error.reason) }
        if (st.st_mode & S_IFMT) == S_IFDIR { return .directory }
        guard (st.st_mode & S_IFMT) == S_IFREG else { return .other }
        if path.pathLastComponent.lowercased() == "habits.csv" { return .habitsFile }
        if path.lowercased().hasSuffix(".zip") { return .zip }
        return startsWithZipSignature(path) ? .zip : .other
    }

    /// Whether the file begins with a zip's local file header (`PK\u{3}\u{4}`).
    private static func startsWithZipSignature(_ path: String) -> Bool {
        guard let fd = try? Sys.open(path, O_RDONLY | O_NONBLOCK) else { return false }
        defer { Sys.close(fd) }
        return (try? Sys.pread(fd, count: 4, offset: 0, path: path)) == [0x50, 0x4B, 0x03, 0x04]
    }

    /// The path without trailing slashes (`/` stays `/`).
    static func withoutTrailingSlash(_ path: String) -> String {
        var p = path
        while p.count > 1 && p.hasSuffix("/") { p.removeLast() }
        return p
    }

    /// The plan's name for a file of the export.
    func shown(_ relative: String) -> String { shownRoot + "/" + relative }

    /// Whether a file of the export exists.
    func exists(_ relative: String) -> Bool {
        Sys.status(followingLinks: root + "/" + relative) != nil
    }

    /// The file's bytes (at most `ImportSupport.maxFileBytes`); errors name the file as
    /// the plan does.
    func read(_ relative: String) throws -> [UInt8] {
        do {
            return try ImportSupport.read(root + "/" + relative)
        } catch let error as ImportError where root != shownRoot {
            throw ImportError(error.message.replacingAll(root, with: shownRoot))
        }
    }

    /// The export's habit folders (`001 Meditate`) by the position their name starts with.
    func habitFolders() throws -> [Int: [String]] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: root) else {
            throw ImportError("\(shownRoot): cannot list the folder; check its permissions")
        }
        var folders: [Int: [String]] = [:]
        for entry in entries.sorted() {
            guard let position = LoopSource.position(ofFolder: entry) else { continue }
            guard let st = Sys.status(followingLinks: root + "/" + entry), (st.st_mode & S_IFMT) == S_IFDIR else { continue }
            folders[position, default: []].append(entry)
        }
        return folders
    }

    /// The number a folder name starts with, when digits are followed by a space.
    static func position(ofFolder name: String) -> Int? {
        let digits = name.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, name.dropFirst(digits.count).first == " " else { return nil }
        return Int(digits)
    }

    /// The folder of a habit: the one whose name starts with its position (the one that
    /// continues with its name when several do, noted).
    static func folder(for row: LoopHabitRow, in folders: [Int: [String]], notes: inout ImportNotes) -> String? {
        guard let candidates = folders[row.position], let first = candidates.first else { return nil }
        guard candidates.count > 1 else { return first }
        let chosen = candidates.first { $0.drop { $0 != " " }.dropFirst() == row.sourceName } ?? first
        notes.disagree(row.location, "\(candidates.count) folders start with position \(row.positionText); read '\(ImportText.shown(chosen))'")
        return chosen
    }

    /// Notes habit folders that no row of Habits.csv names.
    static func noteUnused(_ folders: [Int: [String]], used rows: [LoopHabitRow], notes: inout ImportNotes) {
        let positions = Set(rows.map(\.position))
        for (position, names) in folders.sorted(by: { $0.key < $1.key }) where !positions.contains(position) {
            for name in names {
                notes.skip(name, "no habit in Habits.csv has position \(position); folder not read")
            }
        }
    }
}
