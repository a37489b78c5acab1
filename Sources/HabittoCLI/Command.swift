import FoundationEssentials
import HabitCore
import HabitStore

/// The version `--version`, the help and the man page print.
let habittoVersion = HabittoVersion.current

/// A command of the command line, in the manner of swift-argument-parser's: a type with its
/// spec (what the parser, the help, the completions, the man page and the reference are built
/// from) and its `run`, made for one parsed invocation.
protocol Command: Sendable {
    /// The command's name, arguments, options and help. Read once for every command when the
    /// table is built (each run parses against it): its help texts are closures, built only
    /// when read.
    static var spec: CommandSpec { get }
    /// A document made from the command table alone (completion scripts, the man page),
    /// printed before the data directory and the config are looked at; nil for a command
    /// that runs.
    static func document(_ invocation: Invocation) throws -> String?
    /// Whether the command runs with problems in the config file (the doctor reports them).
    static var allowsConfigProblems: Bool { get }
    /// Whether a change the command makes is sent by a background round when it ends (not
    /// for the commands that sync themselves, nor for the UI, whose loop sends its changes).
    static var sendsChangesAfter: Bool { get }
    init(context: Context)
    var context: Context { get }
    /// Runs the command on the main thread (no worker thread starts unless it awaits the
    /// network or an import). Errors become one line and an exit code (see `CLI.run`).
    @MainActor func run() async throws
}

extension Command {
    static func document(_ invocation: Invocation) throws -> String? { nil }
    static var allowsConfigProblems: Bool { false }
    static var sendsChangesAfter: Bool { true }

    var invocation: Invocation { context.invocation }
    var env: AppEnvironment { context.env }
    var today: LocalDay { env.today }
    var settings: RuleSettings { env.config.rules }

    func openRepository() throws -> HabitRepository {
        // The rules read each habit's small day columns; full day records are decoded only
        // for the habit a command writes or exports, and not kept.
        // On the main thread, as the command itself: no worker thread is started unless the
        // command awaits something else (the network, an import).
        let repo = try HabitRepository(directory: env.home, now: env.clock, keepDecodedDays: false, onMainThread: true)
        for w in repo.openingWarnings { Output.warn(w) }
        context.opened.add(repo)
        return repo
    }

    /// Commits, in one journal append, the intent `make` gives for the habit the first
    /// argument names (found again under the lock, its changes by `Intent.changes`);
    /// returns the commit, that habit as it is after it, and the intent's outcome (what the
    /// command prints, `Output.says`).
    func commitIntent(_ make: @escaping @Sendable (HabitID) -> Intent) async throws
        -> (result: CommitResult, habit: Habit, outcome: Outcome) {
        let query = invocation.arguments[0], today = self.today
        let result = try await openRepository().commit { state, _ in
            try make(try Edits.find(query, in: state).id).changes(today: today, in: state)
        }
        let habit = try Edits.find(query, in: result.state)
        let outcome = make(habit.id).outcome(changed: !result.operations.isEmpty, state: result.state, today: today, settings: settings)
        return (result, habit, outcome)
    }

    /// The day a date option names (`TypedDay`'s forms), today when it is not given.
    func day(_ text: String?) throws -> LocalDay {
        guard let text else { return today }
        guard let d = TypedDay.parse(text, today: today) else { throw CLIError.invalidDate(text) }
        return d
    }

    func wholeNumber(_ text: String, _ option: OptionName, _ range: ClosedRange<Int>) throws -> Int {
        guard let n = Int(text), range.contains(n) else {
            throw CLIError.notAWholeNumber(option: option, text: text, range: range)
        }
        return n
    }

    /// An amount option (`--goal`, `--amount`): a number with at most three decimals, in
    /// thousandths, from `minimum` (thousandths) to `maximum`.
    func amount(_ text: String, _ option: OptionName, minimum: Int, maximum: Int) throws -> Int {
        let n: Int
        // A negative number is a number: refused as negative, not as unreadable.
        if text.hasPrefix("-"), (try? Amount.parse(String(text.dropFirst()))) != nil {
            if option == .goal { throw CLIError.negativeGoal(text: text) }
            throw CLIError.negativeAmount(text: text, opposite: invocation.command == .uncheck ? .check : .uncheck)
        }
        do { n = try Amount.parse(text) } catch let e as CoreError { throw CLIError.notAnAmount(option: option, e) }
        guard n >= minimum, n <= maximum else {
            throw CLIError.amountOutOfRange(option: option, text: text, minimum: minimum, maximum: maximum)
        }
        return n
    }

    func rating(_ text: String) throws -> Int {
        guard let n = Int(text), Limits.difficulty.contains(n) else {
            throw CLIError.invalidDifficulty(text, orClear: invocation.command == .rate)
        }
        return n
    }
}

/// The repositories a command opened, so late warnings can be printed when it ends.
final class Opened: @unchecked Sendable {
    private let lock = Lock()
    private var repositories: [HabitRepository] = []
    func add(_ r: HabitRepository) { lock.lock(); repositories.append(r); lock.unlock() }
    var all: [HabitRepository] { lock.lock(); defer { lock.unlock() }; return repositories }
    func warnings() -> [Warning] {
        lock.lock()
        defer { lock.unlock() }
        return repositories.flatMap { $0.warnings.drain() }
    }
}

