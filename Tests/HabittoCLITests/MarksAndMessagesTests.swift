import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Issue 39, point 7: a day answered "not done" has its own mark in `list` and `show`.
final class NotDoneMarkCommandTests: XCTestCase {
    /// Read and Walk, started on the 19th; Read answered "not done" through `ask` for the
    /// 19th and for today, the 21st.
    private func answeredBox() throws -> Sandbox {
        let box = Sandbox(inProcess: true)
        box.now = "2026-11-19T09:00:00"
        box.ok("add", "Read")
        box.ok("add", "Walk")
        box.now = "2026-11-21T20:00:00"
        let ask = try AskSession(box, ["ask", "--days", "2"])
        // Each question, oldest first, and what is typed (n: not done, enter: leave it, ^D: stop).
        let answers = [("Thu 2026-11-19 · Read", "n\n"), ("Thu 2026-11-19 · Walk", "\n"), ("yesterday · Read", "\n"),
                       ("yesterday · Walk", "\n"), ("today · Read", "n\n"), ("today · Walk", "\u{4}")]
        for (question, typed) in answers {
            ask.waitFor(question + " [y n s 1-5 enter] ", count: 1)
            ask.type(typed)
        }
        XCTAssertEqual(ask.finish(), 0, ask.transcript)
        XCTAssertTrue(ask.transcript.contains("⊘ 'Read' on 2026-11-19: 0/1 · streak 0 days · answered not done"), ask.transcript)
        return box
    }

    func testListMarksADayAnsweredNotDoneApartFromAnOpenOne() throws {
        let box = try answeredBox()
        let rows = box.ok("list", "--date", "2026-11-19").split(separator: "\n").map(String.init)
        XCTAssertTrue(rows.contains { $0.hasPrefix("⊘ ") && $0.contains("Read") }, "\(rows)")
        XCTAssertTrue(rows.contains { $0.hasPrefix("· ") && $0.contains("Walk") }, "open: not yet, \(rows)")
        let today = box.ok("list").split(separator: "\n").map(String.init)
        XCTAssertTrue(today.contains { $0.hasPrefix("⊘ ") && $0.contains("Read") }, "\(today)")
        let ascii = box.ok("list", "--date", "2026-11-19", "--ascii").split(separator: "\n").map(String.init)
        XCTAssertTrue(ascii.contains { $0.hasPrefix("\\ Read") }, "\(ascii)")
        XCTAssertTrue(ascii.contains { $0.hasPrefix(". Walk") }, "\(ascii)")
        // And in JSON, for scripts: list's entry and show's history say it too.
        XCTAssertEqual(box.listEntry("Read", ["--date", "2026-11-19"])?["notDone"] as? Bool, true)
        XCTAssertEqual(box.listEntry("Walk", ["--date", "2026-11-19"])?["notDone"] as? Bool, false)
        let history = (box.json("show", "Read", "--json") as? [String: Any])?["history"] as? [[String: Any]] ?? []
        XCTAssertEqual(history.map { $0["notDone"] as? Bool }, [true, false, true], "the 19th, the 20th (missed), today")
    }

    func testShowMarksTheAnsweredDayInItsGraphAndLegendAndOnItsDay() throws {
        let box = try answeredBox()
        let show = box.ok("show", "Read").split(separator: "\n").map(String.init)
        XCTAssertTrue(show.contains("  last 3 days (oldest first): ⊘×⊘"), "the 19th and today answered, the 20th missed: \(show)")
        XCTAssertEqual(show.suffix(2), ["    ✓ done  ◐ partly  × missed  · not due  ✗ over the limit  ~ skipped", "    ⊘ answered not done"])
        XCTAssertTrue(show.contains("  today: 0/1 (answered not done) · streak 0 days, best 0 · strength 0%"), "\(show)")
        let ascii = box.ok("show", "Read", "--ascii").split(separator: "\n").map(String.init)
        XCTAssertTrue(ascii.contains("  last 3 days (oldest first): \\-\\"), "\(ascii)")
        XCTAssertEqual(ascii.suffix(2), ["    + done  % partly  - missed  . not due  * over the limit  ~ skipped", "    \\ answered not done"])
        // Walk, open today, keeps the blank of a day in progress, and its graph shows no
        // answered day, so its legend does not name one.
        let walk = box.ok("show", "Walk")
        XCTAssertTrue(walk.hasSuffix("  last 3 days (oldest first): ×× \n    ✓ done  ◐ partly  × missed  · not due  ✗ over the limit  ~ skipped\n"), walk)
    }
}

