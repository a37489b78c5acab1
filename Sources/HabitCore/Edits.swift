/// The rules every front end (command line, terminal UI) follows to turn a user's request
/// into changes. Each function reads the state and returns the changes to write, or throws
/// a `CoreError` that says what to do; nothing is written on a throw.
public enum Edits {
    /// Finds a habit by id (16 hex characters: always exactly that habit), whole name (any
    /// case), prefix of the name or of the id (4+ characters), or prefix of a word of the name.
    /// A whole name that one habit has selects it, even when it also starts other names; else
    /// prefixes are tried, words last. Whatever fits more than one habit is refused, with
    /// each match's id, group and start date (see `ambiguous`): a merge can leave two habits
    /// with one name, and a command must not pick one of them silently.
    public static func find(_ query: String, in state: HabitState) throws -> Habit {
        guard !query.isEmpty else { throw CoreError.noHabitGiven }
        if let id = HabitID(query), let h = state.habit(id) { return h }
        let lower = query.lowercased()
        // The usual case, a whole name, without putting every habit in order first.
        let named = state.habits(namedLowercased: lower)
        if named.count == 1 { return named[0] }
        let habits = state.habits
        var matches = habits.filter { $0.name.lowercased() == lower }
        if matches.isEmpty {
            matches = habits.filter { $0.name.lowercased().hasPrefix(lower) || (lower.count >= 4 && $0.id.rawValue.hasPrefix(lower)) }
        }
        if matches.isEmpty {
            matches = habits.filter { h in
                h.name.lowercased().split(whereSeparator: { $0 == " " || $0 == "-" }).contains { $0.hasPrefix(lower) }
            }
        }
        if matches.count == 1 { return matches[0] }
        if matches.count > 1 { throw ambiguous(query, matches) }
        throw CoreError.habitNotFound(query: query, nearest: Suggest.nearest(query, among: habits.map(\.name)))
    }

    /// The refusal of a name that fits several habits: one line naming each match (up to
    /// eight) by id, group and start date, and how to pick one.
    static func ambiguous(_ query: String, _ matches: [Habit]) -> CoreError { .ambiguous(query: query, matches: matches) }

    /// The habits that share their whole name (any case) with another, one list per name, in
    /// the order of `habits`: what `find` refuses by that name, the UI marks and the doctor names.
    public static func namesakes(_ habits: [Habit]) -> [[Habit]] {
        var byName: [String: [Habit]] = [:]
        for h in habits { byName[h.name.lowercased(), default: []].append(h) }
        var out: [[Habit]] = []
        var listed = Set<String>()
        for h in habits {
            let key = h.name.lowercased()
            if let group = byName[key], group.count > 1, listed.insert(key).inserted { out.append(group) }
        }
        return out
    }

    /// For each habit that shares its name, the shortest prefix of its id (4 characters or
    /// more) that no namesake's id starts with: what the UI shows beside the name, and what
    /// picks the habit on the command line.
    public static func namesakeTags(_ habits: [Habit]) -> [HabitID: String] {
        var tags: [HabitID: String] = [:]
        for group in namesakes(habits) {
            for h in group {
                let id = h.id.rawValue
                let others = group.filter { $0.id != h.id }.map(\.id.rawValue)
                let n = (4...16).first { n in !others.contains { $0.hasPrefix(id.prefix(n)) } } ?? 16
                tags[h.id] = String(id.prefix(n))
            }
        }
        return tags
    }

    /// " #0de7" for a habit that shares its name (its tag from `namesakeTags`), "" for the others:
    /// what follows the name wherever a habit is a row or a title.
    public static func namesakeSuffix(_ id: HabitID, _ tags: [HabitID: String]) -> String {
        tags[id].map { " #" + $0 } ?? ""
    }

    /// A habit's name as a row label or a title shows it: "Stretch", or "Stretch #0de7" when
    /// another habit has the same name (`tags` from `namesakeTags`). Not sanitized.
    public static func label(_ h: Habit, tags: [HabitID: String]) -> String { h.name + namesakeSuffix(h.id, tags) }

    /// "(group Health, from 2026-11-01)": what tells apart habits that share a name.
    public static func whereAndWhen(_ h: Habit) -> String {
        "(\(h.fields.group.map { "group \(Sanitize.display($0))" } ?? "no group"), from \(h.startDate))"
    }

