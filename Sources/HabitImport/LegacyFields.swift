import FoundationEssentials
import HabitCore

extension LegacyDump {
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
            guard Limits.everyNDays.contains(n) else { return nil }
            return n == 1 ? .daily : .everyNDays(n)
        }
        // "3 days a week", "3 times a week", "3 times per week"
        if words.count == 4, let n = Int(words[0]), ["day", "days", "time", "times"].contains(words[1]),
           ["a", "per", "each"].contains(words[2]), words[3] == "week" {
            guard Limits.timesPerWeek.contains(n) else { return nil }
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
        if kind == .limit, schedule.isQuota {
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
                    text = Self.replacingControls(text, keepNewlines: true)
                    disagree(keyPath, "contains control characters; replaced them with spaces")
                }
                text = ImportText.trimmed(text)
                let budget = 2000 - (baselineLine.map { $0.count + 1 } ?? 0)
                if text.count > budget {
                    disagree(keyPath, "is \(text.count) characters long; cut to the first \(budget)")
                    text = ImportText.trimmed(String(text.prefix(budget)))
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
}