/// What a command runs with: its parsed invocation, the environment, the user interface to
/// open (`demo`), and the repositories it opened, whose late warnings are printed when it ends.
@MainActor
final class Context: Sendable {
    nonisolated let env: AppEnvironment
    nonisolated let invocation: Invocation
    nonisolated let opened = Opened()
    let ui: any UserInterface
    /// The exit status when the command ends without an error (the UI's, for `demo`).
    var status = ExitCode.ok.rawValue
    /// The last command's context, never released (see `CLI.run`).
    static var keptUntilExit: Context?

    init(env: AppEnvironment, invocation: Invocation, ui: any UserInterface) {
        self.env = env; self.invocation = invocation; self.ui = ui
    }

    /// Runs `command` and prints the warnings its repositories gathered on the way; when it
    /// changed something, starts a background round to send it (`BackgroundRound`), also
    /// when it then failed.
    func run(_ command: any Command.Type) async throws -> Int32 {
        defer { for w in opened.warnings() { Output.warn(w) } }
        do {
            try await command.init(context: self).run()
        } catch {
            if command.sendsChangesAfter { await BackgroundRound.startIfWanted(self) }
            throw error
        }
        if command.sendsChangesAfter { await BackgroundRound.startIfWanted(self) }
        return status
    }
}

/// The command table: the parser, the help, the completions, the man page and the reference
/// are generated from it.
enum Specs {
    /// Every command, in the order of the help. Adding a command is adding its type here.
    static let commands: [any Command.Type] = [
        AddCommand.self, EditCommand.self, ArchiveCommand.self, UnarchiveCommand.self, MoveCommand.self, DeleteCommand.self,
        CheckCommand.self, UncheckCommand.self, SkipCommand.self, UnskipCommand.self, PauseCommand.self, RateCommand.self, NoteCommand.self,
        AskCommand.self, UndoCommand.self, LogCommand.self, ListCommand.self, ShowCommand.self, StatsCommand.self,
        RemoteCommand.self, SyncCommand.self, StatusCommand.self, OfflineCommand.self, DemoCommand.self, ExportCommand.self,
        GraphCommand.self, BackupCommand.self, ImportCommand.self, DoctorCommand.self, RemindCommand.self, AutoCommand.self, TimerCommand.self,
        CompletionsCommand.self, CompleteCommand.self, ManCommand.self, ReferenceCommand.self, AnswerCommand.self,
    ]

    /// The commands' specs, in the order of `commands` (their help texts are built when read).
    static let all: [CommandSpec] = commands.map { $0.spec }

    /// The type of the command named `name`.
    static func command(named name: String) -> (any Command.Type)? {
        all.firstIndex { $0.name == name }.map { commands[$0] }
    }

    /// Options several commands share.
    static let fieldOptions: [OptionSpec] = [
        OptionSpec(name: "--goal", value: "N", help: "per day: at least N (build, default 1) or at most N (--limit); up to 3 decimals"),
        OptionSpec(name: "--unit", value: "U", help: "unit shown after progress, e.g. glasses"),
        OptionSpec(name: "--limit", value: nil, help: "a limit habit: stay at or under the goal"),
        OptionSpec(name: "--schedule", value: "SPEC", help: "daily (default), weekdays, weekends, mon,wed,fri, every:3, 3/week, 10/month",
                   completes: .words(["daily", "weekdays", "weekends", "mon,wed,fri", "every:2", "every:3", "3/week", "5/week", "10/month"])),
        OptionSpec(name: "--start", value: "DATE", help: "first day tracked: \(Specs.dateForms) (default today)",
                   completes: Specs.dayWords),
        OptionSpec(name: "--icon", value: "C", help: "one character or emoji (\"\" clears it in edit)"),
        OptionSpec(name: "--color", value: "C", help: "#RRGGBB or a name: \(Validate.colorNames.joined(separator: ", "))",
                   completes: .words(Validate.colorNames)),
        OptionSpec(name: "--notes", value: "TEXT", help: "free text"),
        OptionSpec(name: "--group", value: "NAME", help: "a group heading, e.g. Health (\"\" clears it in edit)"),
        OptionSpec(name: "--remind", value: "TIMES", help: "reminder times HH:MM, e.g. 08:00,20:00, at most 8 ('habitto remind'; \"\" clears them)"),
    ]
    static let date = OptionSpec(name: "--date", value: "DATE", help: "\(dateForms) (default today)",
                                  completes: dayWords)
    /// The forms of a date (`TypedDay`), as an option's help gives them.
    static let dateForms = "YYYY-MM-DD, today, yesterday, tomorrow, -N or +N days, or a weekday such as mon for the latest one"
    /// The words a date option's value completes to.
    static let dayWordList = ["today", "yesterday", "tomorrow"] + Weekday.allCases.map(\.fullName)
    static let dayWords = ValueKind.words(dayWordList)
    static let json = OptionSpec(name: "--json", value: nil, help: "print JSON")

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
        Dates are YYYY-MM-DD, today, yesterday, tomorrow, -N or +N days, or a weekday such as mon for
        the latest one (today included). Data: --home DIR, else $HABITTO_HOME, else $XDG_DATA_HOME/habitto.
        Exit codes: 0 ok, 1 invalid input or unknown habit, 2 usage error, 3 storage error,
        4 sync failed, 5 the doctor found problems.
        Run 'habitto COMMAND --help' for a command's options.
        """
        return s + "\n"
    }
}
