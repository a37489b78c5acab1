import FoundationEssentials
import HabitCore
import HabitStore
#if canImport(Glibc)
import Glibc
import HabitSys
#endif

/// The clock timers count on (`habitto timer`, the UI's `t`): the monotonic clock, which
/// neither `HABITTO_NOW` nor a change of the wall clock moves, in seconds, run `speed`
/// times as fast when `HABITTO_TIMER_SPEED` says so (for tests and demos: 60 makes a
/// minute pass in a second).
public struct TimerClock: Sendable {
    /// The variable that speeds the timer clock up.
    public static let variable = "HABITTO_TIMER_SPEED"
    /// Timer seconds per real second (1 unless `HABITTO_TIMER_SPEED` is set).
    public let speed: Double

    /// The timer clock the environment asks for; a speed that is not a number from 1 to
    /// 100000 is a usage error.
    public static func fromEnvironment() throws -> TimerClock {
        guard let text = ProcessEnvironment.value(variable), !text.isEmpty else { return TimerClock(speed: 1) }
        guard let speed = Double(text), speed >= 1, speed <= 100_000 else { throw CLIError.usage(.timerSpeed(text)) }
        return TimerClock(speed: speed)
    }

    /// The timer clock now, in timer seconds.
    public func now() -> Double { SystemClock.monotonicSeconds() * speed }

    /// Real milliseconds until the timer clock has moved `seconds` (at least 5, at most 1000).
    func milliseconds(for seconds: Double) -> Int32 { Int32(max(5, min(1000, (seconds / speed * 1000).rounded(.up)))) }
}

/// A desktop notification for a timer that ended, where `notify-send` and a desktop are;
/// nil when it was shown or there is no desktop, else the one line that says why not (with
/// the Debian package to install when `notify-send` is missing).
public func timerNotification(title: String, body: String) -> String? {
    let notifier = Notifier(env: ProcessEnvironment.current)
    if notifier.missing { return "no notification: notify-send is not installed; install it with 'sudo apt install libnotify-bin'" }
    guard notifier.program != nil else { return nil }
    return notifier.notify(title: title, body: body).map { "the notification was not shown: notify-send \($0)" }
}

/// `habitto timer HABIT DURATION`: counts down, then checks the habit in.
struct TimerCommand: Command {
    let context: Context

    static var spec: CommandSpec {
        CommandSpec(
            name: "timer", arguments: ["HABIT", "DURATION"],
            summary: "Count DURATION down (25, 25m, 1h30m, 90s), then check the habit in.",
            options: [Specs.date,
                      OptionSpec(name: "--record-partial", value: nil,
                                 help: "when stopped early (Ctrl-C), record what it ran instead of nothing")],
            notes: """
            DURATION is whole minutes (25) or h, m and s (25m, 1h30m, 90s), from 1 second to \(HabitTimer.longest / 3600) hours.
            When it ends the habit is checked in on the day (--date, default today): a habit counted in minutes
            (unit min, mins, minute or minutes) gets the minutes, any other +1; a notification goes to notify-send when a
            desktop session is there. On a terminal the time left is shown on one line; otherwise a line says
            it each minute. Ctrl-C (or SIGTERM, SIGHUP) stops it and records nothing, unless --record-partial
            is given: then it records what it ran (the whole minutes, or +1); either way the exit status is 130
            (128 + the signal).
            """)
    }

    @MainActor func run() async throws {
        let seconds = try HabitTimer.parseDuration(invocation.arguments[1])
        let date = try day(invocation.value(.date))
        let partial = invocation.flag(.recordPartial)
        let clock = try TimerClock.fromEnvironment()
        let repo = try openRepository()
        let habit = try Edits.find(invocation.arguments[0], in: await repo.state)
        try Edits.checkDay(habit, date, today: today)
        let signals = try context.ui.watchSignals()
        let name = Output.icon(habit) + Sanitize.display(habit.name)
        let onTerminal = isatty(1) == 1
        let timer = HabitTimer(habit: habit.id, day: date, duration: seconds, start: clock.now())
        let then = HabitTimer.recordWords(habit, ran: Double(seconds)).map { ", then \($0)" } ?? ""
        Output.line("Timer: \(name), \(HabitTimer.durationText(seconds))\(then) (Ctrl-C stops it\(partial ? " and records what it ran" : ""))")
        var lastMinute = (seconds + 59) / 60
        while true {
            if let sig = signals.pendingSignal {
                if onTerminal { Output.text("\n") }
                try await stopped(timer, habit, ran: timer.elapsed(at: clock.now()), partial: partial, repo: repo)
                context.status = ExitCode.interrupted(by: sig)
                return
            }
            let now = clock.now()
            if timer.isFinished(at: now) { break }
            let left = timer.remaining(at: now)
            if onTerminal {
                // One line, rewritten in place (the name cut to the terminal's width, read
                // each time, so a resize never wraps it); the cursor stays at its end.
                let room = ChartWidth.current() - 2 - TextWidth.of(": \(HabitTimer.clock(left)) left")
                let shown = TextWidth.of(name) <= room ? name : TextWidth.fit(name, max(1, room))
                Output.text("\r\(shown): \(HabitTimer.clock(left)) left\u{1B}[K")
                fflush(nil)
            } else if Int((left / 60).rounded(.up)) < lastMinute {
                // A line as each minute starts (and one for the last).
                lastMinute = Int((left / 60).rounded(.up))
                Output.line("\(HabitTimer.clock(left)) left")
            }
            // Until the shown second changes, or a signal wakes the pipe.
            let toNext = left - (left.rounded(.up) - 1)
            var fds = [pollfd(fd: signals.readFD, events: Int16(POLLIN), revents: 0)]
            _ = try? sysCall("poll") { poll(&fds, 1, clock.milliseconds(for: toNext)) }
        }
        if onTerminal { Output.text("\r\(name): \(HabitTimer.clock(0)) left\u{1B}[K\n") }
        if let intent = HabitTimer.intent(habit, day: date, ran: Double(seconds)) {
            Output.line("Timer done: " + (try await commit(intent, repo)))
        }
        if let problem = timerNotification(title: "Habitto: " + Sanitize.display(habit.name),
                                           body: "Timer done (\(HabitTimer.durationText(seconds))): \(HabitTimer.recordWords(habit, ran: Double(seconds)) ?? "") recorded") {
            Output.warn("timer: " + problem)
        }
    }

    /// A timer stopped early: what it ran is recorded only with --record-partial.
    @MainActor private func stopped(_ timer: HabitTimer, _ habit: Habit, ran: Double, partial: Bool, repo: HabitRepository) async throws {
        let after = "Stopped after \(HabitTimer.clock(ran))"
        guard partial else {
            Output.line("\(after): nothing recorded (--record-partial records what it ran)")
            return
        }
        guard let intent = HabitTimer.intent(habit, day: timer.day, ran: ran) else {
            Output.line("\(after): under a minute, nothing to record")
            return
        }
        Output.line("\(after): " + (try await commit(intent, repo)))
    }

    /// Commits the timer's check-in and says what it did.
    @MainActor private func commit(_ intent: Intent, _ repo: HabitRepository) async throws -> String {
        let today = self.today
        let result = try await repo.commit { state, _ in try intent.changes(today: today, in: state) }
        return Output.says(intent.outcome(changed: !result.operations.isEmpty, state: result.state, today: today, settings: settings))
    }
}
