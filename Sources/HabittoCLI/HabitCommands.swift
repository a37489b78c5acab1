import FoundationEssentials
import HabitCore
import HabitStore

/// `habitto add NAME`: a new habit with the field options.
struct AddCommand: Command {
    let context: Context

    static var spec: CommandSpec {
        CommandSpec(name: "add", arguments: ["NAME"], summary: "Add a habit.", options: Specs.fieldOptions,
                    notes: "Names are 1 to 64 characters without control or invisible characters, unique among habits.")
    }

    @MainActor func run() async throws {
        var fields = HabitFields(name: invocation.arguments[0], startDate: today)
        try applyFieldOptions(&fields)
        var rng = SystemRandomNumberGenerator()
        let id = HabitID.random(using: &rng)
        let chosen = fields, today = self.today
        let repo = try openRepository()
        let result = try await repo.commit { state, _ in
            return try Intent.add(chosen).changes(newID: id, today: today, in: state)
        }
        let habit = result.state.habit(id)!
        Output.line("Added \(Output.title(habit)) (\(Output.describeGoal(habit)), \(habit.schedule), from \(habit.startDate)); id \(id)")
    }
}
/// `habitto edit HABIT`: changes a habit's fields.
struct EditCommand: Command {
    let context: Context

    static var spec: CommandSpec {
        CommandSpec(name: "edit", arguments: ["HABIT"], summary: "Change a habit's fields.",
                    options: [OptionSpec(name: "--name", value: "NAME", help: "new name")] + Specs.fieldOptions
                        + [OptionSpec(name: "--build", value: nil, help: "make it a build habit (at least goal)"),
                           OptionSpec(name: "--from", value: "DATE",
                                      help: "the first day a new goal, unit, kind or schedule counts: \(Specs.dateForms), or start (default today)",
                                      completes: .words(["start"] + Specs.dayWordList))],
                    notes: "A new goal, unit, kind (--limit, --build) or schedule counts from today: the days before keep the\ndefinition they were judged by, so streaks, strength and XP earned stay. --from DATE makes it count from\nan earlier day, and --from start from the habit's start (to correct a mistake). Undo takes an edit back.")
    }

    /// The options that change a rule field (what `--from` applies to), with the field's
    /// register index (`FieldValue.index`).
    static let ruleOptions: [OptionName: Int] = [.goal: FieldValue.goal(0).index, .unit: FieldValue.unit(nil).index,
                                                 .limit: FieldValue.kind(.limit).index, .build: FieldValue.kind(.build).index,
                                                 .schedule: FieldValue.schedule(.daily).index]

    /// The rule fields the options name.
    var askedRuleFields: Set<Int> {
        Set(Self.ruleOptions.filter { invocation.given($0.key) }.map(\.value))
    }

    /// The day `--from` names: nil for `start`, else a day no later than today. A bad value
    /// is a usage error.
    func fromDay() throws -> LocalDay? {
        guard let text = invocation.value(.from) else { return today }
        guard !askedRuleFields.isEmpty else {
            throw CLIError.usage(.fromWithoutRuleChange)
        }
        if text.lowercased() == "start" { return nil }
        let d: LocalDay
        do { d = try day(text) } catch {
            throw CLIError.usage(.invalidFrom(text))
        }
        guard d <= today else {
            throw CLIError.usage(.fromInFuture(d, today: today))
        }
        return d
    }

    @MainActor func run() async throws {
        let optionsGiven = invocation.hasOptions
        guard optionsGiven else { throw CLIError.usage(.editNeedsOption) }
        let query = invocation.arguments[0]
        let from = try fromDay(), asked = askedRuleFields
        let runner = self
        let repo = try openRepository()
        let before = await repo.state
        let result = try await repo.commit { state, _ in
            let habit = try Edits.find(query, in: state)
            var fields = habit.fields
            try runner.applyFieldOptions(&fields)
            // As the UI's edit writes (`Intent.edit`), with the rule fields named here set
            // from `from` on even where they already have the value (a correction).
            return try Edits.update(habit, to: fields, from: from, asked: asked, in: state)
        }
        guard let id = result.operations.first?.change.habit, let habit = result.state.habit(id) else {
            Output.line("Nothing to change: \(Output.title(try Edits.find(query, in: result.state))) already has those values")
            return
        }
        var line = "Updated \(Output.title(habit)) (\(Output.describeGoal(habit)), \(habit.schedule), from \(habit.startDate))"
        line += Self.fromWords(result.operations.map(\.change), given: invocation.value(.from), from: from, start: habit.startDate)
        if let old = before.habit(id), old.startDate != habit.startDate {
            line += startWords(old, habit, before: before, after: result.state)
        }
        Output.line(line)
    }

