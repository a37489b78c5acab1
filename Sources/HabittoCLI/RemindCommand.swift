import FoundationEssentials
import HabitCore
import HabitStore
#if canImport(Glibc)
import Glibc
import HabitSys
#endif

/// `habitto remind`: notifies of due habits not done whose reminder time has passed.
struct RemindCommand: Command {
    let context: Context

    static var spec: CommandSpec {
        CommandSpec(
            name: "remind", arguments: [],
            summary: "Notify of due habits not done whose reminder time has passed (--install: every 5 minutes).",
            options: [Specs.json,
                      OptionSpec(name: "--install", value: nil, help: "run it every 5 minutes: a systemd user timer, else the crontab line to add"),
                      OptionSpec(name: "--uninstall", value: nil, help: "remove the systemd user timer --install made")],
            notes: """
            A reminder fires once per habit, day and time, from its time until \(Reminders.graceMinutes / 60) hours later, for a habit
            due today that is not done (a limit habit: nothing recorded today) and not skipped. It goes to
            notify-send when DISPLAY or WAYLAND_DISPLAY is set and notify-send is on PATH, else to standard
            output; --json only reports: it prints them as JSON and marks none as shown. What was shown is kept in reminders-sent
            in the data directory; a reminder notify-send could not show (it failed, or took over
            \(Int(TimeLimits.defaults[.notifySend])) seconds) is not kept, comes again at the next run, and makes the exit status 1.
            Where notify-send offers actions (libnotify 0.7.10 and later), a notification has Done (a counted habit: +1)
            and Skip: the answer is recorded for the reminder's day, as 'habitto check' or 'habitto skip' would, by a
            child that waits for it up to \(Int(Notifier.answerTimeLimit / 60)) minutes, so no run waits for it. Each run but --json
            first runs the auto habits ('habitto auto --run').
            """)
    }

    @MainActor func run() async throws {
        let process = ProcessEnvironment.current
        let installing = invocation.flag(.install), uninstalling = invocation.flag(.uninstall)
        if installing && uninstalling { throw CLIError.usage(.contradict([.install, .uninstall])) }
        if installing || uninstalling {
            if invocation.flag(.json) { throw CLIError.usage(.jsonWithTimer) }
            let timer = RemindTimer(env: process, home: env.home)
            try installing ? timer.install() : timer.uninstall()
            return
        }
        let repo = try openRepository()
        // The timer runs the auto habits too, before it looks for what is not done (--json
        // only reports, and runs nothing).
        if !invocation.flag(.json) { try await runAutoHabits(repo) }
        let state = await repo.state
        let today = self.today
        let due = Reminders.due(in: state, now: env.now, today: today, local: AppEnvironment.localInstant,
                                dayStartHour: env.config.dayStartHour, settings: settings)
        func key(_ d: DueReminder) -> SentReminder { SentReminder(habit: d.habit.id, day: d.day, time: d.time) }
        let json = invocation.flag(.json)
        // Nothing due (most runs of the timer): no file is touched.
        if due.isEmpty {
            if json { Output.raw(JSON.array([]).serialized()) }
            return
        }
        // One process sends reminders at a time; one that finds another at it leaves them to it.
        let (held, lockWarning) = try await repo.lockReminderSending()
        if let lockWarning { Output.err(lockWarning.description) }
        guard let lock = held else {
            Output.warn("remind: another 'habitto remind' is sending the reminders now; nothing was sent here")
            if json { Output.raw(JSON.array([]).serialized()) }
            return
        }
        let (unshown, warning) = try await repo.unshownReminders(due.map(key), holding: lock)
        if let warning { Output.err(warning.description) }
        let sending = due.filter { unshown.contains(key($0)) }
        // Two days back is enough to never show again what the grace window still allows.
        let keepFrom = today.adding(-2)
        func shown(_ reminders: [DueReminder]) async throws {
            if let w = try await repo.recordRemindersShown(reminders.map(key), keepFrom: keepFrom, holding: lock) { Output.err(w.description) }
        }
        func progress(_ d: DueReminder) -> String {
            Output.progressText(state.dayLine(d.habit, on: d.day, today: today, settings: settings))
        }
        if json {
            Output.raw(JSON.array(sending.map { d in
                .object(["id": .string(d.habit.id.rawValue), "name": .string(d.habit.name), "day": .string(d.day.description),
                         "time": .string(d.time.description), "progress": .string(progress(d))])
            }).serialized())
            // A report, not a sending: the reminders stay unshown for the next 'habitto remind'.
            return
        }
        try await show(sending, notifier: Notifier(env: process), progress: progress, shown: shown)
    }

