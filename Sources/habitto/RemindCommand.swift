import FoundationEssentials
import HabitCore
import HabitStore
#if canImport(Glibc)
import Glibc
#endif

extension Runner {
    /// `habitto remind`, as data for the help and the parser.
    nonisolated static let remindSpec = CommandSpec(
        name: "remind", arguments: [],
        summary: "Notify of due habits not done whose reminder time has passed (--install: every 5 minutes).",
        options: [Specs.json,
                  OptionSpec(name: "--install", value: nil, help: "run it every 5 minutes: a systemd user timer, else the crontab line to add"),
                  OptionSpec(name: "--uninstall", value: nil, help: "remove the systemd user timer --install made")],
        notes: """
        A reminder fires once per habit, day and time, from its time until \(Reminders.graceMinutes / 60) hours later, for a habit
        due today that is not done (a limit habit: nothing recorded today) and not skipped. It goes to
        notify-send when DISPLAY or WAYLAND_DISPLAY is set and notify-send is on PATH, else to standard
        output; --json prints the reminders as JSON instead. What was sent is kept in reminders-sent
        in the data directory.
        """)

    func remind() async throws {
        let process = ProcessEnvironment.current
        let installing = invocation.has("--install"), uninstalling = invocation.has("--uninstall")
        if installing && uninstalling { throw CLIError.usage("--install and --uninstall contradict each other") }
        if installing || uninstalling {
            if invocation.has("--json") { throw CLIError.usage("--json is for reminders, not with --install or --uninstall") }
            let timer = RemindTimer(env: process, home: env.home)
            try installing ? timer.install() : timer.uninstall()
            return
        }
        let repo = try openRepository()
        let state = await repo.state
        let today = self.today
        let due = Reminders.due(in: state, now: env.now, today: today, local: AppEnvironment.localInstant,
                                dayStartHour: env.config.dayStartHour, settings: settings)
        let wanted = due.map { SentReminder(habit: $0.habit.id, day: $0.day, time: $0.time) }
        // Two days back is enough to never send again what the grace window still allows.
        let (claimed, warning) = try await repo.claimReminders(wanted, keepFrom: today.adding(-2))
        if let warning { Output.err(warning) }
        let sending = due.filter { d in claimed.contains(SentReminder(habit: d.habit.id, day: d.day, time: d.time)) }
        if invocation.has("--json") {
            Output.raw(JSON.array(sending.map { d in
                .object(["id": .string(d.habit.id.rawValue), "name": .string(d.habit.name), "day": .string(d.day.description),
                         "time": .string(d.time.description),
                         "progress": .string(Output.progressText(state.dayLine(d.habit, on: d.day, today: today, settings: settings)))])
            }).serialized())
            return
        }
        let notifier = Notifier(env: process)
        for d in sending {
            let progress = Output.progressText(state.dayLine(d.habit, on: d.day, today: today, settings: settings))
            let body = "Reminder \(d.time): not done today (\(progress))"
            if !notifier.notify(title: "Habitto: " + Sanitize.display(d.habit.name), body: body) {
                Output.line("Reminder \(d.time): \(Output.icon(d.habit))\(Sanitize.display(d.habit.name)) is not done today (\(progress))")
            }
        }
    }
}

/// Desktop notifications through `notify-send`, when a desktop session is there.
struct Notifier {
    let program: String?

    /// `notify-send` from PATH when DISPLAY or WAYLAND_DISPLAY is set; else none.
    init(env: [String: String]) {
        let desktop = [env["DISPLAY"], env["WAYLAND_DISPLAY"]].contains { !($0 ?? "").isEmpty }
        program = desktop ? Programs.find("notify-send", env: env) : nil
    }

    /// Sends one notification; false when there is no notify-send or it failed (the caller
    /// prints a line instead). The body is escaped, since notification servers read markup.
    func notify(title: String, body: String) -> Bool {
        guard let program else { return false }
        let escaped = body.replacingAll("&", with: "&amp;").replacingAll("<", with: "&lt;")
            .replacingAll(">", with: "&gt;")
        return Programs.run(program, ["--app-name=Habitto", title, escaped], quiet: true) == 0
    }
}

/// Finding and running other programs.
enum Programs {
    /// The first executable regular file `name` in PATH's directories, or nil.
    static func find(_ name: String, env: [String: String]) -> String? {
        for dir in (env["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":") where !dir.isEmpty {
            let path = "\(dir)/\(name)"
            if let st = Sys.status(followingLinks: path), st.st_mode & S_IFMT == S_IFREG, access(path, X_OK) == 0 { return path }
        }
        return nil
    }

    /// Runs a program to its end with standard input from /dev/null and standard output
    /// discarded (standard error too when `quiet`); its exit status, or nil when it could
    /// not start or was killed.
    static func run(_ path: String, _ args: [String], quiet: Bool) -> Int32? {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        if quiet { posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0) }
        let argv = ([path] + args).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, path, &actions, nil, argv, environ) == 0 else { return nil }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { return nil }
        }
        // WIFEXITED / WEXITSTATUS.
        return status & 0x7f == 0 ? (status >> 8) & 0xff : nil
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
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return CommandLine.arguments[0] }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The command the timer runs: this binary on this data directory.
    var command: [String] { [Self.executable, "--home", home, "remind"] }

    var serviceText: String {
        // systemd reads a quoted word with C-style escapes; % starts a specifier.
        func quoted(_ s: String) -> String {
            "\"" + s.replacingAll("\\", with: "\\\\").replacingAll("\"", with: "\\\"")
                .replacingAll("%", with: "%%") + "\""
        }
        return """
        [Unit]
        Description=Habitto reminders (habitto remind)

        [Service]
        Type=oneshot
        ExecStart=\(command.map(quoted).joined(separator: " "))

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

    /// Runs `systemctl --user ARGS`; true when it exits 0.
    func systemctl(_ args: [String]) -> Bool {
        guard let program = Programs.find("systemctl", env: env) else { return false }
        return Programs.run(program, ["--user"] + args, quiet: false) == 0
    }

    func install() throws {
        if home.contains(where: \.isNewline) {
            throw CLIError.invalid("the data directory's path contains a line break; a timer cannot name it")
        }
        if systemctl(["show-environment"]) {
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
