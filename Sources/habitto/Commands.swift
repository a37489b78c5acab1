import FoundationEssentials
import HabitCore
import HabitStore
import HabitSync
import HabitTUI

let habittoVersion = "0.1.0"

/// Every command as data: the help and the parser are generated from this table.
enum Specs {
    static let fieldOptions: [OptionSpec] = [
        OptionSpec(name: "--goal", value: "N", help: "per day: at least N (build, default 1) or at most N (--limit); up to 3 decimals"),
        OptionSpec(name: "--unit", value: "U", help: "unit shown after progress, e.g. glasses"),
        OptionSpec(name: "--limit", value: nil, help: "a limit habit: stay at or under the goal"),
        OptionSpec(name: "--schedule", value: "SPEC", help: "daily (default), weekdays, weekends, mon,wed,fri, every:3, 3/week",
                   completes: .words(["daily", "weekdays", "weekends", "mon,wed,fri", "every:2", "every:3", "3/week", "5/week"])),
        OptionSpec(name: "--start", value: "DATE", help: "first day tracked (default today)", completes: Specs.dayWords),
        OptionSpec(name: "--icon", value: "C", help: "one character or emoji (\"\" clears it in edit)"),
        OptionSpec(name: "--color", value: "C", help: "#RRGGBB or a name: \(Validate.colorNames.joined(separator: ", "))",
                   completes: .words(Validate.colorNames)),
        OptionSpec(name: "--notes", value: "TEXT", help: "free text"),
        OptionSpec(name: "--group", value: "NAME", help: "a group heading, e.g. Health (\"\" clears it in edit)"),
        OptionSpec(name: "--remind", value: "TIMES", help: "reminder times HH:MM, e.g. 08:00,20:00, at most 8 ('habitto remind'; \"\" clears them)"),
    ]
    static let date = OptionSpec(name: "--date", value: "DATE", help: "YYYY-MM-DD, today or yesterday (default today)",
                                  completes: dayWords)
    static let dayWords = ValueKind.words(["today", "yesterday"])
    static let json = OptionSpec(name: "--json", value: nil, help: "print JSON")

