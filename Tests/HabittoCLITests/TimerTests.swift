import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Timers in the real binary: the UI's `t` and `habitto timer`, on a timer clock sped up by
/// `HABITTO_TIMER_SPEED` (the clock is injected: no test waits out a real duration). In the
/// tmux tests' class, for its session and sandbox.
extension TerminalUITests {
    /// The minutes left on the screen's "M:SS left", nil when it shows none.
    static func minutesLeft(_ screen: String) -> Int? {
        guard let range = screen.range(of: #"\d+:\d\d left"#, options: .regularExpression) else { return nil }
        return Int(screen[range].split(separator: ":")[0])
    }

    /// Opens the UI on the timer clock run `speed` times as fast, and starts a timer with
    /// the duration the prompt suggests (`suggested`) for the first habit (`name`).
    func startUITimer(_ name: String, speed: String, suggested: String, file: StaticString = #filePath, line: UInt = #line) {
        ui.start(env: ["HABITTO_TIMER_SPEED": speed])
        ui.waitFor(text: name, file: file, line: line)
        startTimer(suggested: suggested, file: file, line: line)
    }

    /// `t`, then `enter` once the prompt suggests `suggested`; waits for the countdown.
    func startTimer(suggested: String, file: StaticString = #filePath, line: UInt = #line) {
        ui.send("t")
        ui.waitFor(text: "timer for  \(suggested)_", file: file, line: line)
        ui.send("Enter")
        ui.waitFor(text: "left", file: file, line: line)
    }

    func testTStartsATimerPPausesItSurvivesAResizeAndItsEndChecksTheMinutesIn() {
        box.ok("add", "Meditate", "--goal", "2", "--unit", "min")
        startUITimer("Meditate", speed: "20", suggested: "2m")
        XCTAssertTrue(ui.screen().contains("p pause/resume"), ui.screen())
        ui.send("p")
        ui.waitFor(text: "(paused)")
        let paused = ui.screen()
        ui.resize(40, 10)
        ui.waitFor("the paused timer at 40x10") { $0.contains("(paused)") && $0.split(separator: "\n").allSatisfy { $0.count <= 40 } }
        ui.resize(80, 24)
        // Still paused, at the same time left, after the resizes.
        ui.waitFor("the same time left") { screen in
            screen.contains("(paused)") && Self.minutesLeft(screen) == Self.minutesLeft(paused)
                && screen.range(of: #"\d+:\d\d left"#, options: .regularExpression).map { screen[$0] }
                    == paused.range(of: #"\d+:\d\d left"#, options: .regularExpression).map { paused[$0] }
        }
        ui.send("p")
        ui.waitFor("the timer to end and the today screen to show the minutes", timeout: 20) { $0.contains("2/2 min") }
        ui.send("q")
        XCTAssertEqual(ui.exitStatus().0, 0)
        XCTAssertEqual(box.listEntry("Meditate")?["progress"] as? Int, 2)
    }

    func testEscAsksAndRRecordsTheWholeMinutesTheTimerRan() {
        box.ok("add", "Meditate", "--goal", "30", "--unit", "min")
        startUITimer("Meditate", speed: "60", suggested: "30m")
        ui.waitFor("two minutes run") { (Self.minutesLeft($0) ?? 99) < 28 }
        ui.send("Escape")
        ui.waitFor(text: "Stop the timer after")
        ui.send("r")
        // The today screen, with what r recorded.
        ui.waitFor("the minutes recorded") { $0.range(of: #"[1-9][0-9]*/30 min"#, options: .regularExpression) != nil }
        ui.send("q")
        XCTAssertEqual(ui.exitStatus().0, 0)
        let progress = box.listEntry("Meditate")?["progress"] as? Int ?? 0
        XCTAssertTrue((2...29).contains(progress), "recorded \(progress) min")
    }

    func testEscThenDDiscardsAndCtrlCDuringATimerEndsTheUICleanly() {
        box.ok("add", "Read")
        startUITimer("Read", speed: "2", suggested: "25m")
        ui.send("Escape")
        ui.waitFor(text: "Stop the timer after")
        ui.send("d")
        ui.waitFor(text: "nothing recorded")
        startTimer(suggested: "25m")
        ui.send("C-c")
        let (status, stty) = ui.exitStatus()
        XCTAssertEqual(status, 130)
        XCTAssertTrue(stty.contains(" icanon") && stty.contains(" echo"), "terminal not restored:\n\(stty)")
        XCTAssertEqual(box.listEntry("Read")?["progress"] as? Int, 0)
    }

    func testATimerThatEndsInTheUISendsANotificationAndWithoutNotifySendTheMessageLineNamesThePackage() throws {
        box.ok("add", "Read", "--goal", "5")
        let log = box.root + "/notify.log"
        try FileManager.default.createDirectory(atPath: box.fakePrograms, withIntermediateDirectories: true)
        try box.script(box.fakePrograms + "/notify-send", "for a in \"$@\"; do printf '%s\\n' \"$a\"; done >> '\(log)'")
        let desktop = ["PATH": box.fakePrograms + ":/usr/bin:/bin", "DISPLAY": ":0"]
        ui.start(env: desktop.merging(["HABITTO_TIMER_SPEED": "600"]) { a, _ in a })
        ui.waitFor(text: "Read")
        startTimer(suggested: "25m")
        ui.waitFor("the check-in") { $0.contains("1/5") }
        ui.waitFor("the notification") { _ in (try? String(contentsOfFile: log, encoding: .utf8)) == "--app-name=Habitto\nHabitto: Read\nTimer done (25m): +1 recorded\n" }
        ui.send("q")
        XCTAssertEqual(ui.exitStatus().0, 0)
        ui.kill()

        try FileManager.default.removeItem(atPath: box.fakePrograms + "/notify-send")
        ui = TmuxSession(box: box)
        ui.start(env: desktop.merging(["HABITTO_TIMER_SPEED": "600"]) { a, _ in a })
        ui.waitFor(text: "Read")
        startTimer(suggested: "25m")
        // On two rows of the message line at 80 columns.
        ui.waitFor("the hint") { $0.contains("no notification: notify-send is not installed") && $0.contains("libnotify-bin") }
        XCTAssertTrue(ui.screen().contains("2/5"), ui.screen())
    }

    func testTheTimerCommandCountsDownOnOneLineAndChecksTheHabitIn() {
        box.ok("add", "Read")
        ui.start(["timer", "Read", "90s"], env: ["HABITTO_TIMER_SPEED": "30"])
        ui.waitFor(text: "Read: 1:")
        let (status, stty) = ui.exitStatus()
        XCTAssertEqual(status, 0, ui.screen())
        XCTAssertTrue(stty.contains(" icanon") && stty.contains(" echo"), "terminal not restored:\n\(stty)")
        let screen = ui.screen()
        XCTAssertTrue(screen.contains("Read: 0:00 left"), screen)
        XCTAssertTrue(screen.contains("Timer done: "), screen)
        XCTAssertEqual(screen.components(separatedBy: "left").count - 1, 1, "one countdown line:\n\(screen)")
        XCTAssertEqual(box.listEntry("Read")?["progress"] as? Int, 1)
    }

    func testCtrlCStopsTheTimerCommandRecordingNothingOrWithRecordPartialTheMinutesRun() {
        box.ok("add", "Meditate", "--goal", "30", "--unit", "min")
        ui.start(["timer", "Meditate", "30m"], env: ["HABITTO_TIMER_SPEED": "60"])
        ui.waitFor("a minute run") { (Self.minutesLeft($0) ?? 99) < 29 }
        ui.send("C-c")
        let (status, stty) = ui.exitStatus()
        XCTAssertEqual(status, 130)
        XCTAssertTrue(stty.contains(" icanon") && stty.contains(" echo"), "terminal not restored:\n\(stty)")
        XCTAssertTrue(ui.screen().contains("nothing recorded (--record-partial records what it ran)"), ui.screen())
        XCTAssertEqual(box.listEntry("Meditate")?["progress"] as? Int, 0)
        ui.kill()

        ui = TmuxSession(box: box)
        ui.start(["timer", "Meditate", "30m", "--record-partial"], env: ["HABITTO_TIMER_SPEED": "60"])
        ui.waitFor("two minutes run") { (Self.minutesLeft($0) ?? 99) < 28 }
        ui.send("C-c")
        XCTAssertEqual(ui.exitStatus().0, 130)
        XCTAssertTrue(ui.screen().contains("Stopped after"), ui.screen())
        let progress = box.listEntry("Meditate")?["progress"] as? Int ?? 0
        XCTAssertTrue((2...29).contains(progress), "recorded \(progress) min")
    }
}

/// `habitto timer` without a terminal, and its refusals.
final class TimerCommandTests: XCTestCase {
    func testWithoutATerminalItPrintsALineEachMinuteAndChecksIn() {
        let box = Sandbox()
        box.ok("add", "Meditate", "--goal", "3", "--unit", "min")
        box.extraEnv["HABITTO_TIMER_SPEED"] = "60"
        let out = box.ok("timer", "Meditate", "3m")
        let lines = out.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.first, "Timer: Meditate, 3m, then 3 min (Ctrl-C stops it)")
        // As the third and the second minute before the end start (the exact second depends on the machine's load).
        XCTAssertEqual(lines.filter { $0.range(of: #"^[0-9]:[0-5][0-9] left$"#, options: .regularExpression) != nil }.count, 2, out)
        XCTAssertTrue(lines.last?.hasPrefix("Timer done: ") == true, out)
        XCTAssertFalse(out.contains("\r") || out.contains("\u{1B}"), out)
        XCTAssertEqual(box.listEntry("Meditate")?["progress"] as? Int, 3)
    }

    func testWhenItEndsANotificationGoesToNotifySendAndWithoutItAWarningNamesThePackage() throws {
        let box = Sandbox()
        box.ok("add", "Read", "--goal", "5")
        box.useFakePrograms()
        box.extraEnv["HABITTO_TIMER_SPEED"] = "600"
        let log = box.root + "/notify.log"
        try box.script(box.fakePrograms + "/notify-send", "for a in \"$@\"; do printf '%s\\n' \"$a\"; done >> '\(log)'")
        let r = box.run(["timer", "Read", "1m"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stderr, "")
        XCTAssertEqual(try String(contentsOfFile: log, encoding: .utf8), "--app-name=Habitto\nHabitto: Read\nTimer done (1m): +1 recorded\n")
        try FileManager.default.removeItem(atPath: box.fakePrograms + "/notify-send")
        let missing = box.run(["timer", "Read", "1m"])
        XCTAssertEqual(missing.status, 0, missing.stderr)
        XCTAssertEqual(missing.stderr, "habitto: timer: no notification: notify-send is not installed; install it with 'sudo apt install libnotify-bin'\n")
        XCTAssertEqual(box.listEntry("Read")?["progress"] as? Int, 2, "both timers checked in +1")
    }

    func testBadDurationsHabitsAndSpeedsAreOneLineRefusals() {
        let box = Sandbox()
        box.ok("add", "Read")
        for (args, status, text) in [
            (["timer", "Read", "25x"], Int32(1), "'25x' is not a duration: use minutes (25), or h, m and s such as 25m, 1h30m, 90s"),
            (["timer", "Read", "13h"], 1, "'13h' is out of range: a timer runs from 1 second to 12 hours"),
            (["timer", "Nope", "5m"], 1, "Nope"),
            (["timer", "Read"], 2, "missing DURATION"),
            (["timer", "Read", "5m", "--date", "tomorrow"], 1, "future"),
        ] {
            let r = box.run(args)
            XCTAssertEqual(r.status, status, "\(args): \(r.stderr)")
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(text), "\(args): \(r.stderr)")
        }
        box.extraEnv["HABITTO_TIMER_SPEED"] = "fast"
        let r = box.run(["timer", "Read", "5m"])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("HABITTO_TIMER_SPEED='fast' is not a number from 1 to 100000"), r.stderr)
        XCTAssertEqual(box.listEntry("Read")?["progress"] as? Int, 0)
    }

    func testTheTimerCommandCompletesHabitsAndDurations() {
        let box = Sandbox()
        let bash = box.ok("completions", "bash")
        XCTAssertTrue(bash.contains("timer"), bash)
        XCTAssertTrue(bash.contains("25m"), bash)
        XCTAssertTrue(bash.contains("--record-partial"), bash)
    }
}
