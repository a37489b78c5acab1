import FoundationEssentials

/// What a day should hold, as a backup or an import says.
public struct TargetDay: Hashable, Sendable {
    public var progress: Int
    /// The skip register (a pause aside).
    public var skipped: Bool
    public var difficulty: Int?
    public var note: String?
    /// Answered as not done (see `DayRecord.isAnsweredNotDone`).
    public var notDone: Bool
    /// Paused (see `Change.pause`): the reason, "" for none; nil when not paused.
    public var paused: String?
    public init(progress: Int = 0, skipped: Bool = false, difficulty: Int? = nil, note: String? = nil, notDone: Bool = false,
                paused: String? = nil) {
        self.progress = progress; self.skipped = skipped; self.difficulty = difficulty; self.note = note; self.notDone = notDone
        self.paused = paused
    }
    /// True when the day records nothing.
    public var isEmpty: Bool { progress == 0 && !skipped && difficulty == nil && note == nil && !notDone && paused == nil }
}

/// A habit as a backup or an import says it should be.
public struct TargetHabit: Hashable, Sendable {
    public var id: HabitID
    /// The fields; the rule fields are the newest definition's.
    public var fields: HabitFields
    public var days: [LocalDay: TargetDay]
    /// The definitions before the newest one with the newest (see `Habit.definitions`),
    /// oldest first; empty when the rule fields hold on every day.
    public var definitions: [DatedRule]
    public init(id: HabitID, fields: HabitFields, days: [LocalDay: TargetDay], definitions: [DatedRule] = []) {
        self.id = id; self.fields = fields; self.days = days
        self.definitions = definitions.count > 1 ? definitions : []
    }

    /// The habit the target describes, with its definitions.
    public var habit: Habit {
        definitions.isEmpty ? Habit(id: id, fields: fields) : Habit(id: id, fields: fields, definitions: definitions)
    }

    /// Every existing habit of a state with its recorded days.
    public static func all(of state: HabitState) -> [TargetHabit] {
        state.habits.map { h in
            var days: [LocalDay: TargetDay] = [:]
            for (day, rec) in state.entries[h.id]?.days ?? [:] {
                let t = TargetDay(progress: rec.progress, skipped: rec.isSkipRegisterOn, difficulty: rec.rating, note: rec.note,
                                  notDone: rec.isAnsweredNotDone, paused: rec.pauseRegister?.value ?? nil)
                if !t.isEmpty { days[day] = t }
            }
            return TargetHabit(id: h.id, fields: h.fields, days: days, definitions: h.hasHistory ? h.definitions : [])
        }
    }
}

/// How a target is brought into the current state.
public enum ReconcileMode: Sendable {
    /// Make the state exactly the target: habits not in it are deleted, every field and
    /// day made equal (a `backup restore --replace`).
    case replace
    /// Add what the target has and the state lacks: missing habits (deleted ones are
    /// brought back), and days, ratings, skips and notes the state has none of. Nothing
    /// the state has is changed (a `backup restore --merge`).
    case merge
    /// Like `merge`, but a habit deleted here stays deleted (the user removed it after an
    /// earlier import): an import never overrides a decision made here.
    case importing
}

/// The changes that bring a state to (or towards) a target, with what was kept as it was.
public struct Reconciliation: Sendable {
    public var changes: [Change] = []
    public var created = 0
    public var restored = 0
    public var deleted = 0
    public var fieldsChanged = 0
    /// Days that received at least one change.
    public var daysChanged = 0
    /// Where the state and the target disagree and the state was kept (merge/import), or
    /// habits left out; each names the habit (and day).
    public var kept: [String] = []
    /// Target habits that were renamed because another habit here had the name.
    public var renamed: [String] = []
    public init() {}
}

