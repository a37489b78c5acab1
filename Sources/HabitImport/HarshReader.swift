import FoundationEssentials
import HabitCore
#if canImport(Glibc)
import Glibc
import HabitStore
import HabitSys
#endif

/// Reads harsh's configuration: the `habits` file (`Name: frequency` lines under
/// `! Group` headings) and the `log` file (`YYYY-MM-DD : Habit : y|n|s : comment : amount`).
/// Pure apart from reading the two files: nothing is written to the store.
public enum HarshReader {
    /// The plan for harsh's folder at `path` (holding `habits` and `log`), or for its
    /// `habits` file (the `log` next to it is read). Habits come in file order. Throws an
    /// `ImportError` naming `habits:LINE` and what is expected when the habits file cannot
    /// be read; log lines that cannot be used are listed in `skipped` instead.
    public static func read(path: String) throws -> ImportPlan {
        let (habitsPath, logPath) = try files(at: path)
        var notes = ImportNotes()
        let habitsBytes = try ImportSupport.read(habitsPath)
        let definitions = try HarshHabit.parse(habitsBytes, notes: &notes)
        var files = [habitsPath]
        var parts = [habitsBytes]
        var log = HarshLog()
        if Sys.status(followingLinks: logPath) != nil {
            let logBytes = try ImportSupport.read(logPath)
            files.append(logPath); parts.append(logBytes)
            log = HarshLog(logBytes, habits: Set(definitions.map(\.sourceName)), notes: &notes)
        } else {
            notes.skip("log", "\(logPath) does not exist; the habits are imported without days")
        }
        var plan = ImportPlan(format: .harsh, files: files, digest: ImportSupport.digest(parts),
                              habits: build(definitions, log: log, notes: &notes))
        plan.skipped = notes.skipped
        plan.disagreements = notes.disagreements
        return plan
    }

    /// The habits and log files for a folder or for a habits file.
    static func files(at path: String) throws -> (habits: String, log: String) {
        var st = stat()
        do { try sysCall("stat") { stat(path, &st) } } catch {
            throw ImportError("\(path): cannot be read (\(error.reason)); give harsh's folder (~/.config/harsh) or its habits file")
        }
        if (st.st_mode & S_IFMT) == S_IFDIR {
            let folder = path.hasSuffix("/") ? String(path.dropLast()) : path
            return (folder + "/habits", folder + "/log")
        }
        let folder = path.pathParent
        return (path, (folder.isEmpty ? "." : folder) + "/log")
    }

    /// The imported habits with their days and start dates.
    ///
    /// A habit starts on its first log line; one with no log lines starts on the day of the
    /// import (`ImportedHabit.startsOnImportDay`), so no missed days are invented.
    private static func build(_ definitions: [HarshHabit], log: HarshLog, notes: inout ImportNotes) -> [ImportedHabit] {
        var habits: [ImportedHabit] = []
        for definition in definitions {
            let first = log.first[definition.sourceName]
            var fields = HabitFields(name: definition.name, schedule: definition.schedule,
                                     startDate: first ?? LocalDay(ordinal: 0))
            fields.kind = .build
            fields.goal = Amount.scale
            do {
                try fields.validate()
            } catch {
                notes.skip(definition.location, "\(error); habit not imported")
                continue
            }
            var habit = ImportedHabit(sourceKey: definition.sourceName, fields: fields, group: definition.group,
                                      days: log.days[definition.sourceName] ?? [:], location: definition.location)
            habit.startsOnImportDay = first == nil
            habits.append(habit)
        }
        return habits
    }
}

// MARK: - habits

/// One habit line of harsh's habits file.
struct HarshHabit {
    let line: Int
    /// The name as harsh writes it in the log.
    let sourceName: String
    /// The name Habitto gets (the same unless it had to be fixed).
    let name: String
    let group: String?
    let schedule: Schedule

    var location: String { "habits:\(line)" }

