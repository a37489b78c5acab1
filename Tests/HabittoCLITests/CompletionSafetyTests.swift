import Foundation
import XCTest

/// Habit names, which another device may have chosen through sync, completed with Tab in a
/// real interactive bash, zsh and fish in tmux: typed, Tab, Enter. In each quoting the name
/// lands in (none, `'…'`, `"…"`), the command gets the exact name as one argument, which a
/// `habitto` in front of the built one on PATH records, and nothing in a name runs.
final class CompletionSafetyTests: XCTestCase {
    var box: Sandbox!
    var session: TmuxSession?

    override func setUp() { box = Sandbox() }

    override func tearDown() {
        session?.kill()
        session = nil
        box = nil
    }

    /// Names that would run a command, redirect, expand or split if inserted as they are,
    /// each with the one word it starts with, typed before Tab. Run, any of them creates a
    /// file in the shell's working directory or changes the argument.
    static let hostile: [(name: String, word: String)] = [
        ("Read $(touch ran-dollar)", "Read"),
        ("Tick `touch ran-backquote`", "Tick"),
        ("Say \"hi\" > ran-redirect", "Say"),
        ("Don't; touch ran-semicolon", "Don"),
        ("Back\\slash && touch ran-and", "Back"),
        ("Pipe | tee ran-pipe", "Pipe"),
        ("Glob * ? [a] {a,b} ~ # $HOME", "Glob"),
        ("-dash (first) $(touch ran-dash)", "-da"),
        ("Bang !$ !! !-1 wow!", "Bang"),
        ("Squote ends'", "Squote"),
        ("Dquote ends\"", "Dquote"),
        ("Slash ends\\", "Slash"),
        ("Über 📚 =:x", "Über"),
    ]

    /// Names that start with a quote or `!`, each alone in a data directory of its own,
    /// completed from nothing typed.
    static let starting = ["'Quoted' start", "\"Double\" start", "!bang start"]

    static let quotes = ["", "'", "\""]

    /// A line to type after the prompt, and the arguments the command must get.
    struct Case {
        let line: String
        let arguments: [String]
    }

    var cwd: String { box.root + "/cwd" }
    var argumentsFile: String { box.root + "/arguments" }
    var promptsFile: String { box.root + "/prompts" }