/// Computes reconciliations: pure, so that restore and import are tested without files.
public enum Reconcile {
    /// The changes that bring `current` to `targets` in `mode`.
    public static func plan(current: HabitState, targets: [TargetHabit], mode: ReconcileMode) -> Reconciliation {
        var r = Reconciliation()
        let targetIDs = Set(targets.map(\.id))
        if mode == .replace {
            for h in current.habits where !targetIDs.contains(h.id) {
                r.changes.append(.delete(h.id)); r.deleted += 1
            }
        }
        // Names taken by habits that stay (for renaming habits a merge creates).
        var taken = Set(current.habits.filter { mode == .replace ? targetIDs.contains($0.id) : true }.map { $0.name.lowercased() })
        if mode == .replace { for t in targets { taken.insert(t.fields.name.lowercased()) } }
        for t in targets {
            let entry = current.entries[t.id]
            let label = "'\(Sanitize.display(t.fields.name))'"
            if let entry, entry.created != nil {
                if entry.isDeleted {
                    if mode == .importing {
                        r.kept.append("\(label) was deleted here after an earlier import; left deleted ('habitto undo' or a backup restore brings it back)")
                        continue
                    }
                    for op in current.liveDeletes(of: t.id) { r.changes.append(.restore(t.id, deleteOp: op)) }
                    r.restored += 1
                    if mode != .replace {
                        var f = t.fields
                        f.name = uniqueName(f.name, taken: &taken, renamed: &r.renamed)
                        if f.name != entry.effectiveFields.name { r.changes.append(.set(t.id, .name(f.name))) }
                    }
                }
                let have = entry.effectiveFields
                let histories = entry.habit(t.id).definitions != t.habit.definitions
                if mode == .replace {
                    // Rule fields go through `definitions` when either side has a history.
                    let dated = !entry.dated.isEmpty || !t.definitions.isEmpty
                    // Against the registers as they are, not as they are read: a register that
                    // reads as another field makes it (a limit kind read as build beside a
                    // per-week schedule) is written too, so the target reads as it is.
                    for (a, b) in zip(FieldValue.all(of: entry.fields), FieldValue.all(of: t.fields))
                    where a != b && !(dated && HabitRule.fieldIndices.contains(b.index)) {
                        r.changes.append(.set(t.id, b)); r.fieldsChanged += 1
                    }
                    if dated && histories {
                        r.changes += definitions(t, over: entry); r.fieldsChanged += 1
                    }
                } else if (have != t.fields || histories) && !entry.isDeleted {
                    let differing = zip(FieldValue.all(of: have), FieldValue.all(of: t.fields)).filter { $0 != $1 }.count
                    let what = differing == 0 ? "definitions over time (the source's differ)"
                        : "fields (\(differing) differ from the source\(histories ? ", and the definitions over time" : ""))"
                    r.kept.append("\(label): kept this device's \(what)")
                }
            } else {
                var f = t.fields
                if mode != .replace { f.name = uniqueName(f.name, taken: &taken, renamed: &r.renamed) }
                // Created with its first definition; the later ones from their days.
                t.definitions.first?.rule.apply(to: &f)
                r.changes.append(.create(t.id, f)); r.created += 1
                r.changes += definitions(t, over: entry)
                // A create without an order key leaves that register as it is (see
                // `HabitState.apply`): a key written here before the create is cleared.
                if f.position == nil, entry?.fields.position != nil { r.changes.append(.set(t.id, .position(nil))) }
                if f.reminders.isEmpty, entry?.fields.reminders.isEmpty == false { r.changes.append(.set(t.id, .reminders([]))) }
                // A delete can arrive before the create it removes: cancel it too.
                for op in current.liveDeletes(of: t.id) { r.changes.append(.restore(t.id, deleteOp: op)) }
            }
            days(t, entry: entry, mode: mode, label: label, into: &r)
        }
        return r
    }