    /// Every habit in the file, in order. Throws `habits:LINE: …` for a line that is not
    /// a comment, a heading or `Name: frequency`, and for a name used twice (any case).
    static func parse(_ bytes: [UInt8], notes: inout ImportNotes) throws -> [HarshHabit] {
        var habits: [HarshHabit] = []
        var group: String?
        var lines: [String: Int] = [:]
        for (index, raw) in HarshText.lines(bytes).enumerated() {
            let number = index + 1
            let text = ImportText.trimmed(raw)
            if text.isEmpty || text.hasPrefix("#") { continue }
            if text.hasPrefix("!") {
                let heading = ImportText.trimmed(String(text.dropFirst()))
                let cleaned = ImportText.groupName(heading)
                group = cleaned?.name
                if let cleaned, cleaned.fixed {
                    notes.disagree("habits:\(number)", "the heading '\(ImportText.shown(heading))' is not a valid Habitto group (1–32 characters, no control or invisible characters); used '\(cleaned.name)'")
                } else if cleaned == nil, !heading.isEmpty {
                    notes.disagree("habits:\(number)", "the heading '\(ImportText.shown(heading))' cannot be a Habitto group; the habits under it have none")
                }
                continue
            }
            let habit = try HarshHabit(text, line: number, group: group, notes: &notes)
            if let other = lines[habit.name.lowercased()] {
                throw ImportError("habits:\(number): the habit '\(ImportText.shown(habit.name))' is already defined on habits:\(other); Habitto needs distinct names (case does not count): rename or remove one")
            }
            lines[habit.name.lowercased()] = number
            habits.append(habit)
        }
        return habits
    }

    /// One `Name: frequency` line (trimmed); the name is everything before the last `: `.
    init(_ text: String, line: Int, group: String?, notes: inout ImportNotes) throws {
        let location = "habits:\(line)"
        guard let separator = text.scalarRange(of: ": ", last: true) else {
            throw ImportError("\(location): expected 'Name: frequency' (for example 'Gym: 3/7'), a '! Group' heading or a '# comment'; fix the line")
        }
        let sourceName = ImportText.trimmed(String(text.unicodeScalars[..<separator.lowerBound]))
        guard let (name, fixed) = ImportText.habitName(sourceName) else {
            throw ImportError("\(location): the habit name is empty; expected 'Name: frequency' (for example 'Gym: 3/7')")
        }
        if fixed {
            notes.disagree(location, "the name '\(ImportText.shown(sourceName))' is not a valid Habitto name (1–64 characters, no control or invisible characters); imported as '\(name)'")
        }
        let (schedule, problem) = try HarshHabit.schedule(ImportText.trimmed(String(text.unicodeScalars[separator.upperBound...])), location: location)
        notes.disagree(location, problem)
        self.line = line; self.sourceName = sourceName; self.name = name; self.group = group; self.schedule = schedule
    }

    /// `N` (every N days; 1 daily; 0 tracking only, imported as 1/week), `Nw` (N times a
    /// week) or `T/N` (T times in N days); a message when there is no exact equivalent.
    static func schedule(_ text: String, location: String) throws -> (schedule: Schedule, problem: String?) {
        if let days = Int(text), days >= 0, text.first?.isNumber == true {
            guard days > 0 else {
                return (.perWeek(1), "frequency 0 (tracking only, never due) has no Habitto equivalent; imported as 1/week, so change it with `habitto edit` if that does not fit")
            }
            return ImportText.everyNDays(days)
        }
        if text.lowercased().hasSuffix("w"), let times = Int(text.dropLast()), Limits.timesPerWeek.contains(times),
           text.first?.isNumber == true {
            return (times == 7 ? .daily : .perWeek(times), nil)
        }
        let pair = text.split(separator: "/", omittingEmptySubsequences: false)
        if pair.count == 2, let times = Int(pair[0]), let days = Int(pair[1]), times >= 1, days >= 1,
           pair[0].first?.isNumber == true, pair[1].first?.isNumber == true {
            return ImportText.schedule(times: times, days: days)
        }
        throw ImportError("\(location): frequency '\(ImportText.shown(text))' not understood; use N (every N days, 0 for tracking only), Nw (N times a week, 1–7) or T/N (T times in N days, both at least 1)")
    }
}

// MARK: - log

/// The days read from harsh's log file, by harsh habit name.
struct HarshLog {
    var days: [String: [LocalDay: ImportedDay]] = [:]
    /// The earliest day of any usable line of each habit, whatever its status.
    var first: [String: LocalDay] = [:]

    init() {}

