import FoundationEssentials
import HabitCore
import HabitStore
#if canImport(Glibc)
import Glibc
import HabitSys
#endif

/// Answerable reminders: where `notify-send` offers actions (libnotify 0.7.10 and later:
/// `--action=NAME=Label`, `--wait`, `--print-id`), each reminder is shown by a child
/// `habitto __answer` that waits for the answer on its own, so that no reminder and no run
/// of the timer waits for one.
extension Notifier {
    /// The longest a notification waits for its answer, in seconds; then it is left unanswered.
    static let answerTimeLimit = 30.0 * 60
    /// The longest `remind` waits for a child to say its notification was shown, in seconds:
    /// twice `notify-send`'s own limit (10 s by default).
    static var shownTimeLimit: Double { timeLimit * 2 }

    /// Whether this `notify-send` offers actions: its help names `--action`, `--wait` and
    /// `--print-id`.
    func offersActions() -> Bool {
        guard let program else { return false }
        let help = OutsideProgram(program, ["--help"], timeLimit: Self.timeLimit).run()
        guard help.succeeded else { return false }
        let text = String(decoding: help.output, as: UTF8.self)
        return ["--action", "--wait", "--print-id"].allSatisfy { text.contains($0) }
    }

    /// Starts a child `habitto __answer` that shows the reminder with Done and Skip and
    /// records the answer; returns once the child says the notification was shown (nil)
    /// or why it was not. The child is left waiting for the answer.
    func notifyAnswerable(_ reminder: DueReminder, home: String) -> String? {
        let args = ["--home", home, AnswerCommand.spec.name, reminder.habit.id.rawValue, reminder.day.description,
                    reminder.time.description]
        var child = OutsideProgram(RemindTimer.executable, args, timeLimit: Self.shownTimeLimit, errors: .inherit)
        child.watch = { $0.contains(UInt8(ascii: "\n")) }
        let run = child.run()
        let said = OutsideProgram.firstLine(run.output)
        if run.outcome == .leftRunning || run.succeeded, said == AnswerCommand.shown { return nil }
        if let said, said.hasPrefix(AnswerCommand.notShown) { return String(said.dropFirst(AnswerCommand.notShown.count)) }
        return "(through 'habitto __answer') \(run.problem ?? "showed nothing")"
    }
}

/// `habitto __answer HABIT DAY TIME`: shows one answerable reminder and records the answer
/// for the reminder's day, as `habitto check` or `habitto skip` would (started by `remind`).
/// Its first line of output says whether the notification was shown; nothing follows it.
struct AnswerCommand: Command {
    let context: Context
    /// The first line when the notification was shown.
    static let shown = "shown"
    /// The start of the first line when it was not, followed by why (words that follow
    /// "notify-send ").
    static let notShown = "not shown: "

    static var spec: CommandSpec {
        CommandSpec(name: "__answer", arguments: ["HABIT", "DAY", "TIME"],
                    summary: "Show one answerable reminder and record its answer (started by 'habitto remind').",
                    options: [], hidden: true)
    }

    /// What notify-send's first line of output says: true when it is the id of the shown
    /// notification (a whole number above 0), false when it is 0 (not shown), nil while the
    /// line is not complete or is not a number (a message such as "Failed to connect", which
    /// says nothing of a notification).
    static func shownByID(_ output: [UInt8]) -> Bool? {
        guard let line = output.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).dropLast().first,
              !line.isEmpty, line.count <= 20, line.allSatisfy({ (0x30...0x39).contains($0) }),
              let id = UInt64(String(decoding: line, as: UTF8.self)) else { return nil }
        return id != 0
    }

    @MainActor func run() async throws {
        let say = FirstLine()
        let args = invocation.arguments
        let repo = try openRepository()
        let state = await repo.state
        guard let id = HabitID(args[0]), let day = LocalDay(args[1]), let habit = state.habit(id),
              let times = try? ReminderTime.parseList(args[2]), times.count == 1 else {
            say.once(Self.notShown + "was not run: no such habit or reminder here")
            return
        }
        let notifier = Notifier(env: ProcessEnvironment.current)
        guard let program = notifier.program else { say.once(Self.notShown + "is not installed"); return }
        let progress = Output.progressText(state.dayLine(habit, on: day, today: today, settings: settings))
        let done = habit.isYesNo ? "Done" : "+1" + (habit.fields.unit.map { " " + Sanitize.display($0) } ?? "")
        var show = OutsideProgram(program, ["--app-name=Habitto", "--print-id", "--wait", "--action=done=\(done)", "--action=skip=Skip",
                                            Notifier.markupEscaped("Habitto: " + Sanitize.display(habit.name)),
                                            Notifier.markupEscaped("Reminder \(times[0]): not done on \(day) (\(progress))")],
                                  timeLimit: Notifier.answerTimeLimit, errors: .collect)
        // In this child's session, which the remind that started it ends when it gives up on
        // it: then notify-send goes too, whatever it was waiting for.
        show.isolation = .group
        // notify-send prints the notification's id once it is shown (0 when it was not).
        let sayShown = { @Sendable (output: [UInt8]) in
            if let shown = Self.shownByID(output) { say.once(shown ? Self.shown : Self.notShown + "could not show it") }
        }
        show.watch = { sayShown($0); return false }
        let result = show.run()
        sayShown(result.output)
        // No id, or a first line that is not one: only its exit status tells.
        say.once(result.succeeded ? Self.shown : Self.notShown + (result.problem ?? "showed nothing"))
        guard say.saidShown else { return }
        let answers = String(decoding: result.output, as: UTF8.self).split(separator: "\n").dropFirst().map(String.init)
        guard let answer = answers.first(where: { $0 == "done" || $0 == "skip" }) else { return }
        let today = self.today
        let intent: Intent = answer == "done" ? .checkIn(id, day) : .skip(id, day, true)
        do {
            try await repo.commit { state, _ in state.habit(id) == nil ? [] : try intent.changes(today: today, in: state) }
        } catch let e as CoreError {
            Output.warn("the answer '\(answer)' to the \(times[0]) reminder for \(Output.title(habit)) was not recorded: \(e.description)")
        }
    }
}

/// The child's one line to `remind`, said once: then standard output is closed (pointed at
/// /dev/null), so that `remind` stops reading and nothing later can write to it.
final class FirstLine: @unchecked Sendable {
    private let lock = Lock()
    private var said: String?

    var saidShown: Bool { lock.lock(); defer { lock.unlock() }; return said == AnswerCommand.shown }

    func once(_ line: String) {
        lock.lock()
        defer { lock.unlock() }
        guard said == nil else { return }
        said = line
        let bytes = Array((line + "\n").utf8)
        _ = try? bytes.withUnsafeBytes { raw in try sysCall("write") { write(1, raw.baseAddress, raw.count) } }
        if let null = try? Sys.open("/dev/null", O_WRONLY) {
            _ = try? sysCall("dup2") { dup2(null, 1) }
            Sys.close(null)
        }
    }
}