    /// The changes that make every day read the target's definitions over what `entry`
    /// holds: the first definition as the fields' own values (when the entry has other
    /// ones), and each rule field set from each day a definition starts or the entry has a
    /// dated register, to what the target says is in force then.
    static func definitions(_ t: TargetHabit, over entry: HabitEntry?) -> [Change] {
        let target = t.habit
        var out: [Change] = []
        if let entry, entry.created != nil {
            var first = entry.fields
            target.definitions[0].rule.apply(to: &first)
            for i in HabitRule.fieldIndices {
                let value = FieldValue.current(index: i, of: first)
                if value != FieldValue.current(index: i, of: entry.fields) { out.append(.set(t.id, value)) }
            }
        }
        let days = Set(target.definitions.dropFirst().map(\.from) + (entry?.dated.keys.map(\.day) ?? [])).sorted()
        for day in days {
            var read = target.fields
            target.rule(on: day).apply(to: &read)
            for i in HabitRule.fieldIndices {
                let value = FieldValue.current(index: i, of: read)
                if entry?.dated[DatedField(day: day, index: i)]?.value != value { out.append(.setFrom(t.id, day, value)) }
            }
        }
        return out
    }

    private static func days(_ t: TargetHabit, entry: HabitEntry?, mode: ReconcileMode, label: String,
                             into r: inout Reconciliation) {
        let have = entry?.days ?? [:]
        var all = Set(t.days.keys)
        if mode == .replace { all.formUnion(have.keys) }
        for day in all.sorted() {
            let want = t.days[day] ?? TargetDay()
            let rec = have[day] ?? DayRecord()
            var out: [Change] = []
            switch mode {
            case .replace:
                if rec.progress != want.progress {
                    // A new change comes after every change the day holds, so it moves the
                    // shown progress by exactly its delta.
                    let delta = want.progress - rec.progress
                    if delta != 0 { out.append(.progress(t.id, day, delta: delta)) }
                }
                if rec.isSkipRegisterOn != want.skipped { out.append(.skip(t.id, day, want.skipped)) }
                if (rec.pauseRegister?.value ?? nil) != want.paused { out.append(.pause(t.id, from: day, to: day, reason: want.paused)) }
                if rec.rating != want.difficulty { out.append(.rate(t.id, day, want.difficulty)) }
                if rec.note != want.note { out.append(.note(t.id, day, want.note)) }
                if rec.isAnsweredNotDone != want.notDone { out.append(.notDone(t.id, day, want.notDone)) }
            case .merge, .importing:
                if want.progress > 0 {
                    if rec.progress == 0 { out.append(.progress(t.id, day, delta: want.progress)) }
                    else if rec.progress != want.progress {
                        r.kept.append("\(label) \(day): kept progress \(Amount.format(rec.progress)) (the source says \(Amount.format(want.progress)))")
                    }
                }
                if want.skipped && rec.skip == nil { out.append(.skip(t.id, day, true)) }
                if let p = want.paused, rec.pauseRegister == nil { out.append(.pause(t.id, from: day, to: day, reason: p)) }
                if want.notDone && rec.notDoneRegister == nil { out.append(.notDone(t.id, day, true)) }
                if let d = want.difficulty {
                    if rec.difficulty == nil { out.append(.rate(t.id, day, d)) }
                    else if rec.rating != d { r.kept.append("\(label) \(day): kept difficulty \(rec.rating.map(String.init) ?? "none") (the source says \(d))") }
                }
                if let n = want.note {
                    if rec.noteRegister == nil { out.append(.note(t.id, day, n)) }
                    else if rec.note != n { r.kept.append("\(label) \(day): kept this device's note") }
                }
            }
            if !out.isEmpty { r.daysChanged += 1; r.changes += out }
        }
    }

    /// `name`, or `name (2)`, `name (3)`… when another habit has it (case-insensitive).
    static func uniqueName(_ name: String, taken: inout Set<String>, renamed: inout [String]) -> String {
        var candidate = name
        var n = 2
        while taken.contains(candidate.lowercased()) {
            let suffix = " (\(n))"
            candidate = String(name.prefix(64 - suffix.count)).trimmingBlanks + suffix
            n += 1
        }
        if candidate != name { renamed.append("'\(Sanitize.display(name))' is named '\(Sanitize.display(candidate))' here: another habit has the name") }
        taken.insert(candidate.lowercased())
        return candidate
    }
}