    /// The hostile habits in the sandbox's data directory and the starting ones in their
    /// own; a `habitto` that records its arguments (other than the completion's calls) and
    /// runs the built one; an empty working directory for the shell.
    func prepare() throws {
        for (name, _) in Self.hostile { box.ok("add", "--", name) }
        for (i, name) in Self.starting.enumerated() { box.ok("--home", home(i), "add", "--", name) }
        for dir in [cwd, box.root + "/bin"] { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) }
        let wrapper = box.root + "/bin/habitto"
        try """
        #!/bin/sh
        for a; do [ "$a" = __complete ] && exec \(word(Sandbox.binary)) "$@"; done
        printf '%s\\0' "$@" > \(word(argumentsFile + ".tmp")) && mv \(word(argumentsFile + ".tmp")) \(word(argumentsFile))
        exec \(word(Sandbox.binary)) "$@"

        """.write(toFile: wrapper, atomically: true, encoding: .utf8)
        XCTAssertEqual(chmod(wrapper, 0o755), 0)
    }

    func home(_ i: Int) -> String { box.root + "/one-\(i)" }

    /// A path or value in single quotes, which bash, zsh and fish read alike for these.
    func word(_ path: String) -> String {
        XCTAssertTrue(path.allSatisfy { $0.isLetter || $0.isNumber || "/-_.:".contains($0) }, path)
        return "'" + path + "'"
    }

    /// The exports the shells need, as `NAME VALUE` pairs.
    var exports: [(String, String)] {
        [("HABITTO_HOME", box.home), ("XDG_CONFIG_HOME", box.config), ("HABITTO_NOW", box.now), ("TZ", "UTC"),
         ("LANG", "C.UTF-8"), ("PATH", box.root + "/bin:/usr/bin:/bin")]
    }

    /// Every hostile name completed from its first word in the three quotings (after `--`
    /// for a name that starts with `-`), and every starting name from nothing.
    var everyQuoting: [Case] {
        var cases: [Case] = []
        for q in Self.quotes {
            for (name, first) in Self.hostile {
                let dash = name.hasPrefix("-") ? ["--"] : []
                cases.append(Case(line: "habitto check " + dash.map { $0 + " " }.joined() + q + first,
                                  arguments: ["check"] + dash + [name]))
            }
            for (i, name) in Self.starting.enumerated() {
                cases.append(Case(line: "habitto --home \(home(i)) check " + q, arguments: ["--home", home(i), "check", name]))
            }
        }
        return cases
    }

    /// Starts `command` in a new tmux window and waits for its first prompt.
    func start(_ command: [String], file: StaticString = #filePath, line: UInt = #line) throws -> TmuxSession {
        let s = try TmuxSession.forTest(box: box)
        session = s
        s.tmux(["new-session", "-d", "-s", "ui", "-x", "250", "-y", "50"] + command)
        if !prompted(1) { XCTFail("the shell showed no prompt; the screen was:\n\(s.screen())", file: file, line: line) }
        return s
    }

    /// The prompts the shell has shown (it appends a line to `promptsFile` at each one).
    func prompts() -> Int {
        ((try? String(contentsOfFile: promptsFile, encoding: .utf8)) ?? "").filter { $0 == "\n" }.count
    }

    /// Waits for the shell's `n`th prompt; false when it has not come within 10 seconds.
    func prompted(_ n: Int) -> Bool {
        let deadline = Date().addingTimeInterval(10)
        while prompts() < n {
            if Date() > deadline { return false }
            usleep(20_000)
        }
        return true
    }

    /// The last line of the screen with text, without trailing spaces.
    func lastLine(_ screen: String) -> String {
        let line = screen.split(separator: "\n").last { !$0.allSatisfy(\.isWhitespace) } ?? ""
        return String(line.reversed().drop { $0 == " " }.reversed())
    }

    /// Types each case's line, Tab, Enter; checks the arguments the command got, and that
    /// nothing created a file in the working directory. Stops after ten failures.
    func drive(_ s: TmuxSession, _ cases: [Case], file: StaticString = #filePath, line: UInt = #line) {
        for c in cases {
            if (testRun?.totalFailureCount ?? 0) >= 10 {
                XCTFail("stopped after ten failures", file: file, line: line)
                return
            }
            let shown = prompts()
            try? FileManager.default.removeItem(atPath: argumentsFile)
            s.type(c.line)
            var typed = ""
            s.waitFor("'\(c.line)' typed", file: file, line: line) { typed = self.lastLine($0); return typed.hasSuffix(self.lastLine(c.line)) }
            s.send("Tab")
            var completed = ""
            s.waitFor("Tab after '\(c.line)'", timeout: 5, file: file, line: line) { completed = self.lastLine($0); return completed != typed }
            s.send("Enter")
            if !prompted(shown + 1) {
                XCTFail("'\(c.line)' completed as '\(completed)' left no prompt; the screen was:\n\(s.screen())", file: file, line: line)
                // Ctrl-C drops the unfinished line, so the next case starts at a prompt.
                s.send("C-c")
                if !prompted(shown + 1) { return }
            }
            let got = ((try? String(contentsOfFile: argumentsFile, encoding: .utf8)) ?? "")
                .split(separator: "\0", omittingEmptySubsequences: false).dropLast().map(String.init)
            XCTAssertEqual(got, c.arguments, "'\(c.line)' completed as '\(completed)'", file: file, line: line)
            let left = (try? FileManager.default.contentsOfDirectory(atPath: cwd)) ?? []
            XCTAssertEqual(left, [], "'\(c.line)' completed as '\(completed)' ran a command", file: file, line: line)
            for f in left { try? FileManager.default.removeItem(atPath: cwd + "/" + f) }
        }
    }

    /// Every hostile habit got its check-in, and no habit appeared.
    func assertEveryHabitChecked(file: StaticString = #filePath, line: UInt = #line) {
        let list = (box.json("list", "--all", "--json", file: file, line: line) as? [[String: Any]]) ?? []
        XCTAssertEqual(list.compactMap { $0["name"] as? String }.sorted(), Self.hostile.map(\.name).sorted(), file: file, line: line)
        for h in list { XCTAssertEqual(h["progress"] as? Int, 1, "\(h["name"] ?? "")", file: file, line: line) }
    }

    func testBashEscapesEveryNameForTheQuoteItLandsInAndRunsNothing() throws {
        try prepare()
        let script = box.root + "/habitto.bash"
        try box.ok("completions", "bash").write(toFile: script, atomically: true, encoding: .utf8)
        let rc = box.root + "/bashrc"
        try (["PS1='$ '", "PROMPT_COMMAND='echo >> \(word(promptsFile))'", "HISTFILE=\(word(box.root + "/history"))",
              "set -o histexpand", "unset LC_ALL LC_CTYPE"]
            + exports.map { "export \($0.0)=\(word($0.1))" } + ["cd \(word(cwd))", "source \(word(script))"])
            .joined(separator: "\n").write(toFile: rc, atomically: true, encoding: .utf8)
        let s = try start(["env", "INPUTRC=/dev/null", "/bin/bash", "--noprofile", "--rcfile", rc, "-i"])
        // The issue's lines: typed up to the $ of the name, in the three quotings; and a
        // name typed in full inside a quote that is then reopened, completed from nothing.
        let read = Self.hostile[0].name, squote = Self.hostile[9].name
        drive(s, everyQuoting + [
            Case(line: "habitto check \"Read $", arguments: ["check", read]),
            Case(line: "habitto check 'Read $", arguments: ["check", read]),
            Case(line: "habitto check Read\\ \\$", arguments: ["check", read]),
            Case(line: "habitto check 'Squote ends'\\''", arguments: ["check", squote]),
        ])
        assertEveryHabitChecked()
    }

    func testZshEscapesEveryNameForTheQuoteItLandsInAndRunsNothing() throws {
        try prepare()
        let functions = box.root + "/zfunc", dotdir = box.root + "/zdot"
        for d in [functions, dotdir] { try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true) }
        try box.ok("completions", "zsh").write(toFile: functions + "/_habitto", atomically: true, encoding: .utf8)
        try (["PS1='$ '", "precmd() { echo >> \(word(promptsFile)) }", "HISTFILE=\(word(box.root + "/history"))", "unset LC_ALL LC_CTYPE"]
            + exports.map { "export \($0.0)=\(word($0.1))" }
            + ["fpath=(\(word(functions)) $fpath)", "autoload -Uz compinit && compinit -u -D", "cd \(word(cwd))"])
            .joined(separator: "\n").write(toFile: dotdir + "/.zshrc", atomically: true, encoding: .utf8)
        let s = try start(["env", "ZDOTDIR=" + dotdir, try ShellIntegrationTests.tool("zsh"), "-d", "-i"])
        drive(s, everyQuoting)
        assertEveryHabitChecked()
    }

    func testFishEscapesEveryNameForTheQuoteItLandsInAndRunsNothing() throws {
        try prepare()
        let config = box.root + "/fishconfig/fish"
        try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
        let script = box.root + "/habitto.fish"
        try box.ok("completions", "fish").write(toFile: script, atomically: true, encoding: .utf8)
        try (["function fish_greeting; end", "function fish_prompt; echo -n '$ '; end",
              "function __prompted --on-event fish_prompt; echo >> \(word(promptsFile)); end",
              "set -g fish_autosuggestion_enabled 0", "set -e LC_ALL", "set -e LC_CTYPE"]
            + exports.map { "set -gx \($0.0) \(word($0.1))" } + ["cd \(word(cwd))", "source \(word(script))"])
            .joined(separator: "\n").write(toFile: config + "/config.fish", atomically: true, encoding: .utf8)
        let s = try start(["env", "XDG_CONFIG_HOME=" + box.root + "/fishconfig", "XDG_DATA_HOME=" + box.root + "/fishdata",
                           try ShellIntegrationTests.tool("fish"), "-i"])
        drive(s, everyQuoting)
        assertEveryHabitChecked()
    }

    /// zsh's compadd quotes a name for the cursor's quoting unless given -Q, and fish
    /// escapes the candidates it is given: the scripts hand both the names as they are.
    func testTheZshAndFishScriptsLeaveTheQuotingToTheShell() throws {
        let zsh = box.ok("completions", "zsh")
        XCTAssertTrue(zsh.contains("compadd -a items"))
        let code = zsh.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("#") }
        XCTAssertFalse(code.contains { $0.contains("compadd") && $0.contains("-Q") }, zsh)
        try prepare()
        let fish = try ShellIntegrationTests.tool("fish"), script = box.root + "/habitto.fish"
        try box.ok("completions", "fish").write(toFile: script, atomically: true, encoding: .utf8)
        box.extraEnv["PATH"] = box.root + "/bin:/usr/bin:/bin"
        let r = box.run(["--no-config", "-c", "source \(script); complete -C 'habitto check \"Rea'"], program: fish)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "Read $(touch ran-dollar)\n")
    }

    /// The names a listing can print: the store refuses a name with a control character
    /// (a newline would split it in two lines of `__complete`), so every line is one name.
    func testEveryNameIsOneLineOfTheListing() throws {
        try prepare()
        for bad in ["two\nlines", "esc\u{1B}[31m", "tab\there", "del\u{7F}"] {
            let r = box.run("add", bad)
            XCTAssertNotEqual(r.status, 0, bad.debugDescription)
            XCTAssertTrue(r.stderr.contains("control character"), r.stderr)
        }
        XCTAssertEqual(box.ok("__complete", "habits"), Self.hostile.map { $0.name + "\n" }.joined())
    }
}
