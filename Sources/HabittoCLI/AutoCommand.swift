import FoundationEssentials
import HabitCore
import HabitStore
import HabitTUI

/// `habitto auto`: habits a command checks in, the commands kept on this machine only.
struct AutoCommand: Command {
    let context: Context

    static var spec: CommandSpec {
        CommandSpec(
            name: "auto", arguments: [],
            summary: "Make a habit an auto habit: a command on this machine checks it in (--run runs them for today).",
            options: [OptionSpec(name: "--clear", value: nil, help: "make the habit a manual one again"),
                      OptionSpec(name: "--list", value: nil, help: "list this machine's auto habits, commands and last results"),
                      OptionSpec(name: "--run", value: nil, help: "run every auto habit's command for today and record the results")],
            notes: """
            'habitto auto HABIT COMMAND' sets the command. It runs through /bin/sh -c with no standard input, the
            secret variables (\(OutsideProgram.secretVariables.joined(separator: ", "))) left out of its environment, and at
            most \(OutsideProgram.seconds(TimeLimits.defaults[.auto])). A yes/no habit is done today when the command exits 0
            (1: not done yet, nothing is recorded); a counted habit's day total is the number on the first line of
            its output (it sets the total, it does not add: running it twice gives the same figure; a check-in
            made later adds to it). Anything else is an error, shown by --run and 'habitto status', and records
            nothing. Commands are kept only in this machine's config folder (file auto beside the config file),
            never in the journal, a sync batch, an export or a backup: other devices see the habit, not its
            command. 'habitto remind' runs --run too.
            """,
            optionalArguments: ["HABIT", "COMMAND"])
    }

    @MainActor func run() async throws {
        let args = invocation.arguments
        let path = AutoHabits.commandsPath(configPath: env.configPath)
        let modes = [OptionName.clear, .list, .run].filter(invocation.flag)
        if modes.count > 1 { throw CLIError.usage(.contradict(modes)) }
        switch modes.first {
        case .list?:
            guard args.isEmpty else { throw CLIError.usage(.autoModeTakesNoHabit(.list)) }
            try await list(path: path)
        case .run?:
            guard args.isEmpty else { throw CLIError.usage(.autoModeTakesNoHabit(.run)) }
            let repo = try openRepository()
            let report = try await AutoRun(env: env, repo: repo).runAll()
            if report.isEmpty { Output.line("No auto habits on this machine; 'habitto auto HABIT COMMAND' makes one"); return }
            let icons = Dictionary(await repo.state.habits.map { ($0.id, Output.icon($0)) }, uniquingKeysWith: { a, _ in a })
            for line in report {
                if line.failed { Output.err(line.sentence()) } else { Output.line(line.sentence(icon: icons[line.habit] ?? "")) }
            }
            if report.contains(where: \.failed) { context.status = ExitCode.invalid.rawValue }
        case .clear?:
            guard args.count == 1 else { throw CLIError.usage(.autoClearTakesOneHabit) }
            let habit = try Edits.find(args[0], in: await openRepository().state)
            var commands = try AutoHabits.commands(path: path)
            guard commands.removeValue(forKey: habit.id) != nil else {
                throw CLIError.invalid(.notAnAutoHabit(habit))
            }
            try AutoHabits.save(commands, path: path)
            Output.line("\(Output.title(habit)) is checked in by hand again on this machine")
        default:
            guard args.count == 2 else {
                throw CLIError.usage(.autoNeedsCommand(habitGiven: args.count == 1))
            }
            let habit = try Edits.find(args[0], in: await openRepository().state)
            try AutoHabits.validate(args[1])
            var commands = try AutoHabits.commands(path: path)
            commands[habit.id] = args[1]
            try AutoHabits.save(commands, path: path)
            let measures = habit.isYesNo ? "done when it exits 0" : "its first line of output is the day's total"
            Output.line("\(Output.title(habit)) is an auto habit on this machine (\(measures)); 'habitto auto --run' runs it now")
        }
    }

    @MainActor private func list(path: String) async throws {
        let commands = try AutoHabits.commands(path: path)
        guard !commands.isEmpty else { Output.line("No auto habits on this machine; 'habitto auto HABIT COMMAND' makes one"); return }
        let repo = try openRepository()
        let state = await repo.state
        let results = try await repo.autoResults()
        let known = state.habits.filter { commands[$0.id] != nil }
        for h in known {
            let last = results[h.id].map { " · last: \($0.day) \($0.summary)" } ?? " · not run yet"
            Output.line("\(Output.icon(h))\(Sanitize.display(h.name)): \(Sanitize.display(commands[h.id]!))\(last)")
        }
        for id in commands.keys.sorted(by: { $0.rawValue < $1.rawValue }) where state.habit(id) == nil {
            Output.line("\(id.rawValue) (no such habit here): \(Sanitize.display(commands[id]!))")
        }
    }
}