    static func title(_ h: Habit) -> String { "'\(Sanitize.display(h.name))'" }

    /// Throws when another existing habit already has this name (any case).
    public static func ensureUnique(_ name: String, in state: HabitState, except: HabitID?) throws {
        let lower = name.lowercased()
        if let other = state.habits.first(where: { $0.id != except && $0.name.lowercased() == lower }) {
            throw CoreError.duplicateName(other.name)
        }
    }

    /// Throws when progress, a rating or (with `allowFuture`) a skip cannot be recorded on `day`;
    /// `what` names what is recorded in the message about a future day ("check-ins", "notes").
    public static func checkDay(_ habit: Habit, _ day: LocalDay, today: LocalDay, allowFuture: Bool = false,
                                what: String = "check-ins") throws {
        if day < habit.startDate {
            throw CoreError.beforeStart(habit: habit.name, day: day, start: habit.startDate)
        }
        if day > today && !allowFuture {
            throw CoreError.inFuture(day: day, today: today, what: what)
        }
        if let from = habit.fields.archivedFrom, day >= from {
            throw CoreError.archivedFrom(habit: habit.name, from: from)
        }
    }

    /// Whether local input may record a day's values on `day`: progress, a rating or a note
    /// from the start date through today and before the archive date; a skip on any such
    /// day or a later one. What a merge brings outside these (a check-in made before another
    /// device moved the start date, a day ahead of this device's clock) is kept but counts
    /// for nothing, and an export leaves it out.
    public static func isRecordable(_ habit: Habit, _ day: LocalDay, today: LocalDay, skip: Bool = false) -> Bool {
        (try? checkDay(habit, day, today: today, allowFuture: skip)) != nil
    }

    /// A new habit (fields validated, name unique).
    public static func add(_ id: HabitID, _ fields: HabitFields, in state: HabitState) throws -> [Change] {
        try fields.validate()
        try ensureUnique(fields.name, in: state, except: nil)
        return [.create(id, fields)]
    }

    /// Changes a habit's fields to `fields`: one change per field that differs. The rule
    /// fields (kind, goal, unit, schedule) change from `from` on, so that the days before it
    /// keep the definition they were judged by; from the start (every day) when `from` is
    /// nil or not after the start date. A rule field changed from a day holds on every day
    /// from it on: its settings from later days are replaced too. Only the rule fields whose
    /// value differs from the current one change, and those in `asked` (indices, see
    /// `FieldValue.index`: fields the user named, to be set from `from` on even when the
    /// current value is already theirs, as a correction from the start); a rule field that
    /// already has the value on every day from `from` on gives no change.
    public static func update(_ habit: Habit, to fields: HabitFields, from: LocalDay? = nil, asked: Set<Int> = [],
                              in state: HabitState) throws -> [Change] {
        let day = from.flatMap { $0 > fields.startDate ? $0 : nil }
        // A definition that does not hold together names the day it would count from (the
        // start date for a change from the start), as `validateDefinitions` does.
        do { try fields.rule.validate() } catch let error as CoreError {
            throw CoreError.inDefinition(error, from: day ?? fields.startDate)
        }
        try fields.validate()
        if fields.name != habit.name { try ensureUnique(fields.name, in: state, except: habit.id) }
        // The habit with its history (a caller may hold it as defined on one day).
        let current = state.habit(habit.id) ?? habit
        let dated = state.entries[habit.id]?.dated ?? [:]
        // The definitions in force on some day from `day` on.
        let definitions = current.definitions
        let affected = definitions.indices.filter { k in
            day.map { k + 1 == definitions.count || definitions[k + 1].from > $0 } ?? true
        }.map { definitions[$0].rule }
        var changes: [Change] = []
        for (old, new) in zip(FieldValue.all(of: current.fields), FieldValue.all(of: fields)) {
            guard HabitRule.fieldIndices.contains(new.index) else {
                if old != new { changes.append(.set(habit.id, new)) }
                continue
            }
            guard old != new || asked.contains(new.index) else { continue }
            var read = current.fields
            let differs = affected.contains { rule in rule.apply(to: &read); return FieldValue.current(index: new.index, of: read) != new }
            guard differs else { continue }
            changes.append(day.map { .setFrom(habit.id, $0, new) } ?? .set(habit.id, new))
            for (key, register) in dated.sorted(by: { $0.key < $1.key })
            where key.index == new.index && key.day > (day ?? .earliest) && key.day != day
                && register.value != nil && register.value != new {
                changes.append(.setFrom(habit.id, key.day, new))
            }
        }
        try validateDefinitions(habit.id, after: changes, from: day, in: state)
        return changes
    }

