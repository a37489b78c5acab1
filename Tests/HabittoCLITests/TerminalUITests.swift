import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// A tmux server of its own (private socket) running the real binary in one window.
final class TmuxSession {
    let socket = "habitto-test-\(UUID().uuidString.prefix(8))"
    let box: Sandbox
    let exitFile: String

    init(box: Sandbox) {
        self.box = box
        exitFile = box.root + "/tui-exit-\(UUID().uuidString.prefix(6))"
    }

    /// A session for a test; tmux missing fails the test (never skipped: .ci/test.sh
    /// installs it).
    static func forTest(box: Sandbox) throws -> TmuxSession {
        guard tmuxPath != nil else {
            XCTFail("tmux is not installed; run the suite with 'bash .ci/test.sh', which installs it")
            throw XCTestError(.failureWhileWaiting)
        }
        return TmuxSession(box: box)
    }

    static var tmuxPath: String? {
        ["/usr/bin/tmux", "/usr/local/bin/tmux", "/bin/tmux"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs a tmux command and waits for it, with posix_spawn and waitpid (the tmux client
    /// that starts the server daemonises it, which Foundation's Process does not always
    /// notice the end of). Output goes to a file, not a pipe the server could keep open.
    @discardableResult
    func tmux(_ args: [String]) -> (status: Int32, output: String) {
        let outPath = box.root + "/tmux-out-\(UUID().uuidString.prefix(8))"
        defer { unlink(outPath) }
        let argv = [TmuxSession.tmuxPath ?? "/usr/bin/tmux", "-L", socket, "-f", "/dev/null"] + args
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var cargs = argv.map { strdup($0) } + [nil]
        defer { for a in cargs { free(a) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, argv[0], &actions, nil, &cargs, environ) == 0 else { return (-1, "cannot start tmux") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let output = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
        return ((status >> 8) & 0xFF, output)
    }

    /// Starts `habitto ARGS` in an 80×24 window; afterwards the shell writes the exit
    /// status and the terminal's settings to `exitFile`.
    func start(_ args: [String] = [], width: Int = 80, height: Int = 24, env extra: [String: String] = [:]) {
        var env = box.environment
        env["LANG"] = "C.UTF-8"
        env["LC_ALL"] = "C.UTF-8"
        for (k, v) in extra { env[k] = v }
        // The sandbox's own variables, and every one `extra` gives.
        let exports = env.filter { ["HABITTO_HOME", "XDG_CONFIG_HOME", "HABITTO_NOW", "TZ", "LANG", "LC_ALL", "NO_COLOR", "HOME", "HABITTO_FAULTS", "HABITTO_FIRST_KEYS"].contains($0.key) || extra[$0.key] != nil }
            .map { "export \($0.key)='\($0.value)';" }.joined(separator: " ")
        // The shell catches SIGINT (a caught signal is reset in the child), so Ctrl-C reaches
        // habitto and the shell survives to record how it ended.
        let command = "trap ':' INT; \(exports) '\(Sandbox.binary)' \(args.map { "'\($0)'" }.joined(separator: " ")); "
            + "echo \"EXIT=$?\" > '\(exitFile).tmp'; stty -a >> '\(exitFile).tmp'; mv '\(exitFile).tmp' '\(exitFile)'; sleep 600"
        tmux(["new-session", "-d", "-s", "ui", "-x", String(width), "-y", String(height), "sh", "-c", command])
    }

    /// Starts an interactive bash (job control, as a person's terminal has) and runs
    /// `habitto ARGS` from its prompt.
    func startInShell(_ args: [String] = []) {
        var env = box.environment
        env["LANG"] = "C.UTF-8"
        let exports = env.filter { ["HABITTO_HOME", "XDG_CONFIG_HOME", "HABITTO_NOW", "TZ", "LANG"].contains($0.key) }
            .map { "export \($0.key)='\($0.value)';" }.joined(separator: " ")
        tmux(["new-session", "-d", "-s", "ui", "-x", "80", "-y", "24", "bash", "--norc", "--noprofile", "-i"])
        type("PS1='$ '; \(exports) clear; '\(Sandbox.binary)' \(args.map { "'\($0)'" }.joined(separator: " "))")
        send("Enter")
    }

    func screen() -> String { tmux(["capture-pane", "-p", "-t", "ui"]).output }

    func send(_ keys: String...) { tmux(["send-keys", "-t", "ui"] + keys) }
    func type(_ text: String) { tmux(["send-keys", "-t", "ui", "-l", text]) }
    func resize(_ w: Int, _ h: Int) { tmux(["resize-window", "-t", "ui", "-x", String(w), "-y", String(h)]) }

    /// In a session from `startInShell`: Ctrl-Z (ncurses gives the terminal back to the
    /// shell), then `fg`, and waits for the UI to be drawn again.
    func suspendAndResume(file: StaticString = #filePath, line: UInt = #line) {
        send("C-z")
        waitFor(text: "Stopped", file: file, line: line)
        type("fg")
        send("Enter")
        waitFor("the UI to be redrawn", file: file, line: line) {
            $0.contains("space check in") && !$0.contains("Stopped")
        }
    }

    /// In a session from `startInShell`: quits with `q`, and has the shell write the exit
    /// status and `stty -a` to `exitFile` (aside, then renamed, so it is never seen half
    /// written) for `exitStatus`.
    func quitToShell(file: StaticString = #filePath, line: UInt = #line) {
        send("q")
        waitFor("the shell prompt", file: file, line: line) { !$0.contains("space check in") }
        type("echo \"EXIT=$?\" > '\(exitFile).tmp'; stty -a >> '\(exitFile).tmp'; mv '\(exitFile).tmp' '\(exitFile)'")
        send("Enter")
    }

    /// Waits until the screen satisfies `condition` (polling; fails after `timeout` seconds).
    @discardableResult
    func waitFor(_ what: String, timeout: TimeInterval = 10, file: StaticString = #filePath, line: UInt = #line,
                 _ condition: (String) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        var last = ""
        while Date() < deadline {
            last = screen()
            if condition(last) { return true }
            usleep(40_000)
        }
        XCTFail("timed out waiting for \(what); the screen was:\n\(last)", file: file, line: line)
        return false
    }

    func waitFor(text: String, timeout: TimeInterval = 10, file: StaticString = #filePath, line: UInt = #line) {
        waitFor("'\(text)'", timeout: timeout, file: file, line: line) { $0.contains(text) }
    }

    /// Waits for the program to end; returns its exit status and the `stty -a` output after it.
    func exitStatus(file: StaticString = #filePath, line: UInt = #line) -> (Int32?, String) {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if let text = try? String(contentsOfFile: exitFile, encoding: .utf8) {
                let status = text.split(separator: "\n").first.flatMap { Int32($0.dropFirst(5)) }
                return (status, text)
            }
            usleep(40_000)
        }
        XCTFail("the program did not exit; the screen was:\n\(screen())", file: file, line: line)
        return (nil, "")
    }

    func pid() -> pid_t? {
        // The habitto process: the shell's child in the window.
        let shell = tmux(["display-message", "-p", "-t", "ui", "#{pane_pid}"]).output.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let shellPid = Int32(shell) else { return nil }
        let children = (try? String(contentsOfFile: "/proc/\(shellPid)/task/\(shellPid)/children", encoding: .utf8)) ?? ""
        return children.split(separator: " ").compactMap { Int32($0) }.first
    }

    /// Stops the server and removes its socket.
    func kill() {
        tmux(["kill-server"])
        let dir = ProcessInfo.processInfo.environment["TMUX_TMPDIR"] ?? "/tmp"
        unlink("\(dir)/tmux-\(getuid())/\(socket)")
    }
}

/// The terminal UI driven as a person would: keys into tmux, the screen read back.
final class TerminalUITests: XCTestCase {
    var box: Sandbox!
    var ui: TmuxSession!

    override func setUpWithError() throws {
        box = Sandbox()
        ui = try TmuxSession.forTest(box: box)
    }

    override func tearDown() {
        ui?.kill()
        ui = nil
        box = nil
    }

    /// The edit form's "from today or from the start?" in the real binary.
    func testANewGoalTypedInTheFormCountsFromTodayWhenTheAnswerIsT() {
        box.ok("add", "Water", "--goal", "8", "--unit", "glasses", "--start", "2026-11-10")
        for d in 10...20 { box.ok("check", "Water", "--amount", "9", "--date", "2026-11-\(d)") }
        ui.start()
        ui.waitFor(text: "Water")
        ui.send("e")
        ui.waitFor(text: "Edit habit")
        for _ in 0..<3 { ui.send("Tab") }  // name, icon, kind, then the goal
        ui.type("10")
        ui.send("Enter")
        ui.waitFor(text: "Goal 8 → 10: from today (t) or from the start 2026-11-10 (s)?")
        ui.send("t")
        ui.waitFor(text: "Saved 'Water'")
        ui.send("q")
        XCTAssertEqual(ui.exitStatus().0, 0)
        XCTAssertEqual(box.listEntry("Water")?["goal"] as? Int, 10)
        XCTAssertEqual(box.listEntry("Water")?["streak"] as? Int, 11, "the eleven days of 9 glasses still count")
        XCTAssertEqual(box.listEntry("Water", ["--date", "2026-11-20"])?["goal"] as? Int, 8)
    }

    func testAddAHabitInTheFormCheckItInRateItAndQuit() {
        ui.start()
        ui.waitFor(text: "No habits yet. Press a to add your first one.")
        ui.send("a")
        ui.waitFor(text: "New habit")
        ui.type("Stretch")
        ui.send("Tab")
        ui.type("🧘")
        ui.send("Enter")
        ui.waitFor(text: "Added 'Stretch'")
        ui.send("Space")
        ui.waitFor(text: "How hard was Stretch?")
        ui.send("3")
        ui.waitFor("the rating") { $0.contains("Rated 'Stretch' on ") && $0.contains(": 3 (medium)") }
        ui.send("q")
        let (status, stty) = ui.exitStatus()
        XCTAssertEqual(status, 0)
        XCTAssertTrue(stty.contains(" icanon") && stty.contains(" echo"), "terminal not restored:\n\(stty)")
        let s = box.listEntry("Stretch")
        XCTAssertEqual(s?["progress"] as? Int, 1)
        XCTAssertEqual(s?["difficulty"] as? Int, 3)
        XCTAssertEqual(s?["icon"] as? String, "🧘")
    }

    func testReminderTimesTypedInTheFormAreSaved() {
        ui.start()
        ui.waitFor(text: "No habits yet. Press a to add your first one.")
        ui.send("a")
        ui.waitFor(text: "New habit")
        ui.type("Stretch")
        for _ in 0..<9 { ui.send("Tab") }  // name … group, then Reminders
        ui.type("21:00,7:30")
        ui.send("Enter")
        ui.waitFor(text: "Added 'Stretch'")
        ui.send("q")
        XCTAssertEqual(ui.exitStatus().0, 0)
        XCTAssertEqual(box.listEntry("Stretch")?["reminders"] as? [String], ["07:30", "21:00"])
    }

    func testAnEncryptedZipImportedFromARealTerminalIsRefusedWithoutAskingForAPassword() throws {
        let zip = try encryptedLoopZip(in: box)
        // unzip run from a terminal would ask there for the password, and wait forever.
        ui.start(["import", zip, "--from", "loop-csv"], width: 200)
        let (status, _) = ui.exitStatus()
        XCTAssertEqual(status, 1)
        XCTAssertTrue(ui.screen().contains("is encrypted (password-protected)"), ui.screen())
        XCTAssertFalse(ui.screen().contains("password:"), ui.screen())
    }

    func testBackfillYesterdayWithHThenSpace() {
        box.ok("add", "Read", "--start", "2026-11-01")
        ui.start()
        ui.waitFor(text: "Read")
        ui.send("h")
        ui.waitFor(text: "◀ yesterday")
        ui.send("Space")
        ui.waitFor(text: "How hard was Read?")
        ui.send("Escape")
        ui.waitFor(text: "'Read' on 2026-11-20: 1/1, done · streak")
        ui.send("q")
        XCTAssertEqual(ui.exitStatus().0, 0)
        XCTAssertEqual(box.listEntry("Read", ["--date", "2026-11-20"])?["progress"] as? Int, 1)
        XCTAssertEqual(box.listEntry("Read")?["progress"] as? Int, 0)
    }

    func testAPastCellOfTheWeekGridIsEditedWithTypedAmountsAndOneUndoStepEach() {
        box.ok("add", "Drink water", "--goal", "8", "--unit", "glasses", "--start", "2026-11-01")
        box.ok("add", "Read", "--start", "2026-11-01")
        ui.start()
        ui.waitFor(text: "Drink water")
        ui.send("w")
        ui.waitFor(text: "Drink water · Sat 21 Nov 2026: 0/8 glasses")
        ui.send("h", "h")
        ui.waitFor(text: "Drink water · Thu 19 Nov 2026: 0/8 glasses")
        ui.send("n")
        ui.waitFor(text: "Drink water on 2026-11-19: add  _ glasses")
        ui.type("=6")
        ui.send("Enter")
        ui.waitFor(text: "'Drink water' on 2026-11-19: 6/8 glasses · streak")
        ui.send("n")
        ui.type("3")
        ui.send("Enter")
        // 9 of 8 completes it: the difficulty question follows; esc leaves it.
        ui.waitFor(text: "How hard was Drink water?")
        ui.send("Escape")
        ui.waitFor(text: "'Drink water' on 2026-11-19: 9/8 glasses, done · streak")
        ui.send("u")
        ui.waitFor(text: "Undid:")
        ui.waitFor(text: "Drink water · Thu 19 Nov 2026: 6/8 glasses")
        ui.send("j", "Space")
        ui.waitFor(text: "How hard was Read?")
        ui.send("4")
        ui.waitFor(text: "Rated 'Read' on 2026-11-19: 4 (hard)")
        ui.waitFor(text: "Read · Thu 19 Nov 2026: 1/1 · difficulty 4")
        ui.send("q", "q")
        XCTAssertEqual(ui.exitStatus().0, 0)
        let water = box.listEntry("Drink water", ["--date", "2026-11-19"])
        XCTAssertEqual(water?["progress"] as? Int, 6)
        let read = box.listEntry("Read", ["--date", "2026-11-19"])
        XCTAssertEqual(read?["progress"] as? Int, 1)
        XCTAssertEqual(read?["difficulty"] as? Int, 4)
        XCTAssertEqual(box.listEntry("Drink water")?["progress"] as? Int, 0)
    }

    func testCatchUpThreeMissedDaysInOneScreenAndToggleAYesNoHabit() {
        box.ok("add", "Read", "--start", "2026-11-10")
        box.ok("add", "Drink water", "--goal", "8", "--unit", "glasses", "--start", "2026-11-10")
        for d in 10...17 { box.ok("check", "Read", "--date", "2026-11-\(d)"); box.ok("check", "water", "--amount", "8", "--date", "2026-11-\(d)") }
        ui.start()
        ui.waitFor(text: "6 habit-days not recorded from Wed 18 Nov to yesterday · c to catch up")
        ui.send("c")
        // The hint's 6 days before today, and today's 2 apart.
        ui.waitFor(text: "catching up: 6 habit-days before today, 2 today · 8 open")
        // Wed: Read done, water skipped; Thu: Read done (hard), water done; Fri: both done.
        for key in ["y", "s", "4", "y", "y", "y"] { ui.send(key) }
        ui.waitFor(text: "'Drink water' on 2026-11-20: 8/8 glasses, done · streak")
        ui.waitFor(text: "catching up: 6 habit-days before today, 2 today · 2 open")
        ui.send("Escape")
        ui.waitFor("the today screen without the hint") { $0.contains("space check in") && !$0.contains("c to catch up") }
        // Read is yes/no: space checks it, space again marks it not done; never 2/1.
        ui.send("Space")   // Read, the first row
        ui.waitFor(text: "How hard was Read?")
        ui.send("Escape")
        ui.waitFor(text: "'Read' today: 1/1, done · streak")
        ui.send("Space")
        ui.waitFor(text: "'Read' today: 0/1 · streak")
        // A wrong day fixed from the week grid: Thursday's water was 8, it was really 5.
        ui.send("w")
        ui.waitFor(text: "Read · Sat 21 Nov 2026")
        ui.send("j", "h", "h")
        ui.waitFor(text: "Drink water · Thu 19 Nov 2026: 8/8 glasses")
        ui.send("=")
        ui.type("5")
        ui.send("Enter")
        ui.waitFor(text: "'Drink water' on 2026-11-19: 5/8 glasses · streak")
        ui.send("q", "q")
        XCTAssertEqual(ui.exitStatus().0, 0)
        XCTAssertEqual(box.listEntry("Drink water", ["--date", "2026-11-19"])?["progress"] as? Int, 5)
        XCTAssertEqual(box.listEntry("Read", ["--date", "2026-11-19"])?["difficulty"] as? Int, 4)
        XCTAssertEqual(box.listEntry("Drink water", ["--date", "2026-11-18"])?["skipped"] as? Bool, true)
        XCTAssertEqual(box.listEntry("Drink water", ["--date", "2026-11-20"])?["progress"] as? Int, 8)
        XCTAssertEqual(box.listEntry("Read", ["--date", "2026-11-20"])?["streak"] as? Int, 11)
        XCTAssertEqual(box.listEntry("Read")?["progress"] as? Int, 0)
    }

    func testCatchUpAnswersNotDoneAndAnAmountAndNeitherIsAskedAgain() {
        box.ok("add", "Read", "--start", "2026-11-19")
        box.ok("add", "Drink water", "--goal", "8", "--unit", "glasses", "--start", "2026-11-19")
        box.ok("check", "Read"); box.ok("check", "water", "--amount", "8")
        ui.start()
        ui.waitFor(text: "4 habit-days not recorded from Thu 19 Nov to yesterday · c to catch up")
        ui.send("c")
        ui.waitFor(text: "catching up: 4 habit-days before today, 0 today · 4 open")
        // Thu: Read not done, water 5 glasses typed; Fri: left for later.
        ui.send("n")
        ui.waitFor(text: "not done")
        ui.send("a")
        ui.type("5")
        ui.send("Enter")
        ui.waitFor(text: "'Drink water' on 2026-11-19: 5/8 glasses · streak")
        ui.waitFor(text: "catching up: 4 habit-days before today, 0 today · 2 open")
        ui.send("Escape")
        ui.waitFor(text: "2 habits not recorded yesterday · c to catch up")
        ui.send("q")
        XCTAssertEqual(ui.exitStatus().0, 0)
        XCTAssertEqual(box.listEntry("Drink water", ["--date", "2026-11-19"])?["progress"] as? Int, 5)
        XCTAssertEqual(box.listEntry("Read", ["--date", "2026-11-19"])?["completed"] as? Bool, false)
        XCTAssertEqual(box.ok("undo"), "Undid: check 'Drink water' +5 on 2026-11-19\n")
        XCTAssertEqual(box.ok("undo"), "Undid: answer 'Read' not done on 2026-11-19\n")
    }

    func testANoteIsAddedAndAGroupFoldedAt40x10() { noteAndFold(width: 40, height: 10) }

    func testANoteIsAddedAndAGroupFoldedAt120x35() { noteAndFold(width: 120, height: 35) }

    /// N writes a note on the selected habit's day (marked on its row, kept in the journal,
    /// undone with u); z folds the group of the selected habit and unfolds it again.
    func noteAndFold(width: Int, height: Int, file: StaticString = #filePath, line: UInt = #line) {
        box.ok("add", "Read", "--start", "2026-11-01")
        box.ok("add", "Drink water", "--goal", "8", "--unit", "glasses", "--group", "Health", "--start", "2026-11-01")
        box.ok("add", "Stretch", "--group", "Health", "--start", "2026-11-01")
        ui.start(width: width, height: height)
        ui.waitFor(text: "▾ Health", file: file, line: line)
        ui.send("N")
        ui.waitFor(text: "Read, note: _", file: file, line: line)
        ui.type("20 pages, in bed")
        ui.waitFor(text: "in bed_", file: file, line: line)
        ui.send("Enter")
        ui.waitFor(text: "Noted on 'Read'", file: file, line: line)
        ui.waitFor(text: "·✎", file: file, line: line)
        XCTAssertTrue(box.run(["show", "Read"]).stdout.contains("2026-11-21  20 pages, in bed"), file: file, line: line)
        // Fold Health from its first habit: its habits go, its heading counts them.
        ui.send("j", "z")
        ui.waitFor(text: "▸ Health (2, 0 done)", file: file, line: line)
        XCTAssertEqual(ui.screen().components(separatedBy: "\n").filter { $0.contains(" 0d ") }.count, 1,
                       "only Read's row is left:\n\(ui.screen())", file: file, line: line)
        ui.send("Space")
        ui.waitFor(text: "'Health' is folded: z unfolds it", file: file, line: line)
        ui.send("z")
        ui.waitFor(text: "▾ Health", file: file, line: line)
        ui.send("k", "u")
        ui.waitFor(text: "Undid: note on 'Read'", file: file, line: line)
        ui.send("q")
        XCTAssertEqual(ui.exitStatus().0, 0, file: file, line: line)
        XCTAssertFalse(box.run(["show", "Read"]).stdout.contains("20 pages"), file: file, line: line)
    }

    func testResizingTooSmallAndBackRedrawsAndNeverCrashes() {
        box.ok("add", "Drink water", "--goal", "8", "--unit", "glasses")
        ui.start()
        ui.waitFor(text: "Drink water")
        ui.resize(30, 8)
        ui.waitFor(text: "Terminal too small")
        ui.resize(39, 12)
        ui.waitFor(text: "need 40×10, have 39×12")
        ui.resize(80, 24)
        ui.waitFor("the habit list again") { $0.contains("Drink water") && $0.contains("0/8 glasses") }
        ui.send("Space")
        ui.waitFor(text: "1/8 glasses")
        ui.send("q")
        XCTAssertEqual(ui.exitStatus().0, 0)
    }

    func testABrokenThemeFileIsReportedWithFileAndLineAndTheDefaultIsUsed() throws {
        let dir = box.config + "/habitto/themes"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try "# broken\nheader = chartreuse-ish\nsparkles = red\n".write(toFile: dir + "/broken.theme", atomically: true, encoding: .utf8)
        box.ok("add", "Read")
        ui.start(["--theme", "broken"])
        ui.waitFor(text: "broken.theme line 2")
        XCTAssertTrue(ui.screen().contains("Read"), "the UI runs with the default for that role")
        ui.send("T")
        ui.waitFor("the next theme") { $0.contains("Theme:") && !$0.contains("theme broken") }
        ui.send("q")
        XCTAssertEqual(ui.exitStatus().0, 0)
    }

    func testEveryKeyFileProblemIsShownAndTheThemeChosenWithTIsSavedToTheConfig() throws {
        let dir = box.config + "/habitto"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try "today.chek-in = i\ntoday.skip = F13\n".write(toFile: dir + "/keys", atomically: true, encoding: .utf8)
        try "# my settings\nweek_start = monday  # ISO weeks\n".write(toFile: dir + "/config", atomically: true, encoding: .utf8)
        box.ok("add", "Read")
        ui.start()
        ui.waitFor(text: "[1/2]")
        XCTAssertTrue(ui.screen().contains("did you mean 'check-in'?"), ui.screen())
        ui.send("j")
        ui.waitFor(text: "[2/2]")
        XCTAssertTrue(ui.screen().contains("unknown key 'F13'"), ui.screen())
        ui.send("T")
        ui.waitFor(text: "Theme: ")
        let chosen = ui.screen().components(separatedBy: "Theme: ").last?.prefix { !$0.isWhitespace } ?? ""
        XCTAssertFalse(chosen.isEmpty)
        ui.send("q")
        XCTAssertEqual(ui.exitStatus().0, 0)
        XCTAssertEqual(try String(contentsOfFile: dir + "/config", encoding: .utf8),
                       "# my settings\nweek_start = monday  # ISO weeks\ntheme = \(chosen)\n")
        ui.tmux(["kill-session", "-t", "ui"])
        unlink(ui.exitFile)
        ui.start()
        ui.waitFor(text: "theme \(chosen)")
    }

    func testACheckInFromAnotherProcessAppearsWithoutAKeyPress() {
        box.ok("add", "Drink water", "--goal", "8", "--unit", "glasses")
        ui.start()
        ui.waitFor(text: "0/8 glasses")
        box.ok("check", "water", "--amount", "2")
        ui.waitFor(text: "2/8 glasses")
        ui.send("q")
        XCTAssertEqual(ui.exitStatus().0, 0)
    }

    func testCtrlCRestoresTheTerminal() {
        box.ok("add", "Read")
        ui.start()
        ui.waitFor(text: "Read")
        ui.send("C-c")
        let (status, stty) = ui.exitStatus()
        XCTAssertEqual(status, 130)
        XCTAssertTrue(stty.contains(" icanon") && stty.contains(" echo"), "terminal not restored:\n\(stty)")
    }

    func testSigtermRestoresTheTerminal() throws {
        box.ok("add", "Read")
        ui.start()
        ui.waitFor(text: "Read")
        let pid = try XCTUnwrap(ui.pid())
        Glibc.kill(pid, SIGTERM)
        let (status, stty) = ui.exitStatus()
        XCTAssertEqual(status, 143)
        XCTAssertTrue(stty.contains(" icanon") && stty.contains(" echo"), "terminal not restored:\n\(stty)")
    }

    func testWithoutATerminalItSaysSoAndSuggestsList() {
        let r = box.run([])
        XCTAssertEqual(r.status, 2)
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1)
        XCTAssertTrue(r.stderr.contains("habitto list"), r.stderr)
    }

    func testCtrlZSuspendsAndAResumedSessionRedraws() throws {
        box.ok("add", "Read")
        ui.startInShell()
        ui.waitFor(text: "space check in")
        ui.suspendAndResume()
        ui.send("Space")
        ui.waitFor(text: "How hard was Read?")
        ui.quitToShell()
        XCTAssertEqual(ui.exitStatus().0, 0)
        XCTAssertEqual(box.listEntry("Read")?["progress"] as? Int, 1, "the check-in after resuming was stored")
    }

    func testCtrlSDoesNotFreezeTheUIBeforeOrAfterCtrlZAndFlowControlIsRestored() throws {
        box.ok("add", "Read", "--goal", "3")
        ui.startInShell()
        ui.waitFor(text: "space check in")
        // With XON/XOFF on, Ctrl-S would stop the terminal's output until Ctrl-Q.
        ui.send("C-s")
        ui.send("Space")
        ui.waitFor(text: "1/3")
        ui.suspendAndResume()
        ui.send("C-s")
        ui.send("Space")
        ui.waitFor(text: "2/3")
        ui.quitToShell()
        let (status, stty) = ui.exitStatus()
        XCTAssertEqual(status, 0)
        XCTAssertTrue(stty.contains(" ixon"), "flow control not restored:\n\(stty)")
        XCTAssertEqual(box.listEntry("Read")?["progress"] as? Int, 2)
    }

    func testAFullDiskShowsInTheMessageLineAndTheUIKeepsRunning() throws {
        let mnt = try XCTUnwrap(box.mountTmpfs(sizeKB: 256))
        box.extraEnv["HABITTO_HOME"] = mnt + "/data"
        box.ok("add", "Drink water", "--goal", "100000")
        ui.start()
        ui.waitFor(text: "0/100000")
        box.fill(mnt)
        // Check in until the journal needs a new block and the write fails.
        var failed = false
        for n in 1...200 {
            ui.send("Space")
            guard ui.waitFor("check-in \(n) to finish", { $0.contains("\(n)/100000") || $0.contains("No space left on device") })
            else { break }
            if ui.screen().contains("No space left on device") { failed = true; break }
        }
        XCTAssertTrue(failed, "the disk never filled up")
        let screen = ui.screen()
        XCTAssertTrue(screen.contains("free some disk space"), screen)
        try FileManager.default.removeItem(atPath: mnt + "/filler")
        let shown = box.listEntry("Drink water")?["progress"] as? Int ?? -1
        XCTAssertTrue(screen.contains("\(shown)/100000"), "the screen shows exactly what was stored: \(shown)\n\(screen)")
        ui.send("Space")
        ui.waitFor(text: "\(shown + 1)/100000")
        ui.send("q")
        XCTAssertEqual(ui.exitStatus().0, 0)
    }

    func testReorderTwoHabitsAndUnarchiveOneAt40x10() { reorderAndUnarchive(width: 40, height: 10) }

    func testReorderTwoHabitsAndUnarchiveOneAt120x35() { reorderAndUnarchive(width: 120, height: 35) }

    /// J moves Run below Gym, v lists the archived Tea marked, A unarchives it, K moves it up
    /// and u takes that move back; the order is what `list` prints afterwards.
    private func reorderAndUnarchive(width: Int, height: Int, file: StaticString = #filePath, line: UInt = #line) {
        for name in ["Run", "Gym", "Tea"] { box.ok("add", name, "--start", "2026-11-01") }
        box.ok("archive", "Tea")
        /// The habit names of the list's rows, top to bottom (names are short enough to fit).
        func rows(_ screen: String) -> [String] {
            screen.split(separator: "\n", omittingEmptySubsequences: false).dropFirst(2).prefix(height - 6).compactMap { row in
                ["Run", "Gym", "Tea"].first { row.contains(" \($0) ") }
            }
        }
        ui.start(width: width, height: height)
        ui.waitFor(text: "Run", file: file, line: line)
        XCTAssertEqual(rows(ui.screen()), ["Run", "Gym"], ui.screen(), file: file, line: line)
        ui.send("J")
        ui.waitFor(text: "Moved 'Run' down", file: file, line: line)
        XCTAssertEqual(rows(ui.screen()), ["Gym", "Run"], ui.screen(), file: file, line: line)
        ui.send("v")
        ui.waitFor(text: "Showing every habit", file: file, line: line)
        XCTAssertEqual(rows(ui.screen()), ["Gym", "Run", "Tea"], ui.screen(), file: file, line: line)
        let tea = ui.screen().split(separator: "\n").first { $0.contains(" Tea ") } ?? ""
        XCTAssertTrue(tea.contains("archived"), String(tea), file: file, line: line)
        ui.send("G")
        ui.send("A")
        ui.waitFor(text: "Unarchive 'Tea'? y yes, n no", file: file, line: line)
        ui.send("y")
        ui.waitFor(text: "Unarchived 'Tea' (u undoes)", file: file, line: line)
        let unarchived = ui.screen().split(separator: "\n").first { $0.contains(" Tea ") } ?? ""
        XCTAssertTrue(unarchived.contains("0/1") && !unarchived.contains("archived"), String(unarchived), file: file, line: line)
        ui.send("K")
        ui.waitFor(text: "Moved 'Tea' up", file: file, line: line)
        XCTAssertEqual(rows(ui.screen()), ["Gym", "Tea", "Run"], ui.screen(), file: file, line: line)
        ui.send("u")
        ui.waitFor(text: "Undid: move 'Tea'", file: file, line: line)
        XCTAssertEqual(rows(ui.screen()), ["Gym", "Run", "Tea"], ui.screen(), file: file, line: line)
        ui.send("q")
        XCTAssertEqual(ui.exitStatus(file: file, line: line).0, 0, file: file, line: line)
        let list = box.run("list")
        XCTAssertEqual(list.stdout.split(separator: "\n").dropFirst().compactMap { row in ["Run", "Gym", "Tea"].first { row.contains(" \($0) ") } },
                       ["Gym", "Run", "Tea"], list.stdout, file: file, line: line)
        XCTAssertTrue(box.listEntry("Tea")?["archivedFrom"] is NSNull, file: file, line: line)
    }

    func testTheScoreChartPageAndTheOverviewAt40x10() { chartPagesAndOverview(width: 40, height: 10) }

    func testTheScoreChartPageAndTheOverviewAt120x35() { chartPagesAndOverview(width: 120, height: 35) }

    /// enter opens Read's details, tab goes to its score page (an area chart with its axis),
    /// ] changes the span, a day key still records there; esc, then O opens the overview with
    /// a row per habit; esc goes back to today.
    private func chartPagesAndOverview(width: Int, height: Int, file: StaticString = #filePath, line: UInt = #line) {
        box.ok("add", "Read", "--start", "2026-11-01")
        box.ok("add", "Stretch", "--start", "2026-11-01")
        for d in 1...19 where d % 4 != 0 { box.ok("check", "Read", "--date", String(format: "2026-11-%02d", d)) }
        ui.start(width: width, height: height)
        ui.waitFor(text: "Read", file: file, line: line)
        ui.send("Enter")
        ui.waitFor(text: "tab next page", file: file, line: line)
        ui.send("Tab")
        ui.waitFor(text: "Score · last year", file: file, line: line)
        XCTAssertTrue(ui.screen().contains("100% ┤"), ui.screen(), file: file, line: line)
        XCTAssertTrue(ui.screen().contains("2026-11-01"), ui.screen(), file: file, line: line)
        ui.send("]")
        ui.waitFor(text: "Score · all", file: file, line: line)
        // space checks in the calendar's day (today) from the chart page, 1 rates it.
        ui.send("Space")
        ui.waitFor("the check-in", file: file, line: line) { $0.contains("'Read' today: 1/1, done") || $0.contains("How hard was Read?") }
        ui.send("1")
        ui.waitFor("today's check-in and rating", file: file, line: line) { _ in
            let read = self.box.listEntry("Read", file: file, line: line)
            return (read?["completed"] as? Bool) == true && (read?["difficulty"] as? Int) == 1
        }
        XCTAssertTrue(ui.screen().contains("Score · all"), ui.screen(), file: file, line: line)
        ui.send("Escape")
        ui.waitFor(text: "Stretch", file: file, line: line)
        ui.send("O")
        ui.waitFor(text: "All habits", file: file, line: line)
        let rows = ui.screen().split(separator: "\n").filter { $0.hasPrefix(" Read ") || $0.hasPrefix(" Stretch ") }
        XCTAssertEqual(rows.count, 2, ui.screen(), file: file, line: line)
        XCTAssertTrue(rows.first?.contains("×") == true && rows.first?.contains("█") == true, ui.screen(), file: file, line: line)
        if height >= 24 { XCTAssertTrue(ui.screen().contains("XP per week"), ui.screen(), file: file, line: line) }
        ui.send("Escape")
        ui.waitFor("the today screen", file: file, line: line) { !$0.contains("All habits") && $0.contains("Stretch") }
        ui.send("q")
        XCTAssertEqual(ui.exitStatus(file: file, line: line).0, 0, file: file, line: line)
    }

    /// HABITTO_FIRST_KEYS (the benchmark's way to measure another screen's first frame):
    /// the keys are pressed before the first frame.
    func testFirstKeysOpenTheScorePageBeforeTheFirstFrame() {
        box.ok("add", "Read", "--start", "2026-11-01")
        ui.start(env: ["HABITTO_FIRST_KEYS": "enter tab"])
        ui.waitFor(text: "Score · last year")
        ui.send("Escape")
        ui.waitFor("the today screen") { $0.contains("Read") && !$0.contains("Score") }
        ui.send("q")
        XCTAssertEqual(ui.exitStatus().0, 0)
    }

    func testIdleMeansIdle() throws {
        box.ok("add", "Read")
        ui.start()
        ui.waitFor(text: "Read")
        let pid = try XCTUnwrap(ui.pid())
        let before = TerminalUITests.cpuTicks(of: pid)
        usleep(2_000_000) // an idle window to measure, not a wait for anything
        let used = TerminalUITests.cpuTicks(of: pid) - before
        // Woken at most a few times a second to look for other processes' writes.
        XCTAssertLessThan(used, 10, "used \(used) clock ticks in 2 s of idling")
        ui.send("q")
        XCTAssertEqual(ui.exitStatus().0, 0)
    }

    static func stat(of pid: pid_t) -> [Substring] {
        let text = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        guard let close = text.lastIndex(of: ")") else { return [] }
        return text[text.index(after: close)...].split(separator: " ")
    }

    static func state(of pid: pid_t) -> String { stat(of: pid).first.map(String.init) ?? "?" }

    /// User plus system time, in clock ticks.
    static func cpuTicks(of pid: pid_t) -> Int {
        let f = stat(of: pid)
        guard f.count > 12 else { return 0 }
        return (Int(f[11]) ?? 0) + (Int(f[12]) ?? 0)
    }
}
