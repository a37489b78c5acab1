import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Answerable reminders through the real binary: a fake `notify-send` on PATH that offers
/// actions (its help names `--action`, `--wait` and `--print-id`), prints an id once
/// "shown", then waits on a FIFO for the test to pick an action and prints its name.
final class ReminderAnswerTests: XCTestCase {
    private var box: Sandbox!
    private var bin: String { box.fakePrograms }
    private var log: String { box.root + "/notify.log" }
    private var answer: String { box.root + "/answer" }

    override func setUp() {
        box = Sandbox()
        box.useFakePrograms()
        XCTAssertEqual(mkfifo(answer, 0o600), 0)
    }

    override func tearDown() { box = nil }

    /// A fake `notify-send` with actions: logs its arguments, prints `id` (0: not shown), then
    /// the line the test writes into the FIFO.
    private func fakeWithActions(id: Int = 42) throws {
        try box.script(bin + "/notify-send", """
            if [ "$1" = --help ]; then
              printf '%s\\n' '  -p, --print-id   Print the notification ID.' '  -w, --wait   Wait for the notification to be closed before exiting.' \\
                '  -A, --action=[NAME=]Text...   Specifies the actions to display to the user.'
              exit 0
            fi
            for a in "$@"; do printf '%s\\n' "$a"; done >> '\(log)'; echo -- >> '\(log)'
            echo \(id)
            [ \(id) = 0 ] && exit 1
            read picked < '\(answer)'
            echo "$picked"
            """)
    }

    private func calls() -> [[String]] {
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return text.split(separator: "--\n").map { $0.split(separator: "\n").map(String.init) }
    }