    /// Throws when `changes` would leave a definition in force from `from` on (every one
    /// when nil) whose fields do not go together (a limit habit counted per week, say).
    static func validateDefinitions(_ id: HabitID, after changes: [Change], from: LocalDay?, in state: HabitState) throws {
        guard var entry = state.entries[id] else { return }
        let newest = Stamp(hlc: HLC(wallMillis: .max, counter: .max), device: DeviceID(hi: .max, lo: .max))
        for change in changes {
            switch change {
            case .set(_, let value): entry.merge(value, newest)
            case .setFrom(_, let d, let value): entry.mergeDated(d, value, newest)
            case .clearFrom(_, let d, let index): entry.mergeDated(d, index, nil, newest)
            default: break
            }
        }
        let days = [from ?? .earliest] + entry.dated.keys.map(\.day).filter { $0 > (from ?? .earliest) }
        for d in Set(days) {
            var f = entry.fields
            for i in HabitRule.fieldIndices { entry.ruleValue(index: i, on: d).apply(to: &f) }
            do { try f.rule.validate() } catch let error as CoreError where from != nil || d != .earliest {
                throw CoreError.inDefinition(error, from: max(d, from ?? d))
            }
        }
    }

    /// Adds `amount` (> 0) of progress; a skipped day is un-skipped (the habit was done after
    /// all); an optional difficulty is recorded with it. On a yes/no habit's day that already
    /// shows done the answer is recorded again, as a set step to done (`Change.setProgress`
    /// to one): in stamp order it overrides an earlier uncheck from another device, so the
    /// later of two answers wins; any amount on a yes/no day reads as done, 1/1.
    public static func checkIn(_ habit: Habit, on day: LocalDay, amount: Int, difficulty: Int? = nil,
                               today: LocalDay, in state: HabitState) throws -> [Change] {
        let habit = habit.on(day)
        try checkDay(habit, day, today: today)
        let progress = state.progress(habit.id, day)
        if habit.isYesNo && isDone(habit, on: day, in: state) {
            // Checking in on a skipped (or paused) day un-skips it, also when it holds its 1/1 already.
            let unskip = unskipping(habit.id, day, in: state)
            let answer: [Change] = [.setProgress(habit.id, day, total: Amount.scale)]
            return try unskip + answer + (difficulty.map { try rate(habit, on: day, $0, today: today, in: state) } ?? [])
        }
        guard amount <= Limits.maxDayProgress - progress else {
            throw CoreError.dayFull(habit: habit.name, progress: progress, adding: amount, day: day)
        }
        var changes = unskipping(habit.id, day, in: state)
        changes.append(.progress(habit.id, day, delta: amount))
        if let difficulty { changes.append(.rate(habit.id, day, difficulty)) }
        return changes
    }

    /// Takes back up to `amount` of progress; throws when there is none. For a yes/no habit
    /// it marks the day not done: one change of `-Limits.maxDayProgress`, which takes back
    /// everything recorded before it in stamp order, on any device (see `Intent.toggle`).
    public static func uncheck(_ habit: Habit, on day: LocalDay, amount: Int, today: LocalDay,
                               in state: HabitState) throws -> [Change] {
        let habit = habit.on(day)
        try checkDay(habit, day, today: today)
        let progress = state.progress(habit.id, day)
        guard progress > 0 else { throw CoreError.nothingToTakeBack(habit: habit.name, day: day) }
        if habit.isYesNo { return [.progress(habit.id, day, delta: -Limits.maxDayProgress)] }
        return [.progress(habit.id, day, delta: -min(amount, progress))]
    }

