import HabitTUI
import HabitStore

/// The man page `habitto.1`, generated from the command table (the one `--help` and the
/// completions read), the UI's key map and the documented files, environment and exit codes.
enum ManPage {
    /// Text for roff: backslashes escaped, a leading `.` or `'` protected, and any other
    /// character than ASCII written as a groff Unicode escape (`\[u2713]`).
    static func escape(_ s: String) -> String {
        var out = ""
        for u in s.unicodeScalars {
            switch u {
            case "\\": out += "\\e"
            case "-": out += "\\-"
            case _ where u.value < 0x80: out.unicodeScalars.append(u)
            default: out += "\\[u" + String(u.value, radix: 16, uppercase: true).leftPadded(4) + "]"
            }
        }
        if out.hasPrefix(".") || out.hasPrefix("'") { out = "\\&" + out }
        return out
    }

    static func bold(_ s: String) -> String { "\\fB" + escape(s) + "\\fR" }
    static func italic(_ s: String) -> String { "\\fI" + escape(s) + "\\fR" }

    /// An option as a tag: `\fB--goal\fR \fIN\fR`.
    static func tag(_ o: OptionSpec) -> String { bold(o.name) + (o.value.map { " " + italic($0) } ?? "") }

    /// Lines of text, each as its own output line (a paragraph per line of `text`).
    static func lines(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: true)
            .map { escape(String($0.drop(while: { $0 == " " }))) }.joined(separator: "\n.br\n") + "\n"
    }

    /// The files Habitto reads and writes, and what each is.
    static let files: [(String, String)] = [
        ("$XDG_DATA_HOME/habitto/", "the data directory (default ~/.local/share/habitto; --home or $HABITTO_HOME replace it): journal.hbj (the truth), snapshot.bin (a cache), device, lock, backups/, recovered/, imports.json, remote (the sync settings), sync.json (the sync cursor and status), sync.json.lock and sync.lock (held while sync.json is rewritten and while a round runs), reminders-sent and reminders-sent.lock (the reminders shown), segment (the prompt segment's cache)"),
        ("$XDG_CONFIG_HOME/habitto/config", "the config file (default ~/.config/habitto/config): key = value lines"),
        ("$XDG_CONFIG_HOME/habitto/themes/", "your themes, NAME.theme"),
        ("$XDG_CONFIG_HOME/habitto/keys", "your key bindings"),
        ("PREFIX/share/habitto/themes/", "the bundled themes, found next to the installed binary (../share/habitto/themes)"),
    ]

    /// The environment variables Habitto reads.
    static let environment: [(String, String)] = [
        ("HABITTO_HOME", "the data directory, when --home is not given"),
        ("HABITTO_NOW", "an ISO-8601 date-time that replaces the clock (tests and demos), e.g. 2026-11-21T09:30:00"),
        (BackgroundRound.variable, "true or false: whether a change made by a command starts a sync round in the background (wins over sync_after_change in the config)"),
        ("HABITTO_THEMES_DIR", "a further directory of bundled themes"),
        (TimerClock.variable, "a number from 1 to 100000: timers (habitto timer, the UI's t) run that many times as fast (tests and demos)"),
        (TimeLimits.variable, "NAME=SECONDS,… shortens the time limits of outside programs and lock waits (tests), never beyond the defaults; see the configuration manual"),
        ("HABITTO_WEBDAV_PASSWORD", "the WebDAV password (else password_command or password_file in the config)"),
        ("XDG_DATA_HOME, XDG_CONFIG_HOME", "where the data and config directories are (default ~/.local/share and ~/.config)"),
        ("NO_COLOR", "when set and not empty, the UI uses no colours"),
        ("LC_ALL, LC_CTYPE, LANG", "the first one set decides the character set: a locale that is not UTF-8 gives ASCII output, as --ascii does"),
        ("TZ", "the time zone of \"today\""),
    ]

    /// The exit statuses of commands.
    static let exitCodes: [(Int32, String)] = ExitCode.allCases.map { ($0.rawValue, $0.meaning) }

    static func render(_ specs: [CommandSpec], keys: KeyMap = .defaults) -> String {
        var s = ".TH HABITTO 1 \"\" \"habitto \(habittoVersion)\" \"User Commands\"\n"
        s += ".SH NAME\nhabitto \\- a keyboard\\-driven habit tracker for the terminal\n"
        s += ".SH SYNOPSIS\n.B habitto\n[\(bold("--home")) \(italic("DIR"))] [\(bold("--theme")) \(italic("NAME"))] [\(bold("--ascii"))]\n"
        s += ".br\n.B habitto\n[\(bold("--home")) \(italic("DIR"))] \(italic("COMMAND")) [\(italic("OPTIONS"))]\n"
        s += ".SH DESCRIPTION\n" + lines("""
        Habitto tracks habits: you check in on today's habits, rate how hard each one was, and watch streaks, habit strength and XP grow, in a full-screen UI (run without a command) or from scripts. Every change is written to a local, append-only, checksummed journal before Habitto says it is done, and can sync through a shared folder or a WebDAV server.
        """)
        s += ".PP\n" + lines("HABIT is an id, an exact name (any case) or a unique prefix of a name. A DATE is \(Specs.dateForms).")
        s += ".SH OPTIONS\n"
        for o in Specs.globalOptions { s += ".TP\n" + tag(o) + "\n" + escape(o.help) + "\n" }
        s += ".SH COMMANDS\n"
        for c in specs where !c.hidden {
            let args = c.arguments.map(italic) + c.optionalArguments.map { "[" + italic($0) + "]" }
            s += ".TP\n" + (["\\fBhabitto " + escape(c.name) + "\\fR"] + args + (c.options.isEmpty ? [] : ["[" + italic("OPTIONS") + "]"]))
                .joined(separator: " ") + "\n" + escape(c.summary) + "\n"
            if !c.notes.isEmpty { s += ".IP\n" + lines(c.notes) }
            if !c.options.isEmpty {
                s += ".RS\n"
                for o in c.options { s += ".TP\n" + tag(o) + "\n" + escape(o.help) + "\n" }
                s += ".RE\n"
            }
        }
        s += ".SH KEYS\n" + lines("The keys of the full-screen UI, by screen (? there shows them too). They can be changed in $XDG_CONFIG_HOME/habitto/keys. The mouse wheel is the keys wheel-up and wheel-down; a click on a footer entry presses its key, a click on a row selects it, on its state mark checks in (mouse = false in the config turns the mouse off).")
        for mode in Mode.allCases {
            let bindings = keys.bindings(in: mode)
            guard !bindings.isEmpty else { continue }
            s += ".SS " + escape(mode.rawValue.prefix(1).uppercased() + mode.rawValue.dropFirst()) + "\n"
            for b in bindings {
                s += ".TP\n" + b.keys.map { bold($0.description) }.joined(separator: ", ") + "\n" + escape(b.label) + "\n"
            }
        }
        s += ".SH FILES\n"
        for (path, what) in ManPage.files { s += ".TP\n" + italic(path) + "\n" + escape(what) + "\n" }
        s += ".SH ENVIRONMENT\n"
        for (name, what) in ManPage.environment { s += ".TP\n" + bold(name) + "\n" + escape(what) + "\n" }
        s += ".SH EXIT STATUS\n"
        for (code, what) in ManPage.exitCodes { s += ".TP\n" + bold(String(code)) + "\n" + escape(what) + "\n" }
        s += ".SH SEE ALSO\n" + lines("The docs folder of the source tree (docs/): the UI, commands, rules, sync, themes, configuration and performance.")
        return s
    }
}

private extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