    /// Runs the auto habits; an auto file that is not used (or not valid) runs nothing and holds
    /// back no reminder, and the run still fails.
    @MainActor private func runAutoHabits(_ repo: HabitRepository) async throws {
        do {
            for line in try await AutoRun(env: env, repo: repo).runAll() where line.failed { Output.err(line.sentence()) }
        } catch let e as StoreError where e.isConfigProblem {
            Output.err("remind: \(e.description)")
            context.status = ExitCode.invalid.rawValue
        }
    }

    /// Shows each reminder, as a notification or (without a desktop) a line; each counts as
    /// shown, and is recorded, only once it was: one that could not be shown is tried again at
    /// the next run, and the first of those is named in the error.
    @MainActor private func show(_ sending: [DueReminder], notifier: Notifier, progress: (DueReminder) -> String,
                                 shown: ([DueReminder]) async throws -> Void) async throws {
        if notifier.missing && !sending.isEmpty {
            Output.warn("remind: notify-send is not installed, so reminders are printed here; install it with 'sudo apt install libnotify-bin'")
        }
        var failed: [(reminder: DueReminder, problem: String)] = []
        let answerable = !sending.isEmpty && notifier.offersActions()
        for d in sending {
            if notifier.program != nil {
                let body = "Reminder \(d.time): not done today (\(progress(d)))"
                if let problem = answerable ? notifier.notifyAnswerable(d, home: env.home)
                                            : notifier.notify(title: "Habitto: " + Sanitize.display(d.habit.name), body: body) {
                    failed.append((d, problem))
                    continue
                }
            } else {
                Output.line("Reminder \(d.time): \(Output.icon(d.habit))\(Sanitize.display(d.habit.name)) is not done today (\(progress(d)))")
            }
            try await shown([d])
        }
        guard let first = failed.first else { return }
        throw CLIError.invalid(.remindersNotShown(first: first.reminder, problem: first.problem, count: failed.count))
    }
}

/// Desktop notifications through `notify-send`, when a desktop session is there.
struct Notifier {
    /// The longest `notify-send` may take, in seconds (it returns as soon as the
    /// notification server has the notification).
    static var timeLimit: Double { TimeLimits.current[.notifySend] }
    let program: String?
    /// A desktop session is there, but `notify-send` is not.
    let missing: Bool

    /// `notify-send` from PATH when DISPLAY or WAYLAND_DISPLAY is set; else none.
    init(env: [String: String]) {
        let desktop = [env["DISPLAY"], env["WAYLAND_DISPLAY"]].contains { !($0 ?? "").isEmpty }
        program = desktop ? OutsideProgram.find("notify-send", searchPath: env["PATH"]) : nil
        missing = desktop && program == nil
    }

    /// Sends one notification; nil when notify-send showed it, else what went wrong. Title
    /// and body are escaped, since notification servers read markup in them.
    func notify(title: String, body: String) -> String? {
        guard let program else { return "is not installed" }
        return OutsideProgram(program, ["--app-name=Habitto", Self.markupEscaped(title), Self.markupEscaped(body)],
                              timeLimit: Self.timeLimit, errors: .collect).run().problem
    }

    /// `text` with the characters of notification markup (`&`, `<`, `>`, quotes) as entities.
    static func markupEscaped(_ text: String) -> String {
        text.replacingAll("&", with: "&amp;").replacingAll("<", with: "&lt;").replacingAll(">", with: "&gt;")
            .replacingAll("\"", with: "&quot;").replacingAll("'", with: "&apos;")
    }
}

/// The systemd user timer (or crontab line) that runs `habitto remind` every 5 minutes.
struct RemindTimer {
    let env: [String: String]
    let home: String
    static let service = "habitto-remind.service"
    static let timer = "habitto-remind.timer"

    /// `$XDG_CONFIG_HOME/systemd/user`, else `~/.config/systemd/user`.
    var directory: String {
        let config = env["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (env["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? ProcessEnvironment.homeDirectory) + "/.config"
        return config + "/systemd/user"
    }

    /// This program's absolute path.
    static var executable: String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = (try? sysCall("readlink") { readlink("/proc/self/exe", &buffer, buffer.count - 1) }) ?? 0
        guard n > 0 else { return CommandLine.arguments[0] }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The command the timer runs: this binary on this data directory.
    var command: [String] { [Self.executable, "--home", home, "remind"] }

    /// Why systemd cannot run this program, or nil: it refuses a program's path that holds
    /// a quote, a backslash or a control character (systemd.service(5)).
    static func unitRefusal(_ program: String) -> String? {
        guard program.unicodeScalars.contains(where: { $0 == "\"" || $0 == "'" || $0 == "\\" || $0.value < 0x20 || $0.value == 0x7F }) else { return nil }
        return "the path of this program (\(program)) holds a quote, a backslash or a control character, which systemd does not accept in a program's path"
    }