    /// Reads every line; a line that cannot be used is noted as skipped (`log:LINE`), and a
    /// later line for the same habit and day replaces the earlier one (noted).
    init(_ bytes: [UInt8], habits: Set<String>, notes: inout ImportNotes) {
        var lines: [String: [LocalDay: Int]] = [:]
        for (index, raw) in HarshText.lines(bytes).enumerated() {
            let location = "log:\(index + 1)"
            let text = ImportText.trimmed(raw)
            if text.isEmpty || text.hasPrefix("#") { continue }
            let entry: HarshLogEntry
            switch HarshLogEntry.parse(text, habits: habits) {
            case .success(let parsed): entry = parsed
            case .failure(let reason):
                notes.skip(location, "\(reason.message); line not imported")
                continue
            }
            if let earlier = lines[entry.habit]?[entry.day] {
                notes.disagree(location, "a second line for '\(ImportText.shown(entry.habit))' on \(entry.day) (the first is log:\(earlier)); kept this later one")
            }
            lines[entry.habit, default: [:]][entry.day] = index + 1
            first[entry.habit] = min(first[entry.habit] ?? entry.day, entry.day)
            days[entry.habit, default: [:]][entry.day] = entry.imported(location: location, notes: &notes)
        }
    }
}

/// One usable log line.
struct HarshLogEntry {
    let day: LocalDay
    let habit: String
    /// `y`, `n` or `s`.
    let status: Character
    let comment: String
    /// The amount as written, when it is a number other than zero.
    let amount: String?

    /// The line as harsh writes it (` : ` between fields), else split at every `:` with
    /// any spaces around it; the first reading that names a real day, a known habit and a
    /// status wins.
    static func parse(_ text: String, habits: Set<String>) -> Result<HarshLogEntry, HarshLogReason> {
        var reason: HarshLogReason?
        for separator in [" : ", ":"] {
            let fields = text.components(separatedBy: separator).map(ImportText.trimmed)
            guard fields.count >= 3 else { continue }
            switch entry(fields, separator: separator, habits: habits) {
            case .success(let entry): return .success(entry)
            case .failure(let failure): reason = reason ?? failure
            }
        }
        return .failure(reason ?? HarshLogReason(message: "expected 'YYYY-MM-DD : Habit : y|n|s' with an optional ': comment : amount'"))
    }

    /// Reads the fields of one split of a line: date, habit, status, then the comment and
    /// (when the last field is a number) the amount.
    private static func entry(_ fields: [String], separator: String,
                              habits: Set<String>) -> Result<HarshLogEntry, HarshLogReason> {
        guard let day = LocalDay(fields[0]) else {
            return .failure(HarshLogReason(message: "date '\(ImportText.shown(fields[0]))' is not a real YYYY-MM-DD day"))
        }
        guard habits.contains(fields[1]) else {
            return .failure(HarshLogReason(message: "no habit named '\(ImportText.shown(fields[1]))' in the habits file"))
        }
        let statusText = fields[2].lowercased()
        guard statusText.count == 1, let status = statusText.first, "yns".contains(status) else {
            return .failure(HarshLogReason(message: "status '\(ImportText.shown(fields[2]))' is not y, n or s"))
        }
        var rest = Array(fields.dropFirst(3))
        var amount: String?
        if rest.count >= 2, let last = rest.last, let value = Double(last), value.isFinite {
            rest.removeLast()
            amount = value == 0 ? nil : last
        }
        return .success(HarshLogEntry(day: day, habit: fields[1], status: status,
                                      comment: rest.joined(separator: separator), amount: amount))
    }

    /// The note: the comment, with ` (amount X)` after it when there is an amount, or
    /// `amount X` alone when there is no comment.
    var noteText: String {
        switch (comment.isEmpty, amount) {
        case (true, nil): return ""
        case (true, let amount?): return "amount \(amount)"
        case (false, nil): return comment
        case (false, let amount?): return "\(comment) (amount \(amount))"
        }
    }

    /// The day: `y` progress 1 (one unit), `s` skipped, `n` progress 0 (nil without a note).
    func imported(location: String, notes: inout ImportNotes) -> ImportedDay? {
        let (note, problem) = ImportText.note(noteText)
        notes.disagree(location, problem)
        switch status {
        case "y": return ImportedDay(progress: Amount.scale, note: note)
        case "s": return ImportedDay(skipped: true, note: note)
        default: return note.map { ImportedDay(note: $0) }
        }
    }
}

/// Why a log line was not imported.
struct HarshLogReason: Error {
    let message: String
}

/// Line splitting for harsh's plain-text files.
enum HarshText {
    /// The file's lines (LF or CRLF), without their line ends.
    static func lines(_ bytes: [UInt8]) -> [String] {
        // Split the bytes, not the String: a String holds CRLF as one Character.
        bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { line in
            String(decoding: line.last == UInt8(ascii: "\r") ? line.dropLast() : line, as: UTF8.self)
        }
    }
}
