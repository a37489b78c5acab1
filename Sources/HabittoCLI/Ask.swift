import FoundationEssentials
import HabitCore
import HabitStore
#if canImport(Glibc)
import Glibc
import HabitSys
#endif

/// Lines typed on standard input, or the termination signal (Ctrl-C) that came first.
struct LineReader {
    enum Input: Equatable { case line(String), end, signal(Int32) }
    let wake: any SignalWatch
    private var buffer: [UInt8] = []

    init(wake: any SignalWatch) {
        self.wake = wake
    }

    /// The next line (without its newline), the end of input, or a signal received.
    mutating func next() -> Input {
        while true {
            if let sig = wake.pendingSignal { return .signal(sig) }
            if let i = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<i], as: UTF8.self)
                buffer.removeSubrange(...i)
                return .line(line.trimmingWhitespace)
            }
            var fds = [pollfd(fd: 0, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: wake.readFD, events: Int16(POLLIN), revents: 0)]
            // A signal interrupts the wait only after its handler has woken the pipe: the
            // retried poll returns at once, and the signal is seen above.
            guard (try? sysCall("poll") { poll(&fds, 2, -1) }) != nil else { return .end }
            if fds[1].revents != 0 {
                var drain = [UInt8](repeating: 0, count: 64)
                _ = try? sysCall("read") { read(wake.readFD, &drain, drain.count) }
                continue
            }
            guard fds[0].revents != 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = (try? sysCall("read") { read(0, &chunk, chunk.count) }) ?? 0
            guard n > 0 else {
                if buffer.isEmpty { return .end }
                buffer.append(UInt8(ascii: "\n"))
                continue
            }
            buffer.append(contentsOf: chunk[..<n])
        }
    }
}

/// `habitto ask [--days N]`: asks about every habit-day to catch up on (see
/// `CatchUp.items`), oldest first, writing each answer as one commit as it goes.
struct AskCommand: Command {
    let context: Context

    static var spec: CommandSpec {
        CommandSpec(name: "ask", arguments: [],
                    summary: "Catch up: answer for every unrecorded due day since the last recorded one, oldest first.",
                    options: [OptionSpec(name: "--days", value: "N", help: "look back at most N days (default 7)")],
                    notes: "Answers: y done, n not done, s skip, an amount, enter leaves it; for a yes/no habit 1-5 is done and how hard.\nEach answer is written at once; Ctrl-C or Ctrl-D stops and keeps what was answered.")
    }

    @MainActor func run() async throws {
        let days = try wholeNumber(invocation.value(.days) ?? String(CatchUp.defaultDays), .days, 1...366)
        let today = self.today
        let settings = self.settings
        let repo = try openRepository()
        let items = CatchUp.items(await repo.state, today: today, days: days, settings: settings)
        guard !items.isEmpty else {
            Output.line("Nothing to catch up: every due day of the last \(Plural.count(days, "day")) and today has something recorded")
            return
        }
        guard isatty(0) == 1 else {
            throw CLIError.usage(.askNeedsTerminal(items: items.count))
        }
        var reader = LineReader(wake: try context.ui.watchSignals())
        // Today's apart, as the UI's catch-up screen gives them (its hint counts the days before today).
        let onToday = items.filter { $0.day == today }.count
        // One paragraph, wrapped between phrases at the terminal's width (no word is cut).
        let intro = "\(Plural.count(items.count, "habit-day")) to catch up (\(items.count - onToday) before today, \(onToday) today), oldest first: y done, n not done, s skip, an amount, "
            + "for a yes/no habit 1-5 is done and how hard (or after y or an amount: y 2, 8 3); enter leaves it, Ctrl-D stops."
        for line in GraphCommand.wrapped(intro, width: ChartWidth.current()) { Output.line(line) }
        var answered = 0
        for item in items {
            while true {
                let state = await repo.state
                guard let habit = state.habit(item.habit.id) else { break }
                Output.text(prompt(habit, item.day, today: today, tags: Edits.namesakeTags(state.habits)))
                fflush(nil)
                let line: String
                switch reader.next() {
                case .line(let l): line = l
                case .end:
                    Output.line("")
                    Output.line("Stopped: \(Plural.count(answered, "answer")) kept")
                    return
                case .signal(let sig):
                    Output.line("")
                    throw CLIError.interrupted(answered: answered, signal: sig)
                }
                do {
                    let answer = try CatchUp.parse(line, for: habit)
                    let intent = Intent.answer(item.habit.id, item.day, answer)
                    let result = try await repo.commit { state, _ in try intent.changes(today: today, in: state) }
                    if !result.operations.isEmpty { answered += 1 }
                    Output.line("  " + Output.says(intent.outcome(changed: !result.operations.isEmpty, state: result.state, today: today,
                                                                  settings: settings)))
                    break
                } catch let e as CoreError {
                    Output.line("  " + e.description)
                }
            }
        }
        Output.line("Caught up: \(Plural.count(answered, "answer")) recorded")
    }

    /// "Thu 2026-11-19 · Read [y n s 1-5 enter] "; a habit that shares its name is named with
    /// its tag (`Walk #fb80`, from `tags`), as `list` names it.
    private func prompt(_ habit: Habit, _ day: LocalDay, today: LocalDay, tags: [HabitID: String]) -> String {
        let when = day == today ? "today" : day.days(to: today) == 1 ? "yesterday" : "\(day.weekday.shortName.capitalized) \(day)"
        let icon = Output.icon(habit)
        let goal = habit.isYesNo ? "" : " (\(Output.describeGoal(habit)))"
        return "\(when) · \(icon)\(Sanitize.display(Edits.label(habit, tags: tags)))\(goal) [\(CatchUp.choices(for: habit))] "
    }
}