    static let all: [CommandSpec] = [
        CommandSpec(name: "add", arguments: ["NAME"], summary: "Add a habit.", options: fieldOptions,
                    notes: "Names are 1 to 64 characters without control or invisible characters, unique among habits."),
        CommandSpec(name: "edit", arguments: ["HABIT"], summary: "Change a habit's fields.",
                    options: [OptionSpec(name: "--name", value: "NAME", help: "new name")] + fieldOptions
                        + [OptionSpec(name: "--build", value: nil, help: "make it a build habit (at least goal)")]),
        CommandSpec(name: "archive", arguments: ["HABIT"],
                    summary: "Stop tracking a habit from today (from tomorrow if it has progress today); its history stays.",
                    options: []),
        CommandSpec(name: "unarchive", arguments: ["HABIT"], summary: "Track an archived habit again.", options: []),
        CommandSpec(name: "move", arguments: ["HABIT"], summary: "Change the order of habits: move one before or after another, or to the top or bottom.",
                    options: [OptionSpec(name: "--before", value: "OTHER", help: "put it just before OTHER", completes: .habit),
                              OptionSpec(name: "--after", value: "OTHER", help: "put it just after OTHER", completes: .habit),
                              OptionSpec(name: "--top", value: nil, help: "put it first"),
                              OptionSpec(name: "--bottom", value: nil, help: "put it last")],
                    notes: "Give exactly one of --before, --after, --top, --bottom. Archived habits keep their place in the order\n(list --all and the UI's v show it). The order is synced; 'habitto undo' takes a move back."),
        CommandSpec(name: "delete", arguments: ["HABIT"], summary: "Delete a habit and its history (undo brings it back).",
                    options: [OptionSpec(name: "--yes", value: nil, help: "confirm")]),
        CommandSpec(name: "check", arguments: ["HABIT"], summary: "Check in: add progress to a day.",
                    options: [date, OptionSpec(name: "--amount", value: "N", help: "how much, up to 3 decimals (default 1)"),
                              OptionSpec(name: "--difficulty", value: "1-5", help: "how hard it was: 1 very easy … 5 very hard",
                                         completes: .words((1...5).map(String.init))),
                              OptionSpec(name: "--note", value: "TEXT", help: "a note on the day")]),
        CommandSpec(name: "uncheck", arguments: ["HABIT"], summary: "Take progress back from a day.",
                    options: [date, OptionSpec(name: "--amount", value: "N", help: "how much, up to 3 decimals (default 1)")]),
        CommandSpec(name: "skip", arguments: ["HABIT"], summary: "Skip a day (sick, travelling): it neither counts nor breaks a streak.",
                    options: [date]),
        CommandSpec(name: "unskip", arguments: ["HABIT"], summary: "Undo a skip.", options: [date]),
        CommandSpec(name: "rate", arguments: ["HABIT", "1-5|clear"], summary: "Rate how hard a day was (1 very easy … 5 very hard), or clear it.",
                    options: [date]),
        CommandSpec(name: "note", arguments: ["HABIT", "TEXT|clear"], summary: "Write (or clear) a note on a habit's day.",
                    options: [date]),
        CommandSpec(name: "ask", arguments: [],
                    summary: "Catch up: answer for every unrecorded due day since the last recorded one, oldest first.",
                    options: [OptionSpec(name: "--days", value: "N", help: "look back at most N days (default 7)")],
                    notes: "Answers: y done, n not done, s skip, an amount, enter leaves it; for a yes/no habit 1-5 is done and how hard.\nEach answer is written at once; Ctrl-C or Ctrl-D stops and keeps what was answered."),
        CommandSpec(name: "undo", arguments: [], summary: "Revert the last change made on this device (repeatable).", options: []),
        CommandSpec(name: "list", arguments: [], summary: "Show the habits due on a day with progress, streak and strength.",
                    options: [date, OptionSpec(name: "--all", value: nil, help: "every habit, archived and unscheduled ones too"), json]),
        CommandSpec(name: "show", arguments: ["HABIT"], summary: "Show a habit: fields, streaks, strength, difficulty and history, or a chart (--chart).",
                    options: [json] + chartOptions),
        CommandSpec(name: "stats", arguments: [], summary: "Show XP, level, perfect days and totals.", options: [json]),
        CommandSpec(name: "remote", arguments: ["set|show"],
                    summary: "Connect a sync remote (remote set dir:/path [--account NAME], remote set none) or show it.",
                    options: [OptionSpec(name: "--account", value: "NAME", help: "the account on the remote (default: default)"),
                              OptionSpec(name: "--user", value: "USER", help: "the WebDAV user (password: HABITTO_WEBDAV_PASSWORD, password_command or password_file)")],
                    optionalArguments: ["SPEC"]),
        CommandSpec(name: "sync", arguments: [], summary: "Push and pull now (exit 4 when the remote is unreachable or failed, or while offline).", options: []),
        CommandSpec(name: "status", arguments: [], summary: "Show the sync state: mode, queue, last sync, errors, devices; or one short line for a prompt (--short).",
                    options: [json, OptionSpec(name: "--short", value: nil, help: "one line for a shell prompt or a status bar, e.g. ✓3/5 ↑2"),
                              OptionSpec(name: "--format", value: "FORMAT", help: "the short line's format (implies --short; default \(Segment.defaultFormat))")],
                    notes: "Placeholders of --format:\n" + Segment.placeholders.map { "  \($0.0)  \($0.1)" }.joined(separator: "\n")
                        + "\nThe short line reads today's records and, with a remote, the sync state; it never syncs."
                        + "\nIt keeps its count in the data directory's file segment until the data, the day or the week start change."),
        CommandSpec(name: "offline", arguments: ["on|off"], summary: "Pause sync (on) or resume it and sync at once (off).", options: []),
        CommandSpec(name: "demo", arguments: [],
                    summary: "Open the UI on throwaway demo data with a second device and a slow remote, to watch sync.",
                    options: []),
        CommandSpec(name: "export", arguments: [], summary: "Export all data; the same data on the same day gives the same bytes.",
                    options: [OptionSpec(name: "--format", value: "FORMAT", help: "json (default) or csv", completes: .words(["json", "csv"])),
                              OptionSpec(name: "--output", value: "PATH", help: "json: write to a file; csv: write habits.csv and checkins.csv into a folder",
                                         completes: .file)],
                    notes: "Without --output, csv prints habits.csv, a blank line, then checkins.csv."),
    ] + [graph] + Runner.backupSpecs + [Runner.remindSpec] + shellSpecs

    static var overview: String {
        var s = "Habitto \(habittoVersion): a keyboard-driven habit tracker with a local, crash-safe journal.\n\n"
        s += "Usage: habitto [--home DIR] [--theme NAME] [--ascii]   (the full-screen UI; ? there lists its keys)\n"
        s += "       habitto [--home DIR] COMMAND [OPTIONS]\n\nCommands:\n"
        for c in all where !c.hidden {
            let left = ([c.name] + c.arguments).joined(separator: " ")
            s += "  " + left + String(repeating: " ", count: max(2, 24 - left.count)) + c.summary + "\n"
        }
        s += """

        HABIT is an id, an exact name (any case) or a unique prefix of a name.
        Dates are YYYY-MM-DD. Data: --home DIR, else $HABITTO_HOME, else $XDG_DATA_HOME/habitto.
        Exit codes: 0 ok, 1 invalid input or unknown habit, 2 usage error, 3 storage error,
        4 sync failed, 5 the doctor found problems.
        Run 'habitto COMMAND --help' for a command's options.
        """
        return s + "\n"
    }
}