/// Issue 39, point 9: refusals that say what happened, with the exit status of a refusal.
final class RefusalWordingTests: XCTestCase {
    func testANegativeGoalMustBePositiveAsANegativeAmountMust() {
        let box = Sandbox(inProcess: true)
        let goal = box.run("add", "X", "--goal", "-1")
        XCTAssertEqual(goal.status, 1)
        XCTAssertEqual(goal.stderr, "habitto: --goal '-1' must be positive: a goal is how much a day asks for, such as 8 (a limit habit may have 0)\n")
        box.ok("add", "Water", "--goal", "8")
        let edit = box.run("edit", "Water", "--goal", "-2.5")
        XCTAssertEqual(edit.status, 1)
        XCTAssertEqual(edit.stderr, "habitto: --goal '-2.5' must be positive: a goal is how much a day asks for, such as 8 (a limit habit may have 0)\n")
        let amount = box.run("check", "water", "--amount", "-3")
        XCTAssertEqual(amount.stderr, "habitto: --amount '-3' must be positive: 'uncheck --amount 3' does the opposite\n")
        XCTAssertEqual(box.run("add", "Y", "--goal", "x").stderr,
                       "habitto: --goal: amount 'x' is not a number: use digits with at most 3 decimals, like 8, 2.5 or 0.125\n",
                       "what is not a number still says so")
    }

    func testAnUnknownBackupIdIsARefusalThatSaysHowToListThem() {
        let box = Sandbox(inProcess: true)
        box.ok("add", "Water")
        let nope = box.run("backup", "restore", "nope", "--merge")
        XCTAssertEqual(nope.status, 1)
        XCTAssertEqual(nope.stderr, "habitto: 'nope' names no backup; 'habitto backup list' shows the ids\n")
        let path = box.run("backup", "restore", "../x", "--replace")
        XCTAssertEqual(path.status, 1)
        XCTAssertEqual(path.stderr, "habitto: '../x' is not a backup id; 'habitto backup list' shows the ids\n")
    }

    func testDoctorNamesALinkInPlaceOfTheRemoteSettingsAsTheCause() throws {
        let box = Sandbox(inProcess: true)
        box.ok("add", "Water")
        let folder = box.root + "/remote-folder"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        box.ok("remote", "set", "dir:" + folder)
        let settings = box.home + "/remote"
        XCTAssertEqual(rename(settings, box.root + "/remote-copy"), 0)
        XCTAssertEqual(symlink(box.root + "/remote-copy", settings), 0)
        XCTAssertEqual(box.run("status").status, 3, "status refuses the link")
        let doctor = box.run("doctor")
        XCTAssertEqual(doctor.status, 5)
        XCTAssertTrue(doctor.stdout.contains("problem: sync: \(settings) is a symbolic link, which Habitto never follows, so sync, status, offline and remote fail; "
                                             + "replace the link with a copy of the file itself (or remove it and connect the remote again with habitto remote set)\n"),
                      doctor.stdout)
        XCTAssertFalse(doctor.stdout.contains("damaged"), doctor.stdout)
    }

    /// A real read-only file system (a tmpfs remounted read-only): no owner or mode fixes it.
    func testDoctorOnAReadOnlyFileSystemSaysSoAndNotFixThePermissions() {
        let box = Sandbox()
        guard let mnt = box.mountTmpfs(sizeKB: 1024) else { return }
        box.extraEnv["HABITTO_HOME"] = mnt + "/data"
        box.ok("add", "Water")
        XCTAssertEqual(Sandbox.asRoot("/bin/mount", ["-o", "remount,ro", mnt]), 0)
        let doctor = box.run("doctor")
        XCTAssertEqual(doctor.status, 5, doctor.stdout + doctor.stderr)
        XCTAssertTrue(doctor.stdout.contains("problem: permissions: the data directory \(mnt)/data is on a read-only file system, so nothing can be recorded; "
                                             + "remount that file system read-write (mount -o remount,rw), or use another --home\n"), doctor.stdout)
        XCTAssertFalse(doctor.stdout.contains("owner or permissions"), doctor.stdout)
    }
}