    /// What a moved start date takes or gives: the days with check-ins it leaves out (kept,
    /// counted again by an earlier start) or counts again, the XP before and after, and for
    /// a start after today, that the habit is not tracked until then.
    func startWords(_ old: Habit, _ new: Habit, before: HabitState, after: HabitState) -> String {
        var words = ""
        let hidden = after.checkInsBeforeStart(new) - before.checkInsBeforeStart(old)
        if hidden > 0 {
            words += "; \(Plural.count(hidden, "day")) with check-ins before \(new.startDate) no longer count "
                + "(they are kept: an earlier --start counts them again)"
        } else if hidden < 0 {
            words += "; \(Plural.count(-hidden, "day")) with check-ins from \(new.startDate) count again"
        }
        let xp = (before.stats(today: today, settings: settings).xp, after.stats(today: today, settings: settings).xp)
        if xp.0 != xp.1 { words += " · XP \(xp.0) → \(xp.1)" }
        if new.startDate > today {
            words += "; it starts in \(Plural.count(today.days(to: new.startDate), "day")): until then it is not tracked"
        }
        return words
    }

    /// What an edit's rule changes count from, in words that follow its first clause: from a
    /// day (the days before keep their definition), or on every day from the start (a
    /// `--from` on or before the start, or `start`), replacing the definitions dated edits had
    /// set. Nothing when no rule field changed from a day and none was asked from the start.
    static func fromWords(_ changes: [Change], given: String?, from: LocalDay?, start: LocalDay) -> String {
        let fromStart = changes.contains { if case .set(_, let v) = $0 { HabitRule.fieldIndices.contains(v.index) } else { false } }
        let dated = changes.compactMap { c -> LocalDay? in if case .setFrom(_, let d, _) = c { d } else { nil } }
        let days = Set(dated).sorted()
        func replacing(_ later: ArraySlice<LocalDay>) -> String {
            later.isEmpty ? "" : ", replacing the definition from " + later.map(\.description).joined(separator: ", ")
        }
        guard fromStart else {
            guard let first = days.first else { return "" }
            return "; the change counts from \(first), earlier days keep what they had" + replacing(days.dropFirst())
        }
        guard given != nil || !days.isEmpty else { return "" }
        let before = from.map { $0 < start ? "--from \($0) is before the start, so " : "" } ?? ""
        return "; \(before)the change counts on every day from the start \(start)" + replacing(days[...])
    }
}
/// `habitto archive HABIT`: stops tracking a habit, keeping its history.
struct ArchiveCommand: Command {
    let context: Context

    static var spec: CommandSpec {
        CommandSpec(name: "archive", arguments: ["HABIT"],
                    summary: "Stop tracking a habit from today (from tomorrow if it has progress today); its history stays.",
                    options: [])
    }

    @MainActor func run() async throws {
        try await change(archived: true)
    }

    @MainActor func change(archived on: Bool) async throws {
        let habit = try await commitIntent { on ? .archive($0) : .unarchive($0) }.habit
        if let from = habit.fields.archivedFrom {
            Output.line("Archived \(Output.title(habit)) from \(from); its history is kept ('habitto unarchive' brings it back)")
        } else {
            Output.line("Unarchived \(Output.title(habit)); it is tracked again")
        }
    }
}
/// `habitto unarchive HABIT`: tracks an archived habit again.
struct UnarchiveCommand: Command {
    let context: Context

    static var spec: CommandSpec {
        CommandSpec(name: "unarchive", arguments: ["HABIT"], summary: "Track an archived habit again.", options: [])
    }

    @MainActor func run() async throws {
        try await ArchiveCommand(context: context).change(archived: false)
    }
}
/// `habitto move HABIT`: changes the habits' order.
struct MoveCommand: Command {
    let context: Context

