import FoundationEssentials
import HabitCore

extension LegacyDump {
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
        guard let n = ImportJSON.int(v), Limits.difficulty.contains(n) else {
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
}