    /// The unit: `KillMode=process`, so that the children waiting for reminders' answers
    /// (`habitto __answer`) outlive the run that started them.
    var serviceText: String {
        // systemd.syntax(7) and systemd.service(5): a quoted word takes C-style escapes and
        // % starts a specifier (%% is the character); in the arguments, not in the program's
        // path, $ starts an environment variable ($$ is the character).
        func quoted(_ s: String, program: Bool) -> String {
            let text = s.replacingAll("\\", with: "\\\\").replacingAll("\"", with: "\\\"").replacingAll("%", with: "%%")
            return "\"" + (program ? text : text.replacingAll("$", with: "$$")) + "\""
        }
        let words = command.enumerated().map { quoted($0.element, program: $0.offset == 0) }
        return """
        [Unit]
        Description=Habitto reminders (habitto remind)

        [Service]
        Type=oneshot
        KillMode=process
        ExecStart=\(words.joined(separator: " "))

        """
    }

    static let timerText = """
        [Unit]
        Description=Run habitto remind every 5 minutes

        [Timer]
        OnCalendar=*:0/5
        AccuracySec=30s

        [Install]
        WantedBy=timers.target

        """

    /// The line to add with `crontab -e` where there is no systemd user instance.
    var crontabLine: String {
        func quoted(_ s: String) -> String { "'" + s.replacingAll("'", with: "'\\''").replacingAll("%", with: "\\%") + "'" }
        return "*/5 * * * * " + command.map(quoted).joined(separator: " ")
    }

    /// The longest one `systemctl --user` call may take, in seconds (`enable --now` waits for
    /// the timer to start).
    static var systemctlTimeLimit: Double { TimeLimits.current[.systemctl] }

    /// `systemctl` from PATH, or nil.
    var systemctlPath: String? { OutsideProgram.find("systemctl", searchPath: env["PATH"]) }

    /// Runs `systemctl --user ARGS`; true when it exits 0. Its first line of errors, or that it
    /// did not finish in time, is one line on standard error.
    func systemctl(_ args: [String]) -> Bool {
        guard let program = systemctlPath else { return false }
        let run = OutsideProgram(program, ["--user"] + args, timeLimit: Self.systemctlTimeLimit, errors: .collect).run()
        if run.outcome == .exited(0) { return true }
        if case .exited = run.outcome, let said = OutsideProgram.firstLine(run.errors) {
            Output.err("systemctl: " + said)
        } else if let problem = run.problem {
            Output.warn("'systemctl --user \(args.joined(separator: " "))' \(problem)")
        }
        return false
    }

    func install() throws {
        if home.contains(where: \.isNewline) {
            throw CLIError.invalid(.dataPathHasLineBreak)
        }
        if systemctlPath == nil {
            Output.line("systemctl is not installed (Debian package systemd), so no systemd timer was installed.")
        } else if let refusal = Self.unitRefusal(command[0]) {
            Output.line(refusal + ", so no systemd timer was installed.")
        } else if systemctl(["show-environment"]) {
            try Sys.makeDirectories(directory)
            try Sys.writeAtomically(Array(serviceText.utf8), to: directory + "/" + Self.service, mode: 0o644)
            try Sys.writeAtomically(Array(Self.timerText.utf8), to: directory + "/" + Self.timer, mode: 0o644)
            if systemctl(["daemon-reload"]), systemctl(["enable", "--now", Self.timer]) {
                Output.line("Installed \(directory)/\(Self.service) and \(Self.timer); reminders are checked every 5 minutes.")
                Output.line("'systemctl --user list-timers \(Self.timer)' shows it; 'habitto remind --uninstall' removes it.")
                return
            }
            Output.line("Wrote \(directory)/\(Self.service) and \(Self.timer), but 'systemctl --user enable --now \(Self.timer)' failed.")
        } else {
            Output.line("'systemctl --user' does not work here, so no systemd timer was installed.")
        }
        Output.line("To check reminders every 5 minutes with cron instead, add this line with 'crontab -e':")
        Output.line(crontabLine)
    }

    func uninstall() throws {
        let files = [Self.service, Self.timer].map { directory + "/" + $0 }
        let present = files.filter { Sys.status(followingLinks: $0) != nil }
        guard !present.isEmpty else {
            Output.line("No reminder timer is installed in \(directory). A crontab line is removed with 'crontab -e'.")
            return
        }
        let stopped = systemctl(["disable", "--now", Self.timer])
        for f in present { Sys.removeFile(f) }
        try Sys.syncDirectory(directory)
        _ = systemctl(["daemon-reload"])
        Output.line("Removed \(present.joined(separator: " and "))" + (stopped ? "; the timer is stopped." : "."))
    }
}