    /// Sets the day's progress to `total` (>= 0) as one progress change of the difference
    /// (one undo step); no change when it already is so. Raising it follows `checkIn` (a
    /// skipped day is un-skipped), lowering it follows `uncheck`.
    public static func setTotal(_ habit: Habit, on day: LocalDay, _ total: Int, today: LocalDay,
                                in state: HabitState) throws -> [Change] {
        guard total >= 0 else { throw CoreError.negativeTotal }
        guard total <= Limits.maxDayProgress else { throw CoreError.totalTooLarge(total) }
        try checkDay(habit, day, today: today)
        let progress = state.progress(habit.id, day)
        if total > progress { return try checkIn(habit, on: day, amount: total - progress, today: today, in: state) }
        if total < progress { return try uncheck(habit, on: day, amount: progress - total, today: today, in: state) }
        return []
    }

    /// Whether a yes/no habit's day (or any build habit's) holds its goal.
    public static func isDone(_ habit: Habit, on day: LocalDay, in state: HabitState) -> Bool {
        let habit = habit.on(day)
        return habit.kind == .build && state.progress(habit.id, day) >= habit.goal
    }

    /// Skips or un-skips a day; no change when it already is so. Future days may be skipped.
    /// A day a weekday or every-N-days habit is not due on cannot be skipped: there is nothing
    /// to excuse, and the refusal says so (an N-per-week habit's quota is per week, so any of
    /// its days may be skipped).
    public static func setSkipped(_ habit: Habit, on day: LocalDay, _ skipped: Bool, today: LocalDay,
                                  in state: HabitState) throws -> [Change] {
        try checkDay(habit, day, today: today, allowFuture: true)
        // Also on a day skipped already (before a schedule change made it not due): the rule
        // says exit 1 on every day not due; unskip stays allowed, to clear such a skip.
        if skipped, !habit.on(day).schedule.isQuota, !state.isDue(habit, on: day) {
            throw CoreError.notDue(habit: habit.name, day: day, schedule: habit.schedule)
        }
        // The skip register alone: a pause over the day is its own (see `Pauses`).
        return (state.record(habit.id, day)?.isSkipRegisterOn ?? false) == skipped ? [] : [.skip(habit.id, day, skipped)]
    }

    /// What recording progress on a skipped day writes first: the skip withdrawn, and a
    /// paused day given back (that one day leaves its pause), so that the day counts.
    public static func unskipping(_ id: HabitID, _ day: LocalDay, in state: HabitState) -> [Change] {
        guard let rec = state.record(id, day) else { return [] }
        return (rec.isSkipRegisterOn ? [.skip(id, day, false)] : []) + (rec.isPaused ? [.pause(id, from: day, to: day, reason: nil)] : [])
    }

    /// Sets (1–5) or clears (nil) the day's difficulty; no change when it already is so.
    public static func rate(_ habit: Habit, on day: LocalDay, _ rating: Int?, today: LocalDay,
                            in state: HabitState) throws -> [Change] {
        if let rating, !Limits.difficulty.contains(rating) { throw CoreError.difficultyOutOfRange(given: nil) }
        try checkDay(habit, day, today: today, what: "ratings")
        return state.difficulty(habit.id, day) == rating ? [] : [.rate(habit.id, day, rating)]
    }

    /// Sets (or clears, with nil) the day's note; no change when it already is so.
    public static func note(_ habit: Habit, on day: LocalDay, _ text: String?, today: LocalDay,
                            in state: HabitState) throws -> [Change] {
        if let text { try Validate.dayNote(text) }
        try checkDay(habit, day, today: today, what: "notes")
        return state.note(habit.id, day) == text ? [] : [.note(habit.id, day, text)]
    }

    /// Archives from today, or from tomorrow when the habit has progress today (so today's
    /// check-in keeps its XP); history stays.
    public static func archive(_ habit: Habit, today: LocalDay, in state: HabitState) throws -> [Change] {
        if let from = habit.fields.archivedFrom {
            throw CoreError.alreadyArchived(habit: habit.name, from: from)
        }
        let from = max(state.progress(habit.id, today) > 0 ? today.adding(1) : today, habit.startDate)
        return [.set(habit.id, .archivedFrom(from))]
    }

    /// Tracks an archived habit again.
    public static func unarchive(_ habit: Habit) throws -> [Change] {
        guard habit.fields.archivedFrom != nil else { throw CoreError.notArchived(habit: habit.name) }
        return [.set(habit.id, .archivedFrom(nil))]
    }

    /// Deletes a habit and its history (undo restores it).
    public static func delete(_ habit: Habit) -> [Change] { [.delete(habit.id)] }
}