/// The repositories a command opened, so late warnings can be printed when it ends.
final class Opened: @unchecked Sendable {
    private let lock = Lock()
    private var repositories: [HabitRepository] = []
    func add(_ r: HabitRepository) { lock.lock(); repositories.append(r); lock.unlock() }
    func warnings() -> [String] {
        lock.lock()
        defer { lock.unlock() }
        return repositories.flatMap { $0.warnings.drain() }
    }
}

/// Runs one parsed command.
@MainActor
struct Runner {
    let env: AppEnvironment
    let invocation: Invocation
    let opened = Opened()
    /// The last command's runner, never released (see `runMain`).
    static var keptUntilExit: Runner?

    nonisolated var today: LocalDay { env.today }
    nonisolated var settings: RuleSettings { env.config.rules }

    func openRepository() throws -> HabitRepository {
        // The rules read each habit's small day columns; full day records are decoded only
        // for the habit a command writes or exports, and not kept.
        // On the main thread, as the command itself: no worker thread is started unless the
        // command awaits something else (the network, an import).
        let repo = try HabitRepository(directory: env.home, now: env.clock, keepDecodedDays: false, onMainThread: true)
        for w in repo.openingWarnings { Output.warn(w) }
        opened.add(repo)
        return repo
    }

    func run() async throws {
        defer { for w in opened.warnings() { Output.warn(w) } }
        let inv = invocation
        switch inv.command ?? "" {
        case "add": try await add()
        case "edit": try await edit()
        case "archive": try await archive(true)
        case "unarchive": try await archive(false)
        case "move": try await move()
        case "delete": try await delete()
        case "check": try await check(sign: 1)
        case "uncheck": try await check(sign: -1)
        case "skip": try await skip(true)
        case "unskip": try await skip(false)
        case "rate": try await rate()
        case "note": try await note()
        case "undo": try await undo()
        case "ask": try await ask()
        case "list": try await list()
        case "show": try await show()
        case "stats": try await stats()
        case "graph": try await graph()
        case "export": try await export()
        case "backup": try await backup()
        case "import": try await importData()
        case "doctor": try await doctor()
        case "remote": try await remote()
        case "sync": try await syncNow()
        case "status": try await status()
        case "__complete": try await complete()
        case "offline": try await offline()
        case "remind": try await remind()
        default: throw CLIError.usage("unknown command")
        }
    }

    // MARK: Input parsing

    nonisolated func day(_ text: String?) throws -> LocalDay {
        guard let text else { return today }
        switch text.lowercased() {
        case "today": return today
        case "yesterday": return today.adding(-1)
        default:
            guard let d = LocalDay(text) else {
                throw CLIError.invalid("invalid date '\(Sanitize.display(text))': use YYYY-MM-DD (1900 to 9999), today or yesterday")
            }
            return d
        }
    }