    static var spec: CommandSpec {
        CommandSpec(name: "move", arguments: ["HABIT"], summary: "Change the order of habits: move one before or after another, or to the top or bottom.",
                    options: [OptionSpec(name: "--before", value: "OTHER", help: "put it just before OTHER", completes: .habit),
                              OptionSpec(name: "--after", value: "OTHER", help: "put it just after OTHER", completes: .habit),
                              OptionSpec(name: "--top", value: nil, help: "put it first"),
                              OptionSpec(name: "--bottom", value: nil, help: "put it last")],
                    notes: "Give exactly one of --before, --after, --top, --bottom. Archived habits keep their place in the order\n(list --all and the UI's v show it). The order is synced; 'habitto undo' takes a move back.")
    }

    @MainActor func run() async throws {
        let query = invocation.arguments[0]
        let places = [OptionName.before, .after, .top, .bottom].filter(invocation.given)
        guard places.count == 1 else { throw CLIError.usage(.movePlace(given: places)) }
        let before = invocation.value(.before), after = invocation.value(.after)
        let today = self.today
        let repo = try openRepository()
        let result = try await repo.commit(label: nil) { state, _ in
            let habit = try Edits.find(query, in: state)
            let target: MoveTarget
            if let other = before ?? after {
                let o = try Edits.find(other, in: state)
                target = before != nil ? .before(o.id) : .after(o.id)
            } else {
                target = places[0] == .top ? .top : .bottom
            }
            return try Intent.move(habit.id, target).changes(today: today, in: state)
        }
        let habit = try Edits.find(query, in: result.state)
        // Where `list` shows it (the listing order).
        let order = result.state.listed
        let i = order.firstIndex { $0.id == habit.id }!
        var place = i == 0 ? "first" : "after \(Output.title(order[i - 1]))"
        if i == order.count - 1 && i > 0 { place = "last, " + place }
        if result.operations.isEmpty {
            Output.line("\(Output.title(habit)) is already there (\(place)); nothing changed")
        } else {
            Output.line("Moved \(Output.title(habit)): now \(place) ('habitto undo' takes it back)")
        }
    }
}
/// `habitto delete HABIT --yes`: deletes a habit and its history.
struct DeleteCommand: Command {
    let context: Context

    static var spec: CommandSpec {
        CommandSpec(name: "delete", arguments: ["HABIT"], summary: "Delete a habit and its history (undo brings it back).",
                    options: [OptionSpec(name: "--yes", value: nil, help: "confirm")])
    }

    @MainActor func run() async throws {
        let query = invocation.arguments[0]
        guard invocation.flag(.yes) else {
            throw CLIError.usage(.deleteNeedsYes)
        }
        let repo = try openRepository()
        let before = await repo.state, today = self.today
        let result = try await repo.commit { state, _ in
            return try Intent.delete(try Edits.find(query, in: state).id).changes(today: today, in: state)
        }
        let id = result.operations[0].change.habit
        Output.line("Deleted \(Output.title(before.habit(id) ?? Habit(id: id, fields: HabitFields(name: query, startDate: today)))) and its history ('habitto undo' brings it back)")
    }
}
extension Command {
    /// Applies the field options of add/edit onto `fields`.
    func applyFieldOptions(_ fields: inout HabitFields) throws {
        let inv = invocation
        if inv.flag(.limit) && inv.flag(.build) { throw CLIError.usage(.contradict([.limit, .build])) }
        if inv.flag(.limit) { fields.kind = .limit }
        if inv.flag(.build) { fields.kind = .build }
        if let g = inv.value(.goal) { fields.goal = try amount(g, .goal, minimum: 0, maximum: Limits.maxGoal) }
        func optional(_ name: OptionName) -> String?? {
            guard let v = inv.value(name) else { return .none }
            return .some(v.isEmpty ? nil : v)
        }
        if let v = optional(.unit) { fields.unit = v }
        if let v = optional(.icon) { fields.icon = v }
        if let v = optional(.color) { fields.color = v?.lowercased() }
        if let v = optional(.notes) { fields.notes = v }
        if let v = optional(.group) { fields.group = v }
        if let v = inv.value(.remind) { fields.reminders = try ReminderTime.parseList(v) }
        if let s = inv.value(.schedule) { fields.schedule = try Schedule(parsing: s) }
        if let s = inv.value(.start) { fields.startDate = try day(s) }
        if let n = inv.value(.name) { fields.name = n }
        try fields.validate()
    }
}