    /// Runs `remind` with its standard error on a pipe that the child waiting for the answer
    /// inherits: the run returns first (`status`), and `finished` reads the pipe to its end,
    /// which comes when the child has recorded the answer and exited.
    private func remind() throws -> (status: Int32, stdout: String, finished: () -> String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: box.binaryPath)
        p.arguments = ["remind"]
        p.environment = box.environment
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = FileHandle.nullDevice
        let exited = DispatchSemaphore(value: 0)
        p.terminationHandler = { _ in exited.signal() }
        try p.run()
        if exited.wait(timeout: .now() + 60) == .timedOut {
            p.terminate()
            p.waitUntilExit()
            XCTFail("remind waited for the answer: it must leave that to its child")
        }
        let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return (p.terminationStatus, stdout, {
            let done = DispatchSemaphore(value: 0)
            let text = LockedText()
            DispatchQueue.global().async { text.set(String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)); done.signal() }
            XCTAssertEqual(done.wait(timeout: .now() + 60), .success, "the child that waits for the answer did not end")
            return text.get()
        })
    }

    /// Picks an action, as the user clicking it: the fake reads it from the FIFO.
    private func pick(_ action: String) {
        let fd = open(answer, O_WRONLY | O_NONBLOCK)
        XCTAssertGreaterThanOrEqual(fd, 0, "no notification is waiting for an answer")
        guard fd >= 0 else { return }
        _ = write(fd, action + "\n", action.utf8.count + 1)
        close(fd)
    }

    func testDoneRecordsTheCheckInOnceForTheDayTheReminderWasFor() throws {
        try fakeWithActions()
        box.ok("add", "Read", "--start", "2026-11-20", "--remind", "23:00")
        // A night owl's day starts at 04:00: at half past midnight on the 22nd the 23:00
        // reminder of habit day 2026-11-21 is still within its window.
        try Data("day_start_hour = 4\n".utf8).write(to: URL(fileURLWithPath: box.config + "/habitto/config"))
        box.now = "2026-11-22T00:30:00"
        let first = try remind()
        XCTAssertEqual(first.status, 0)
        XCTAssertEqual(first.stdout, "")
        XCTAssertEqual(calls(), [["--app-name=Habitto", "--print-id", "--wait", "--action=done=Done", "--action=skip=Skip",
                                  "Habitto: Read", "Reminder 23:00: not done on 2026-11-21 (0/1)"]])
        // Shown, so claimed: the next run (the notification still waiting) shows nothing.
        let second = try remind()
        XCTAssertEqual(second.status, 0)
        XCTAssertEqual(second.finished(), "")
        XCTAssertEqual(calls().count, 1, "a reminder is shown once")
        pick("done")
        XCTAssertEqual(first.finished(), "")
        XCTAssertEqual(progress(box, "Read", date: "2026-11-21"), 1, "recorded for the habit day the reminder was for, not the date it was answered on")
        XCTAssertEqual(box.ok("undo"), "Undid: check 'Read' +1 on 2026-11-21\n", "one check-in, like 'habitto check'")
        XCTAssertEqual(progress(box, "Read", date: "2026-11-21"), 0)
    }

    func testSkipSkipsTheDayAndACountedHabitOffersOneMoreUnitNotATypedAmount() throws {
        try fakeWithActions()
        box.now = "2026-11-21T08:30:00"
        box.ok("add", "Water", "--goal", "8", "--unit", "glasses", "--remind", "08:00")
        let run = try remind()
        XCTAssertEqual(run.status, 0)
        XCTAssertEqual(calls().first?[3...4], ["--action=done=+1 glasses", "--action=skip=Skip"])
        pick("skip")
        XCTAssertEqual(run.finished(), "")
        XCTAssertEqual(box.listEntry("Water")?["skipped"] as? Bool, true)
        XCTAssertEqual(progress(box, "Water"), 0)
    }

    func testANotificationThatWasNotShownIsNotClaimedAndComesAgain() throws {
        try fakeWithActions(id: 0)
        box.now = "2026-11-21T08:30:00"
        box.ok("add", "Read", "--remind", "08:00")
        let run = try remind()
        XCTAssertEqual(run.status, 1)
        XCTAssertEqual(run.finished(), "habitto: remind: the 08:00 reminder for 'Read' was not shown: notify-send could not show it; it is tried again at the next run\n")
        XCTAssertEqual((try? String(contentsOfFile: box.home + "/reminders-sent", encoding: .utf8)) ?? "", "")
        try fakeWithActions()
        let again = try remind()
        XCTAssertEqual(again.status, 0)
        XCTAssertEqual(calls().count, 2, "tried again")
        pick("done")
        XCTAssertEqual(again.finished(), "")
        XCTAssertEqual(progress(box, "Read"), 1)
    }

    func testWhereActionsAreNotOfferedTheReminderIsShownAsBefore() throws {
        // An older notify-send: its help names neither --action nor --wait.
        try box.script(bin + "/notify-send", """
            [ "$1" = --help ] && { echo '  -u, --urgency=LEVEL'; exit 0; }
            for a in "$@"; do printf '%s\\n' "$a"; done >> '\(log)'; echo -- >> '\(log)'
            """)
        box.now = "2026-11-21T08:30:00"
        box.ok("add", "Read", "--remind", "08:00")
        let run = try remind()
        XCTAssertEqual(run.status, 0)
        XCTAssertEqual(run.finished(), "")
        XCTAssertEqual(calls(), [["--app-name=Habitto", "Habitto: Read", "Reminder 08:00: not done today (0/1)"]])
        XCTAssertEqual(progress(box, "Read"), 0)
    }

    func testTheTimerRunsTheAutoHabitsSoADoneOneIsNotReminded() throws {
        try fakeWithActions()
        box.now = "2026-11-21T08:30:00"
        box.ok("add", "Walk", "--remind", "08:00")
        box.ok("auto", "Walk", "exit 0")
        let run = try remind()
        XCTAssertEqual(run.status, 0)
        XCTAssertEqual(run.finished(), "")
        XCTAssertEqual(progress(box, "Walk"), 1)
        XCTAssertEqual(calls(), [], "done by its command before the reminders were looked at")
    }
}

/// A string set on one thread and read on another.
private final class LockedText: @unchecked Sendable {
    private let lock = NSLock()
    private var text = ""
    func set(_ s: String) { lock.lock(); text = s; lock.unlock() }
    func get() -> String { lock.lock(); defer { lock.unlock() }; return text }
}