/// Runs this machine's auto habits' commands and records what they measured (`auto --run`,
/// `remind`, the today screen's `r`).
struct AutoRun {
    let env: AppEnvironment
    let repo: HabitRepository

    /// Runs every auto habit's command for today (or only `only`'s), one after the other, and
    /// writes each result as its own journal entry (one undo step). Habits not tracked today
    /// (archived, not started) are left alone. Every result, an error included, is kept as
    /// the habit's last result.
    func runAll(only: HabitID? = nil) async throws -> [AutoRunReport] {
        let commands = try AutoHabits.commands(path: AutoHabits.commandsPath(configPath: env.configPath))
        let today = env.today
        let state = await repo.state
        var lines: [AutoRunReport] = []
        var results: [HabitID: AutoResult] = [:]
        for habit in state.habits where commands[habit.id] != nil && (only == nil || only == habit.id) {
            guard Edits.isRecordable(habit, today, today: today) else {
                if only == habit.id { lines.append(AutoRunReport(habit: habit.id, name: habit.name, result: .notTracked)) }
                continue
            }
            switch AutoHabits.run(commands[habit.id]!, for: habit) {
            case .failure(let problem):
                results[habit.id] = AutoResult(day: today, outcome: .failed(problem.description))
                lines.append(AutoRunReport(habit: habit.id, name: habit.name, result: .commandFailed(problem.description)))
            case .success(let measure):
                let id = habit.id
                do {
                    let commit = try await repo.commit { state, _ in
                        guard let h = state.habit(id) else { return [] }
                        return try AutoCheck.changes(h, on: today, measure, today: today, in: state)
                    }
                    let result = AutoResult(day: today, outcome: .measured(measure))
                    results[habit.id] = result
                    lines.append(AutoRunReport(habit: id, name: habit.name, result: .measured(measure, recorded: !commit.operations.isEmpty)))
                } catch let e as CoreError {
                    results[habit.id] = AutoResult(day: today, outcome: .failed(e.description))
                    lines.append(AutoRunReport(habit: id, name: habit.name, result: .refused(e)))
                }
            }
        }
        if !results.isEmpty || !commands.isEmpty { try await repo.recordAutoResults(results, keep: Set(commands.keys)) }
        return lines
    }
}

extension AutoRun {
    /// The auto habits whose last run gave no result, as lines for `habitto status`
    /// ("Auto habit 'Steps': on 2026-11-21 the command failed (…)").
    func problems() async throws -> [String] {
        let commands = try AutoHabits.commands(path: AutoHabits.commandsPath(configPath: env.configPath))
        guard !commands.isEmpty else { return [] }
        let state = await repo.state
        return try await repo.autoResults().sorted { $0.key.rawValue < $1.key.rawValue }.compactMap { id, result in
            guard commands[id] != nil, let habit = state.habit(id), case .failed(let why) = result.outcome else { return nil }
            return "Auto habit \(Output.title(habit)): on \(result.day) the command \(Sanitize.display(why))"
        }
    }
}

/// The auto habits as the terminal UI shows and runs them.
public enum AutoHabitsView {
    /// This machine's auto habits that exist here, each with its last result (`notRun`
    /// before its first run). Empty when the commands file cannot be read.
    public static func results(env: AppEnvironment, repo: HabitRepository) async -> [HabitID: AutoLast] {
        guard let commands = try? AutoHabits.commands(path: AutoHabits.commandsPath(configPath: env.configPath)),
              !commands.isEmpty else { return [:] }
        let last = (try? await repo.autoResults()) ?? [:]
        var out: [HabitID: AutoLast] = [:]
        for id in commands.keys {
            guard let r = last[id] else { out[id] = .notRun; continue }
            switch r.outcome {
            case .measured(let m): out[id] = .measured(m, on: r.day)
            case .failed(let why): out[id] = .failed(Sanitize.display(why), on: r.day)
            }
        }
        return out
    }

    /// Runs one auto habit's command now and records its result: what it came to, or nil
    /// when the habit is gone. A storage failure (the commands file, the journal) is thrown.
    public static func run(_ id: HabitID, env: AppEnvironment, repo: HabitRepository) async throws -> AutoRunReport? {
        try await AutoRun(env: env, repo: repo).runAll(only: id).first
    }
}