    func wholeNumber(_ text: String, _ option: String, _ range: ClosedRange<Int>) throws -> Int {
        guard let n = Int(text), range.contains(n) else {
            throw CLIError.invalid("\(option) '\(Sanitize.display(text))' must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return n
    }

    /// An amount option (`--goal`, `--amount`): a number with at most three decimals, in
    /// thousandths, from `minimum` (thousandths) to `maximum`.
    nonisolated func amount(_ text: String, _ option: String, minimum: Int, maximum: Int) throws -> Int {
        let n: Int
        if option == "--amount", text.hasPrefix("-"), (try? Amount.parse(String(text.dropFirst()))) != nil {
            let other = invocation.command == "uncheck" ? "check" : "uncheck"
            throw CLIError.invalid("--amount '\(Sanitize.display(text))' must be positive: '\(other) --amount \(text.dropFirst())' does the opposite")
        }
        do { n = try Amount.parse(text) } catch let e as CoreError { throw CLIError.invalid("\(option): \(e.description)") }
        guard n >= minimum, n <= maximum else {
            throw CLIError.invalid("\(option) '\(Sanitize.display(text))' must be from \(Amount.format(minimum)) to \(Amount.format(maximum))")
        }
        return n
    }

    nonisolated func rating(_ text: String) throws -> Int {
        guard let n = Int(text), (1...5).contains(n) else {
            throw CLIError.invalid("difficulty '\(Sanitize.display(text))' must be 1 (very easy) to 5 (very hard)\(invocation.command == "rate" ? " or clear" : "")")
        }
        return n
    }

    /// Applies the field options of add/edit onto `fields`.
    nonisolated func applyFieldOptions(_ fields: inout HabitFields) throws {
        let inv = invocation
        if inv.has("--limit") && inv.has("--build") { throw CLIError.usage("--limit and --build contradict each other") }
        if inv.has("--limit") { fields.kind = .limit }
        if inv.has("--build") { fields.kind = .build }
        if let g = inv.value("--goal") { fields.goal = try amount(g, "--goal", minimum: 0, maximum: Limits.maxGoal) }
        func optional(_ name: String) -> String?? {
            guard let v = inv.value(name) else { return .none }
            return .some(v.isEmpty ? nil : v)
        }
        if let v = optional("--unit") { fields.unit = v }
        if let v = optional("--icon") { fields.icon = v }
        if let v = optional("--color") { fields.color = v?.lowercased() }
        if let v = optional("--notes") { fields.notes = v }
        if let v = optional("--group") { fields.group = v }
        if let v = inv.value("--remind") { fields.reminders = try ReminderTime.parseList(v) }
        if let s = inv.value("--schedule") { fields.schedule = try Schedule(parsing: s) }
        if let s = inv.value("--start") { fields.startDate = try day(s) }
        if let n = inv.value("--name") { fields.name = n }
        try fields.validate()
    }

    // MARK: Commands

    func add() async throws {
        var fields = HabitFields(name: invocation.arguments[0], startDate: today)
        try applyFieldOptions(&fields)
        var rng = SystemRandomNumberGenerator()
        let id = HabitID.random(using: &rng)
        let chosen = fields, today = self.today
        let repo = try openRepository()
        let result = try await repo.commit { state, _ in
            return try Write.add(chosen).changes(newID: id, today: today, in: state)
        }
        let habit = result.state.habit(id)!
        Output.line("Added \(Output.title(habit)) (\(Output.describeGoal(habit)), \(habit.schedule), from \(habit.startDate)); id \(id)")
    }

    func edit() async throws {
        let optionsGiven = !invocation.values.isEmpty || !invocation.flags.isEmpty
        guard optionsGiven else { throw CLIError.usage("edit needs at least one option to change; see 'habitto edit --help'") }
        let query = invocation.arguments[0]
        let runner = self, today = self.today
        let repo = try openRepository()
        let result = try await repo.commit { state, _ in
            let habit = try Edits.find(query, in: state)
            var fields = habit.fields
            try runner.applyFieldOptions(&fields)
            return try Write.edit(habit.id, fields).changes(today: today, in: state)
        }
        guard let id = result.operations.first?.change.habit, let habit = result.state.habit(id) else {
            Output.line("Nothing to change: \(Output.title(try Edits.find(query, in: result.state))) already has those values")
            return
        }
        Output.line("Updated \(Output.title(habit)) (\(Output.describeGoal(habit)), \(habit.schedule), from \(habit.startDate))")
    }

    func archive(_ on: Bool) async throws {
        let query = invocation.arguments[0]
        let today = self.today
        let repo = try openRepository()
        let result = try await repo.commit { state, _ in
            let id = try Edits.find(query, in: state).id
            return try (on ? Write.archive(id) : .unarchive(id)).changes(today: today, in: state)
        }
        let habit = result.state.habit(result.operations[0].change.habit)!
        if let from = habit.fields.archivedFrom {
            Output.line("Archived \(Output.title(habit)) from \(from); its history is kept ('habitto unarchive' brings it back)")
        } else {
            Output.line("Unarchived \(Output.title(habit)); it is tracked again")
        }
    }

    func move() async throws {
        let query = invocation.arguments[0]
        let places = ["--before", "--after", "--top", "--bottom"].filter { invocation.value($0) != nil || invocation.has($0) }
        guard places.count == 1 else {
            let why = places.isEmpty ? "move needs where to" : "\(places.joined(separator: " and ")) contradict each other"
            throw CLIError.usage("\(why): give exactly one of --before OTHER, --after OTHER, --top, --bottom")
        }
        let before = invocation.value("--before"), after = invocation.value("--after")
        let today = self.today
        let repo = try openRepository()
        let result = try await repo.commit(label: nil) { state, _ in
            let habit = try Edits.find(query, in: state)
            let target: MoveTarget
            if let other = before ?? after {
                let o = try Edits.find(other, in: state)
                target = before != nil ? .before(o.id) : .after(o.id)
            } else {
                target = places[0] == "--top" ? .top : .bottom
            }
            return try Write.move(habit.id, target).changes(today: today, in: state)
        }
        let habit = try Edits.find(query, in: result.state)
        let order = result.state.habits
        let i = order.firstIndex { $0.id == habit.id }!
        var place = i == 0 ? "first" : "after \(Output.title(order[i - 1]))"
        if i == order.count - 1 && i > 0 { place = "last, " + place }
        if result.operations.isEmpty {
            Output.line("\(Output.title(habit)) is already there (\(place)); nothing changed")
        } else {
            Output.line("Moved \(Output.title(habit)): now \(place) ('habitto undo' takes it back)")
        }
    }

    func delete() async throws {
        let query = invocation.arguments[0]
        guard invocation.has("--yes") else {
            throw CLIError.usage("delete removes a habit and all its history: add --yes to confirm ('habitto undo' brings it back)")
        }
        let repo = try openRepository()
        let before = await repo.state, today = self.today
        let result = try await repo.commit { state, _ in
            return try Write.delete(try Edits.find(query, in: state).id).changes(today: today, in: state)
        }
        let id = result.operations[0].change.habit
        Output.line("Deleted \(Output.title(before.habit(id) ?? Habit(id: id, fields: HabitFields(name: query, startDate: today)))) and its history ('habitto undo' brings it back)")
    }

    func check(sign: Int) async throws {
        let query = invocation.arguments[0]
        let date = try day(invocation.value("--date"))
        let amount = try amount(invocation.value("--amount") ?? "1", "--amount", minimum: 1, maximum: Limits.maxChange)
        let difficulty = try invocation.value("--difficulty").map(rating)
        let note = invocation.value("--note")
        let today = self.today
        let repo = try openRepository()
        let result = try await repo.commit { state, _ in
            let habit = try Edits.find(query, in: state)
            guard sign > 0 else { return try Edits.uncheck(habit, on: date, amount: amount, today: today, in: state) }
            var changes = try Edits.checkIn(habit, on: date, amount: amount, difficulty: difficulty, today: today, in: state)
            if let note { changes += try Edits.note(habit, on: date, note, today: today, in: state) }
            return changes
        }
        guard let id = result.operations.first?.change.habit, let habit = result.state.habit(id) else {
            // Only a yes/no habit's day already done records nothing (see Edits.checkIn).
            let habit = try Edits.find(query, in: result.state)
            Output.line("\(Output.title(habit)) is already done on \(date) (a yes/no habit); nothing changed")
            return
        }
        Output.line(Output.checkLine(result.state.dayLine(habit, on: date, today: today, settings: settings), today: today))
    }

    func skip(_ on: Bool) async throws {
        let query = invocation.arguments[0]
        let date = try day(invocation.value("--date"))
        let today = self.today
        let repo = try openRepository()
        let result = try await repo.commit { state, _ in
            try Write.skip(try Edits.find(query, in: state).id, date, on).changes(today: today, in: state)
        }
        let habit = try Edits.find(query, in: result.state)
        if result.operations.isEmpty {
            Output.line("\(Output.title(habit)) is \(on ? "already" : "not") skipped on \(date); nothing changed")
        } else {
            Output.line(Write.skip(habit.id, date, on).statement(state: result.state, today: today, settings: settings))
        }
    }

    func note() async throws {
        let query = invocation.arguments[0]
        let text = invocation.arguments[1]
        let value: String? = text.lowercased() == "clear" ? nil : text
        let date = try day(invocation.value("--date"))
        let today = self.today
        let repo = try openRepository()
        let result = try await repo.commit { state, _ in
            try Write.note(try Edits.find(query, in: state).id, date, value).changes(today: today, in: state)
        }
        let habit = try Edits.find(query, in: result.state)
        if result.operations.isEmpty {
            Output.line("\(Output.title(habit)) already has that note on \(date); nothing changed")
        } else {
            Output.line(Write.note(habit.id, date, value).statement(state: result.state, today: today, settings: settings))
        }
    }

    func rate() async throws {
        let query = invocation.arguments[0]
        let text = invocation.arguments[1]
        let value: Int? = text.lowercased() == "clear" ? nil : try rating(text)
        let date = try day(invocation.value("--date"))
        let today = self.today
        let repo = try openRepository()
        let result = try await repo.commit { state, _ in
            try Write.rate(try Edits.find(query, in: state).id, date, value).changes(today: today, in: state)
        }
        let habit = try Edits.find(query, in: result.state)
        if let value {
            Output.line("Rated \(Output.title(habit)) on \(date): \(value) (\(Output.difficultyName(value)))")
        } else {
            Output.line("Cleared the difficulty of \(Output.title(habit)) on \(date)")
        }
    }

    func undo() async throws {
        let repo = try openRepository()
        if let item = try await repo.undo() {
            Output.line("Undid: \(item.label)")
        } else {
            Output.line("Nothing to undo on this device")
        }
    }

    func list() async throws {
        let date = try day(invocation.value("--date"))
        let repo = try openRepository()
        let state = await repo.state
        let sync = invocation.has("--json") ? try await syncStatus(repo) : nil
        let all = invocation.has("--all")
        let summaries = state.habits.compactMap { habit -> HabitSummary? in
            let s = state.summary(habit, on: date, today: today, settings: settings)
            if all { return s }
            guard habit.isActive(on: date), s.scheduled || s.progress > 0 || s.skipped else { return nil }
            return s
        }
        if invocation.has("--json") {
            Output.raw(JSON.array(summaries.map { s in
                guard case .object(var o) = Output.json(s) else { return Output.json(s) }
                o["syncStatus"] = .string((sync?.habitStatus(s.habit.id) ?? .local).rawValue)
                return .object(o)
            }).serialized())
            return
        }
        let stats = state.stats(today: today, settings: settings)
        Output.line(Output.header(date: date, today: today, stats: stats))
        if summaries.isEmpty {
            if state.habits.isEmpty {
                Output.line("No habits yet. Add one:  habitto add \"Drink water\" --goal 8 --unit glasses")
            } else {
                Output.line("Nothing due on \(date). 'habitto list --all' shows every habit.")
            }
            return
        }
        for line in Output.table(summaries) { Output.line(line) }
    }

    func show() async throws {
        if try await showChart() { return }
        let repo = try openRepository()
        let state = await repo.state
        let habit = try Edits.find(invocation.arguments[0], in: state)
        let s = state.summary(habit, on: today, today: today, settings: settings)
        let avg7 = state.difficultyAverage(habit, asOf: today, count: 7)
        let avg30 = state.difficultyAverage(habit, asOf: today, count: 30)
        let history = state.history(habit, through: today, settings: settings)
        if invocation.has("--json") {
            guard case .object(var o) = Output.json(s) else { return }
            o["history"] = .array(history.map { h in
                .object(["date": .string(h.day.description), "scheduled": .bool(h.scheduled), "progress": .amount(h.progress),
                         "completed": .bool(h.completed), "skipped": .bool(h.skipped), "difficulty": .optional(h.difficulty),
                         "note": .optional(state.note(habit.id, h.day))])
            })
            o["difficultyAverage7"] = .optional(avg7, places: 2)
            o["difficultyAverage30"] = .optional(avg30, places: 2)
            o["notes"] = .optional(habit.fields.notes)
            o["color"] = .optional(habit.fields.color)
            Output.raw(JSON.object(o).serialized())
            return
        }
        for line in Output.showText(s, history: history, avg7: avg7, avg30: avg30, today: today) { Output.line(line) }
        let notes = (state.entries[habit.id]?.days ?? [:]).compactMap { day, rec in rec.note.map { (day, $0) } }
            .sorted { $0.0 > $1.0 }.prefix(5)
        if !notes.isEmpty {
            Output.line("  day notes (newest first):")
            for (day, note) in notes { Output.line("    \(day)  " + Sanitize.display(note.replacingAll("\n", with: " / "))) }
        }
    }

    func stats() async throws {
        let repo = try openRepository()
        let state = await repo.state
        let st = state.stats(today: today, settings: settings)
        if invocation.has("--json") {
            Output.raw(JSON.object([
                "date": .string(today.description), "xp": .int(st.xp), "level": .int(st.level.level),
                "xpIntoLevel": .int(st.level.xpIntoLevel), "xpForNextLevel": .int(st.level.xpForNextLevel),
                "xpToNextLevel": .int(st.level.xpToNextLevel), "xpToday": .int(st.xpToday),
                "xpProvisional": .int(st.xpProvisional),
                "perfectDays": .int(st.perfectDays), "habits": .int(st.habits), "archivedHabits": .int(st.archivedHabits),
                "checkIns": .amount(st.checkIns), "operations": .int(Int(state.operationCount)),
            ]).serialized())
            return
        }
        Output.line("Level \(st.level.level) · \(st.xp) XP (\(st.level.xpIntoLevel)/\(st.level.xpForNextLevel) into the level, \(st.level.xpToNextLevel) to level \(st.level.level + 1))")
        Output.line("Today: +\(st.xpToday) XP"
                    + (st.xpProvisional > 0 ? " (+\(st.xpProvisional) provisional: today's limit habits, settled when the day ends)" : "")
                    + " · perfect days: \(st.perfectDays)")
        Output.line("Habits: \(st.habits) tracked, \(st.archivedHabits) archived · check-ins: \(Amount.format(st.checkIns))")
    }

    func export() async throws {
        let format = invocation.value("--format") ?? "json"
        guard format == "json" || format == "csv" else {
            throw CLIError.usage("export format '\(Sanitize.display(format))' is not supported: use --format json or csv")
        }
        let repo = try openRepository()
        if format == "csv" { try exportCSV(await repo.state); return }
        let text = Export.document(await repo.state, today: today).serialized()
        if let path = invocation.value("--output") {
            guard !path.isEmpty else { throw CLIError.usage("--output needs a file name") }
            let full = try outputPath(path)
            try Sys.writeAtomically(Array(text.utf8), to: full, mode: 0o600)
            Output.err("Exported \(await repo.state.habits.count) habits to \(full)")
        } else {
            Output.raw(text)
        }
    }
}

extension Runner {
    /// An export's `--output` as an absolute path. A path inside the data directory (after
    /// resolving links, `.` and `..`) is refused: an export there could replace the journal
    /// or any other of Habitto's files.
    func outputPath(_ path: String) throws -> String {
        let full = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        if Sys.isInside(full, folder: env.home) {
            throw CLIError.invalid("--output \(Sanitize.display(full)) is inside the data directory \(Sanitize.display(env.home)), where an export could replace Habitto's own files (such as the journal); write it somewhere else")
        }
        return full
    }
}

// MARK: Sync commands

extension Runner {
    func engine(_ repo: HabitRepository) throws -> SyncEngine {
        return try SyncEngine(repository: repo, clock: LiveClock(now: env.clock), faults: try env.faultPlan(), access: env.remoteAccess(),
                              onMainThread: true)
    }

    func syncStatus(_ repo: HabitRepository) async throws -> SyncStatus {
        await (try engine(repo)).status()
    }

    func remote() async throws {
        let repo = try openRepository()
        let engine = try engine(repo)
        switch invocation.arguments[0] {
        case "show":
            let st = await engine.status()
            let state = await engine.state
            guard let remote = st.remote else { Output.line("No remote: data stays on this machine ('habitto remote set dir:/path' connects one)"); return }
            Output.line("Remote \(remote), account \(st.account); this device is \(st.device)")
            Output.line(state.migratedTo == state.target ? "All of this device's data was pushed and verified." : "The first full push has not been verified yet: run 'habitto sync'.")
        case "set":
            guard invocation.arguments.count == 2 else { throw CLIError.usage("remote set needs a remote: dir:/path/to/folder, file:///path or none") }
            var spec: String? = invocation.arguments[1]
            if spec == "none" { spec = nil }
            if let s = spec, s.hasPrefix("dir:"), !s.dropFirst(4).hasPrefix("/") {
                spec = "dir:" + FileManager.default.currentDirectoryPath + "/" + s.dropFirst(4)
            }
            if let s = spec, s.hasPrefix("/") { spec = "dir:" + s }
            let account = invocation.value("--account") ?? "default"
            var user = invocation.value("--user")
            // A password never goes in the URL (it would be stored and shown); a user may.
            if let s = spec, s.hasPrefix("http://") || s.hasPrefix("https://"), var c = URLComponents(string: s) {
                if c.password != nil {
                    throw CLIError.invalid("the remote URL contains a password: remove it, and supply the password with HABITTO_WEBDAV_PASSWORD, password_command or password_file")
                }
                if let u = c.user { user = user ?? u.percentDecoded ?? u; c.user = nil; spec = c.string }
            }
            if let s = spec, s.hasPrefix("http://") {
                Output.warn("warning: plain http sends data and the password unencrypted; use it only on this machine, for tests")
            }
            do { try await engine.setRemote(spec, account: account, user: user) } catch let e as CoreError { throw CLIError.invalid(e.description) }
            guard let spec else { Output.line("Remote removed: data stays on this machine"); return }
            // Connecting is a migration: back up, push everything, read it back, record it done.
            if await repo.state.operationCount > 0 { _ = try await repo.backup(reason: "before-remote") }
            let report = await engine.syncOnce()
            Self.warnNewRemoteProblems(report)
            if let skipped = report.skipped {
                Output.line("Remote set to \(Sanitize.display(spec)) (account \(account)); not synced yet: \(skipped). \(skipped == .offline ? "Run 'habitto offline off'" : "Run 'habitto sync'") to push and verify")
                return
            }
            if let error = report.error {
                throw CLIError(message: "remote set to \(Sanitize.display(spec)) (account \(account)), but the first sync failed: \(error); it resumes with 'habitto sync', nothing local was changed", code: 4)
            }
            Output.line("Remote set to \(Sanitize.display(spec)) (account \(account)): pushed \(report.pushed) operations, pulled \(report.pulled); verified")
        default:
            throw CLIError.usage("remote takes 'set SPEC' or 'show'")
        }
    }

    /// Entries of the remote a round skipped are reported once, when first seen, on
    /// standard error; 'habitto status' lists them while they are there.
    static func warnNewRemoteProblems(_ report: SyncReport) {
        for p in report.newRemoteProblems { Output.warn("skipped on the remote: " + Sanitize.display(p)) }
    }

    func syncNow() async throws {
        let repo = try openRepository()
        let engine = try engine(repo)
        let report = await engine.syncOnce()
        if let skipped = report.skipped {
            if report.error == nil && skipped == .noRemote { throw CLIError.invalid(skipped.description) }
            if skipped == .offline { throw CLIError(message: SyncInfo.offlineHint + " ('habitto offline off' from a shell)", code: 4) }
            Output.line("Not synced: \(skipped)")
            return
        }
        let summary = "pushed \(report.pushed) operations in \(report.batches) batches, pulled \(report.pulled)"
        Self.warnNewRemoteProblems(report)
        if let error = report.error {
            throw CLIError(message: "sync: \(error) (\(summary)); 'habitto status' shows the details", code: 4)
        }
        Output.line("Synced: \(summary)")
    }

    func status() async throws {
        if invocation.has("--short") || invocation.value("--format") != nil { try await statusShort(); return }
        let repo = try openRepository()
        let st = await (try engine(repo)).status()
        func date(_ d: Date?) -> JSON { d.map { .string(UTCTime.iso8601($0)) } ?? .null }
        if invocation.has("--json") {
            Output.raw(JSON.object([
                "mode": .string(st.mode.rawValue), "remote": .optional(st.remote), "account": .string(st.account),
                "device": .string(st.device.rawValue), "pending": .int(st.pending), "inFlight": .int(st.inFlight),
                "lastSyncAt": date(st.lastSyncAt), "lastError": .optional(st.lastError), "nextRetryAt": date(st.nextRetryAt),
                "devices": .array(st.devices.map { .object(["id": .string($0.id.rawValue), "lastSeen": date($0.lastSeen)]) }),
                "clockAhead": .array(st.clockAhead.map { .object(["id": .string($0.id.rawValue), "seconds": .double(JSON.rounded($0.seconds, 0))]) }),
                "remoteProblems": .array(st.remoteProblems.map(JSON.string)),
            ]).serialized())
            return
        }
        Output.line("Sync: \(st.mode.rawValue)\(st.remote.map { " · \($0) · account \(st.account)" } ?? " (no remote)")")
        Output.line("This device: \(st.device) · \(st.pending) operations waiting to be sent")
        if let last = st.lastSyncAt { Output.line("Last sync: \(UTCTime.iso8601(last))") }
        if let e = st.lastError { Output.line("Last error: \(Sanitize.display(e))") }
        if let next = st.nextRetryAt { Output.line("Next retry: \(UTCTime.iso8601(next))") }
        for d in st.devices { Output.line("Device \(d.id.rawValue.prefix(8)): last seen \(UTCTime.iso8601(d.lastSeen))") }
        for a in st.clockAhead { Output.line("Clock skew: device \(a.id.rawValue.prefix(8)) is \(Int(a.seconds / 60)) minutes ahead of this machine") }
        if !st.remoteProblems.isEmpty {
            Output.line("Skipped on the remote (remove or fix these in the remote folder):")
            for p in st.remoteProblems { Output.line("  " + Sanitize.display(p)) }
        }
    }

    func offline() async throws {
        let value = invocation.arguments[0].lowercased()
        guard value == "on" || value == "off" else { throw CLIError.usage("offline takes on or off") }
        let repo = try openRepository()
        let engine = try engine(repo)
        try await engine.setOffline(value == "on")
        if value == "on" {
            Output.line("Offline: changes are kept here and sent when you go online again")
        } else {
            let report = await engine.syncOnce()
            Self.warnNewRemoteProblems(report)
            if let skipped = report.skipped {
                Output.line("Online; not synced now: \(skipped)")
            } else if let error = report.error {
                throw CLIError(message: "online, but the sync failed: \(error)", code: 4)
            } else {
                Output.line("Online: pushed \(report.pushed), pulled \(report.pulled)")
            }
        }
    }
}
